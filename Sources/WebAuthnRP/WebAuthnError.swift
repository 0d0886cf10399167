/// Why a ceremony was rejected: exactly one ``Category`` (the categories of the
/// `webauthn-ceremonies/1` fixture format), the specification step that failed,
/// and a message saying what was expected and what arrived.
///
/// Equality compares the category only, so callers and tests can match on it.
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rejection categories: one value per class of failure a relying party may want to
    /// treat differently (log, alert, ask the user to retry).
    ///
    /// A struct over a private list, not an enum, so a category added in a later release does not
    /// break a caller's `switch` (which has a `default` for what it does not single out).
    /// Compare with `==` or match in a `switch` (`case .signCount:`).
    public struct Category: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
        private enum Code: String, CaseIterable {
            case malformed, type, challenge, origin, rpIdHash, userPresence, userVerification, backupFlags, algorithm
            case attestation, trust, credentialExists, unknownCredential, userHandle, signature, signCount, metadata
            case `extension`, serverFault, configuration
        }

        private let code: Code

        private init(_ code: Code) { self.code = code }

        /// The category from its name (`"signCount"`), as the fixture format and ``rawValue`` spell it.
        /// - Parameter rawValue: the name.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.code = code
        }

        /// The category's name, as the fixture format spells it.
        public var rawValue: String { code.rawValue }
        /// The category's name, so that logs and messages read `signCount`.
        public var description: String { code.rawValue }
        /// Every category this release knows.
        public static var allCases: [Category] { Code.allCases.map(Category.init) }
        /// The categories a recorded ceremony can expect (`webauthn-ceremonies/1`): every one but
        /// ``serverFault`` and ``configuration``, which no response can cause.
        static var verdicts: [Category] { allCases.filter { $0 != .serverFault && $0 != .configuration } }

        /// A structure does not parse: JSON, base64url, CBOR, authenticator data, COSE key, certificate.
        public static let malformed = Category(.malformed)
        /// `clientData.type` is not the one the ceremony needs.
        public static let type = Category(.type)
        /// The challenge was not issued, differs, expired, or was already used.
        public static let challenge = Category(.challenge)
        /// The origin, or a cross-origin ceremony's top origin, is not allowed.
        public static let origin = Category(.origin)
        /// `rpIdHash` is not SHA-256 of the RP ID.
        public static let rpIdHash = Category(.rpIdHash)
        /// The UP flag is clear where user presence is required.
        public static let userPresence = Category(.userPresence)
        /// UV was required and the UV flag is clear.
        public static let userVerification = Category(.userVerification)
        /// BS is set while BE is clear, or BE changed since registration.
        public static let backupFlags = Category(.backupFlags)
        /// The credential's algorithm was not offered or is not supported.
        public static let algorithm = Category(.algorithm)
        /// The attestation statement does not verify.
        public static let attestation = Category(.attestation)
        /// The attestation verifies but does not chain to a trust anchor, and trust is required.
        public static let trust = Category(.trust)
        /// A registration's credential id is already registered.
        public static let credentialExists = Category(.credentialExists)
        /// No record for the credential id, or the id is not in `allowCredentials`.
        public static let unknownCredential = Category(.unknownCredential)
        /// The response's user handle differs from the record's.
        public static let userHandle = Category(.userHandle)
        /// The assertion signature does not verify.
        public static let signature = Category(.signature)
        /// The signature counter did not increase.
        public static let signCount = Category(.signCount)
        /// The FIDO metadata BLOB does not verify, or the authenticator's metadata forbids it (a
        /// compromise or revocation status, no entry while one is required, an attestation type its
        /// statement does not declare, stale metadata the policy does not accept).
        public static let metadata = Category(.metadata)
        /// An extension output breaks its definition or what the relying party asked for
        /// (also: an extension input the client would refuse, when options are built).
        public static let `extension` = Category(.`extension`)
        /// The server could not complete the step: no random bytes could be drawn, or a store is
        /// full, failing or broke its contract (``WebAuthnError/step`` names the store). The
        /// client is not at fault and may retry (HTTP 503), and no fixture expects it.
        public static let serverFault = Category(.serverFault)
        /// The relying party's own configuration is refused: an origin in the related-origins
        /// list a browser would not honour, an app whose origin is not allowed, an app ID that is
        /// not one. Raised at start-up or when the association files are built, never by a
        /// response (HTTP 500).
        public static let configuration = Category(.configuration)
    }

    /// The category of the rejection.
    public let category: Category
    /// The step that failed, for example `§7.1 step 14`, or where a failure that is not a
    /// verdict arose (`challenge store`, `related origins`); nil when there is nothing to add.
    public let step: String?
    /// What was expected and what arrived.
    public let message: String
    /// For a `malformed` body the client sent: the member that did not read and what is wrong
    /// with it, which ``clientMessage`` may tell the client (it is the client's own body). Nil
    /// for every other error.
    let bodyFault: BodyFault?

    /// Creates an error.
    /// - Parameters:
    ///   - category: the rejection category.
    ///   - step: the specification step that failed, if any.
    ///   - message: what was expected and what arrived.
    public init(_ category: Category, step: String? = nil, _ message: String) {
        self.init(category, step: step, message, bodyFault: nil)
    }

    /// An error that may carry the fault in the client's body.
    init(_ category: Category, step: String? = nil, _ message: String, bodyFault: BodyFault?) {
        self.category = category
        self.step = step
        self.message = message
        self.bodyFault = bodyFault
    }

    /// Errors are equal when their categories are: step and message may change between releases.
    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool { lhs.category == rhs.category }
    /// Hashes the category only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(category) }

    /// `<category> (<step>): <message>`.
    public var description: String {
        if let step { return "\(category.rawValue) (\(step)): \(message)" }
        return "\(category.rawValue): \(message)"
    }
}
