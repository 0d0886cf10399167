public import WebAuthnCrypto

/// Everything a registration can ask of the client, with the convenient defaults: the
/// builder behind ``RelyingPartyService/beginRegistration(_:now:)``. The service fills in
/// the rest of `PublicKeyCredentialCreationOptionsJSON`: `rp` from the relying party, a fresh
/// challenge, and `excludeCredentials` from the store.
public struct RegistrationRequest: Sendable, Hashable {
    /// The account (`user.id` is the user handle, 1 to 64 bytes; see
    /// ``PublicKeyCredentialUserEntityJSON/newUserHandle()``).
    var user: PublicKeyCredentialUserEntityJSON
    /// The algorithms to offer, most preferred first (default EdDSA, ES256, RS256). Those the
    /// policy does not accept are left out; the response must use one of those offered.
    var algorithms: [COSEAlgorithm]
    /// The user verification requirement (default `preferred`).
    var userVerification: UserVerificationRequirement
    /// Whether a discoverable credential (passkey) is wanted (default `preferred`).
    var residentKey: ResidentKeyRequirement
    /// `platform` or `cross-platform`, or nil for either.
    var authenticatorAttachment: AuthenticatorAttachment?
    /// The attestation conveyance (default `none`).
    var attestation: AttestationConveyancePreference
    /// Preferred attestation statement formats, most preferred first, or nil.
    var attestationFormats: [String]?
    /// Hints for the client's UI (`security-key`, `client-device`, `hybrid`), or nil.
    var hints: [PublicKeyCredentialHint]?
    /// The timeout hint in milliseconds; nil takes the policy's challenge lifetime.
    var timeout: UInt32?
    /// Whether the user's registered credentials go into `excludeCredentials` (default true),
    /// so an authenticator that already holds one is not registered twice.
    var excludeExistingCredentials: Bool
    /// The page will call `create()` with conditional mediation (UP is then not required).
    var conditional: Bool
    /// Client extension inputs.
    var extensions: RegistrationExtensionInputs

    /// A request with the defaults.
    /// - Parameters:
    ///   - user: the account.
    ///   - algorithms: the algorithms to offer (default EdDSA, ES256, RS256).
    ///   - userVerification: default `preferred`.
    ///   - residentKey: default `preferred`.
    ///   - authenticatorAttachment: default nil (either).
    ///   - attestation: default `none`.
    ///   - attestationFormats: default nil.
    ///   - hints: default nil.
    ///   - timeout: default nil (the policy's challenge lifetime).
    ///   - excludeExistingCredentials: default true.
    ///   - conditional: default false.
    ///   - extensions: default none.
    public init(
        user: PublicKeyCredentialUserEntityJSON,
        algorithms: [COSEAlgorithm] = [.edDSA, .es256, .rs256],
        userVerification: UserVerificationRequirement = .preferred,
        residentKey: ResidentKeyRequirement = .preferred,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        attestation: AttestationConveyancePreference = AttestationConveyancePreference.none,
        attestationFormats: [String]? = nil, hints: [PublicKeyCredentialHint]? = nil, timeout: UInt32? = nil,
        excludeExistingCredentials: Bool = true, conditional: Bool = false,
        extensions: RegistrationExtensionInputs = RegistrationExtensionInputs()
    ) {
        self.user = user
        self.algorithms = algorithms
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.authenticatorAttachment = authenticatorAttachment
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.hints = hints
        self.timeout = timeout
        self.excludeExistingCredentials = excludeExistingCredentials
        self.conditional = conditional
        self.extensions = extensions
    }
}

/// Everything an authentication can ask of the client: the builder behind
/// ``RelyingPartyService/beginAuthentication(_:now:)``. The service fills in `rpId`, a fresh
/// challenge, and `allowCredentials` from the store when a user is named.
public struct AuthenticationRequest: Sendable, Hashable {
    /// The user identified before the ceremony (username-first: their credentials go into
    /// `allowCredentials` and the response must be one of them), or nil for a discoverable,
    /// usernameless login (also conditional mediation / autofill).
    var userHandle: [UInt8]?
    /// The user verification requirement (default `preferred`).
    var userVerification: UserVerificationRequirement
    /// Hints for the client's UI, or nil.
    var hints: [PublicKeyCredentialHint]?
    /// The timeout hint in milliseconds; nil takes the policy's challenge lifetime.
    var timeout: UInt32?
    /// Client extension inputs.
    var extensions: AuthenticationExtensionInputs
    /// The identified user's credentials, when the caller has already read them (say, with the
    /// account, in one database query): they become `allowCredentials` as given. Nil (default)
    /// lets the service read them from its credential store. Used only with a `userHandle`.
    var allowCredentials: [PublicKeyCredentialDescriptorJSON]?

    /// A request with the defaults.
    /// - Parameters:
    ///   - userHandle: the identified user, or nil (default) for a usernameless login.
    ///   - userVerification: default `preferred`.
    ///   - hints: default nil.
    ///   - timeout: default nil (the policy's challenge lifetime).
    ///   - extensions: default none.
    ///   - allowCredentials: the user's credentials if already read; default nil (the service
    ///     reads them from its store).
    public init(
        userHandle: [UInt8]? = nil, userVerification: UserVerificationRequirement = .preferred,
        hints: [PublicKeyCredentialHint]? = nil, timeout: UInt32? = nil,
        extensions: AuthenticationExtensionInputs = AuthenticationExtensionInputs(),
        allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil
    ) {
        self.userHandle = userHandle
        self.userVerification = userVerification
        self.hints = hints
        self.timeout = timeout
        self.extensions = extensions
        self.allowCredentials = allowCredentials
    }
}
