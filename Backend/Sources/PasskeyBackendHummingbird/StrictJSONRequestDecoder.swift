import Foundation
import Hummingbird
import PasskeyBackend
import WebAuthnRP

/// The request decoder of ``PasskeyRequestContext``: a JSON body of at most 64 KiB, read first by
/// the library's strict reader (a member given twice in any object, nesting past its cap or
/// malformed UTF-8 is refused: which of two values would count is not left to a decoder), then
/// decoded. A body that is not `application/json` is 415, one too large 413, and one the strict
/// reader or the type refuses 400 with a client-safe message. The application's own routes get
/// it through `request.decode(as:context:)`.
public struct StrictJSONRequestDecoder: RequestDecoder {
    /// A decoder with the default limits.
    public init() {}

    /// Decodes `type` from the request's JSON body.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - request: The request.
    ///   - context: Its context.
    /// - Returns: The decoded value.
    /// - Throws: 415, 413 or 400 as above.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try JSONBody.decode(T.self, from: try await request.collectJSON(limit: Limits.responseBody))
    }
}
