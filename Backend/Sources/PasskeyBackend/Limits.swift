import Crypto
import Foundation
import HTTPTypes
import WebAuthnRP

/// Body sizes and lifetimes every flow and adapter shares.
package enum Limits {
    /// Options requests are tiny; a response with attestation and extensions fits 64 KiB.
    package static let optionsBody = 4_096
    package static let responseBody = 65_536
    package static let sessionLifetime: TimeInterval = 12 * 3600
    /// Passkeys per page of the list (`limit` may ask for up to the per-account cap).
    package static let pageSize = 10
}

/// A session's token: 32 random bytes, base64url in the cookie; the session row is keyed by
/// their SHA-256, so a copy of the table signs nobody in.
package enum SessionToken {
    /// The cookie's name.
    package static let cookieName = "pk_session"

    /// The token a cookie value carries; anything malformed names no session.
    package static func token(cookie value: String?) -> [UInt8]? {
        guard let value, value.utf8.count == 43,
            let token = try? Base64URLBytes(base64URL: value, member: "session").bytes, token.count == 32
        else { return nil }
        return token
    }

    /// The session row's key.
    package static func id(_ token: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: token)) }
}

extension [String: JSONValue] {
    /// The string member `name`; nil when it is absent or null, 400 when it is another kind.
    package func optionalString(_ name: String) throws -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
    }
}
