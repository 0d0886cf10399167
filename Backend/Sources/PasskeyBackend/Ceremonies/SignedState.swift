import Crypto
import Foundation
import WebAuthnRP

/// Cookies signed with HMAC-SHA-256 under the server's session key: a value the client cannot
/// forge or alter, readable by every node that has the key. Payloads are small JSON objects,
/// written and read by the library's JSON writer and strict reader (a login signs one and opens
/// one: `JSONEncoder`/`JSONDecoder` cost several times more); each carries its purpose and an
/// expiry, both checked on reading.
package struct CookieSigner: Sendable {
    package let key: SymmetricKey

    package init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

    /// `base64url(payload).base64url(HMAC(purpose ‖ 0 ‖ payload))`.
    package func sign(_ payload: some SignedPayload, purpose: String) throws -> String {
        let body = try JSONValue.object(payload.members).jsonData()
        let mac = HMAC<SHA256>.authenticationCode(for: Data(purpose.utf8) + [0] + body, using: key)
        return Base64URLBytes(Array(body)).base64URL + "." + Base64URLBytes(Array(mac)).base64URL
    }

    /// The payload, or nil for a value that is malformed, too long or not signed by this key.
    package func verify<Payload: SignedPayload>(_ value: String, as type: Payload.Type, purpose: String) -> Payload? {
        guard value.utf8.count <= 8_192 else { return nil }
        let utf8 = value.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let body = try? Base64URLBytes(base64URL: String(value[..<dot]), member: "cookie").bytes,
            let mac = try? Base64URLBytes(base64URL: String(value[utf8.index(after: dot)...]), member: "cookie").bytes
        else { return nil }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(purpose.utf8) + [0] + body, using: key) else {
            return nil
        }
        guard case .object(let members)? = try? JSONValue(jsonData: Data(body)) else { return nil }
        return Payload(members: members)
    }
}

/// What a signed value carries: the members of one JSON object.
package protocol SignedPayload {
    /// The object's members (nil members left out).
    var members: [String: JSONValue] { get }
    /// The payload from the members it was signed with; nil when one is missing or mistyped.
    init?(members: [String: JSONValue])
}

/// A ceremony in progress: what the server must remember between options and verification,
/// kept by the browser in a signed cookie (one per ceremony kind) instead of a server session.
package struct CeremonyPayload: SignedPayload, Sendable {
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

    package var members: [String: JSONValue] {
        var members: [String: JSONValue] = ["exp": .number(exp)]
        if let state { members["state"] = .string(state.serialized) }
        if let username { members["username"] = .string(username) }
        if let userHandle { members["userHandle"] = .string(userHandle) }
        if let newAccount { members["newAccount"] = .bool(newAccount) }
        return members
    }

    package init?(members: [String: JSONValue]) {
        guard case .number(let exp)? = members["exp"] else { return nil }
        self.exp = exp
        switch members["state"] {
        case nil: state = nil
        case .string(let text)?: guard let state = Self.challenge(text) else { return nil }; self.state = state
        // The form before this one, `{"source": text}` (CeremonyChallenge's Codable), from a
        // cookie a node of the previous release signed during a rolling deploy.
        case .object(let old)?:
            guard old.count == 1, case .string(let text)? = old["source"], let state = Self.challenge(text) else { return nil }
            self.state = state
        default: return nil
        }
        guard let username = Self.optionalString(members["username"]), let userHandle = Self.optionalString(members["userHandle"])
        else { return nil }
        self.username = username
        self.userHandle = userHandle
        switch members["newAccount"] {
        case nil: newAccount = nil
        case .bool(let flag)?: newAccount = flag
        default: return nil
        }
    }

    private static func challenge(_ text: String) -> CeremonyChallenge? { try? CeremonyChallenge(serialized: text) }

    /// `.some(nil)` for an absent member, `.some(text)` for a string, nil for another kind.
    private static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }
}
