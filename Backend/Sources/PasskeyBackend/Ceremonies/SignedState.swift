import Crypto
import Foundation
import WebAuthnRP

/// Cookies signed with HMAC-SHA-256 under the server's session key: a value the client cannot
/// forge or alter, readable by every node that has the key. Payloads are small JSON objects;
/// each carries its purpose and an expiry, both checked on reading.
package struct CookieSigner: Sendable {
    package let key: SymmetricKey

    package init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

    /// `base64url(payload).base64url(HMAC(purpose ‖ 0 ‖ payload))`.
    package func sign<Payload: Encodable>(_ payload: Payload, purpose: String) throws -> String {
        let body = try JSONEncoder().encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(purpose.utf8) + [0] + body, using: key)
        return Base64URLBytes(Array(body)).base64URL + "." + Base64URLBytes(Array(mac)).base64URL
    }

    /// The payload, or nil for a value that is malformed, too long or not signed by this key.
    package func verify<Payload: Decodable>(_ value: String, as type: Payload.Type, purpose: String) -> Payload? {
        guard value.utf8.count <= 8_192 else { return nil }
        let utf8 = value.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let body = try? Base64URLBytes(base64URL: String(value[..<dot]), member: "cookie").bytes,
            let mac = try? Base64URLBytes(base64URL: String(value[utf8.index(after: dot)...]), member: "cookie").bytes
        else { return nil }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(purpose.utf8) + [0] + body, using: key) else {
            return nil
        }
        return try? JSONDecoder().decode(Payload.self, from: Data(body))
    }
}

/// A logged-in user: the session cookie's payload.
package struct SessionPayload: Codable, Sendable {
    /// The user handle, base64url.
    package var user: String
    /// Expiry, seconds since 1970.
    package var exp: Double
}

/// A ceremony in progress: what the server must remember between options and verification,
/// kept by the browser in a signed cookie (one per ceremony kind) instead of a server session.
package struct CeremonyPayload: Codable, Sendable {
    /// What the finish needs back from the begin: the challenge the options carried (store
    /// mode: the finish consumes exactly it), or the sealed challenge (sealed mode).
    package var state: CeremonyChallenge?
    /// Registration: the account being created or extended; a username-first login: the account
    /// named.
    package var username: String?
    /// The user handle of `username`, base64url.
    package var userHandle: String?
    /// Registration: whether the account is new (a row is written only when the passkey is).
    package var newAccount: Bool?
    /// Expiry, seconds since 1970.
    package var exp: Double

    package init(
        state: CeremonyChallenge? = nil, username: String? = nil, userHandle: String? = nil, newAccount: Bool? = nil, exp: Double
    ) {
        self.state = state
        self.username = username
        self.userHandle = userHandle
        self.newAccount = newAccount
        self.exp = exp
    }
}
