import Foundation
import NIOCore
import NIOHTTP1
import PasskeyBackend
import Vapor

/// The body decoder `Application.usePasskeys(_:)` installs for every media type Vapor
/// decodes: a body that is not `application/json` is 415; a JSON body is read first by the
/// library's strict reader (a member given twice in any object, nesting past its cap or
/// malformed UTF-8 is refused: which of two values would count is not left to a decoder), then
/// decoded, and one it refuses is 400 with a client-safe message. The application's own routes
/// get it through `req.content.decode(_:)`, as the passkey routes read theirs.
public struct StrictJSONContentDecoder: ContentDecoder {
    /// The decoder.
    public init() {}

    /// Decodes `decodable` from a JSON body.
    ///
    /// - Parameters:
    ///   - decodable: The type to decode.
    ///   - body: The body.
    ///   - headers: The request's headers.
    /// - Returns: The decoded value.
    /// - Throws: 415 for a body that is not JSON; 400 for one the strict reader or the type refuses.
    public func decode<D: Decodable>(_ decodable: D.Type, from body: ByteBuffer, headers: HTTPHeaders) throws -> D {
        try JSONBody.requireJSONType(headers.first(name: .contentType))
        return try JSONBody.decode(D.self, from: Data(body.readableBytesView))
    }
}
