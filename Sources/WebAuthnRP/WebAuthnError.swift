
/// Why a ceremony was rejected: exactly one ``Category`` (the categories of the
/// `webauthn-ceremonies/1` fixture format), the specification step that failed,
/// and a message saying what was expected and what arrived.
///
/// Equality compares the category only, so callers and tests can match on it.
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rejection categories. Each names one class of failure a relying party
    /// may want to treat differently (log, alert, ask the user to retry).
    public enum Category: String, Hashable, Sendable, CaseIterable, Codable {
        /// A structure does not parse: JSON, base64url, CBOR, authenticator data, COSE key, certificate.
        case malformed
        /// `clientData.type` is not the one the ceremony needs.
        case type
        /// The challenge was not issued, differs, expired, or was already used.
        case challenge
        /// The origin, or a cross-origin ceremony's top origin, is not allowed.
        case origin
        /// `rpIdHash` is not SHA-256 of the RP ID.
        case rpIdHash
        /// The UP flag is clear where user presence is required.
        case userPresence
        /// UV was required and the UV flag is clear.
        case userVerification
        /// BS is set while BE is clear, or BE changed since registration.
        case backupFlags
        /// The credential's algorithm was not offered or is not supported.
        case algorithm
        /// The attestation statement does not verify.
        case attestation
        /// The attestation verifies but does not chain to a trust anchor, and trust is required.
        case trust
        /// A registration's credential id is already registered.
        case credentialExists
        /// No record for the credential id, or the id is not in `allowCredentials`.
        case unknownCredential
        /// The response's user handle differs from the record's.
        case userHandle
        /// The assertion signature does not verify.
        case signature
        /// The signature counter did not increase.
        case signCount
    }

    /// The category of the rejection.
    public let category: Category
    /// The step that failed, for example `§7.1 step 14` (nil outside the numbered steps).
    public let step: String?
    /// What was expected and what arrived.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - category: the rejection category.
    ///   - step: the specification step that failed, if any.
    ///   - message: what was expected and what arrived.
    public init(_ category: Category, step: String? = nil, _ message: String) {
        self.category = category
        self.step = step
        self.message = message
    }

    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool { lhs.category == rhs.category }
    public func hash(into hasher: inout Hasher) { hasher.combine(category) }

    /// `<category> (<step>): <message>`.
    public var description: String {
        if let step { return "\(category.rawValue) (\(step)): \(message)" }
        return "\(category.rawValue): \(message)"
    }
}
