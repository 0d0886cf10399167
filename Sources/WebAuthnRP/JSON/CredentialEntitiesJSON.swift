import WebAuthnCrypto

// The small dictionaries shared by the options and responses (WebAuthn Level 3 §5.4, §5.8).

/// The relying party as named in creation options (`PublicKeyCredentialRpEntity`).
struct PublicKeyCredentialRpEntity: Sendable, Hashable, Codable {
    /// The RP ID; when absent the client uses the caller's effective domain.
    var id: String?
    /// A human-palatable name for the relying party.
    var name: String

    /// Creates an RP entity.
    /// - Parameters:
    ///   - id: the RP ID, or nil for the caller's effective domain.
    ///   - name: the display name.
    init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// The user account a registration is for (`PublicKeyCredentialUserEntityJSON`): what a server
/// passes in ``RegistrationRequest`` and ``RelyingPartyService/currentUserDetailsSignal(user:)``.
public struct PublicKeyCredentialUserEntityJSON: Sendable, Hashable, Codable {
    /// The user handle: 1 to 64 opaque bytes that must not identify the person.
    let id: Base64URLBytes
    /// A human-palatable account identifier, for example an email address.
    let name: String
    /// A human-palatable display name.
    let displayName: String

    /// Creates a user entity.
    /// - Parameters:
    ///   - id: the user handle bytes.
    ///   - name: the account identifier.
    ///   - displayName: the display name.
    public init(id: Base64URLBytes, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// One acceptable credential type and algorithm (`PublicKeyCredentialParameters`), as the
/// creation options list them.
struct PublicKeyCredentialParameters: Sendable, Hashable, Codable {
    /// The credential type (`public-key`).
    var type: PublicKeyCredentialType
    /// The COSE algorithm identifier; unknown identifiers are kept.
    var alg: Int

    /// Creates a parameter entry.
    /// - Parameters:
    ///   - type: the credential type (default `public-key`).
    ///   - alg: the COSE algorithm identifier.
    init(type: PublicKeyCredentialType = .publicKey, alg: Int) {
        self.type = type
        self.alg = alg
    }

    /// Creates a `public-key` entry for an algorithm.
    /// - Parameter algorithm: the COSE algorithm.
    init(_ algorithm: COSEAlgorithm) {
        self.init(alg: algorithm.rawValue)
    }

    /// The algorithm as a `COSEAlgorithm`.
    var algorithm: COSEAlgorithm { COSEAlgorithm(rawValue: alg) }

    /// EdDSA (-8), ES256 (-7) and RS256 (-257), in that order of preference: what practically
    /// every authenticator supports, as the spec's own examples list them.
    static let recommended: [PublicKeyCredentialParameters] = [
        PublicKeyCredentialParameters(alg: -8), PublicKeyCredentialParameters(alg: -7),
        PublicKeyCredentialParameters(alg: -257),
    ]
}

/// A credential named in `excludeCredentials` or `allowCredentials`
/// (`PublicKeyCredentialDescriptorJSON`): what a server may pass in ``AuthenticationRequest``.
public struct PublicKeyCredentialDescriptorJSON: Sendable, Hashable, Codable {
    /// The credential type (`public-key`).
    let type: PublicKeyCredentialType
    /// The credential ID.
    let id: Base64URLBytes
    /// The transports the authenticator reported at registration, if known.
    let transports: [AuthenticatorTransport]?

    /// Creates a `public-key` descriptor.
    /// - Parameters:
    ///   - id: the credential ID.
    ///   - transports: the transports recorded at registration.
    public init(id: Base64URLBytes, transports: [AuthenticatorTransport]? = nil) {
        self.type = .publicKey
        self.id = id
        self.transports = transports
    }
}

/// The relying party's authenticator requirements (`AuthenticatorSelectionCriteria`, §5.4.4).
struct AuthenticatorSelectionCriteria: Sendable, Hashable, Codable {
    /// Platform or roaming authenticators only.
    var authenticatorAttachment: AuthenticatorAttachment?
    /// Whether a discoverable credential is wanted.
    var residentKey: ResidentKeyRequirement?
    /// The Level 1 form of `residentKey` (true only when `residentKey` is `required`).
    var requireResidentKey: Bool?
    /// The user verification requirement.
    var userVerification: UserVerificationRequirement?

    /// Creates selection criteria; nil members are left out of the JSON.
    /// - Parameters:
    ///   - authenticatorAttachment: the attachment wanted.
    ///   - residentKey: the discoverable credential requirement.
    ///   - requireResidentKey: the Level 1 flag.
    ///   - userVerification: the user verification requirement.
    init(
        authenticatorAttachment: AuthenticatorAttachment? = nil, residentKey: ResidentKeyRequirement? = nil,
        requireResidentKey: Bool? = nil, userVerification: UserVerificationRequirement? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }
}
