/// The verified extension outputs of a registration that answer an input: PRF results and
/// `appidExclude`, reported only when the input was sent. Members are nil when the output did
/// not arrive. What the outputs say about the new credential (`credProps.rk`, `prf.enabled`,
/// `largeBlob.supported`, `credProtect`, `minPinLength`, `hmac-secret`, `credBlob`) is on the
/// record, ``VerifiedRegistration/record``'s ``CredentialRecord/extensions``, reported even
/// when the relying party did not ask, because clients request some on their own (Chromium asks
/// security keys for credProtect). Unsolicited outputs are never refused unless the policy is
/// made with `rejectUnsolicitedExtensionOutputs: true`.
public struct RegistrationExtensionResults: Sendable, Hashable {
    /// `credProps.rk`: whether the credential is discoverable (nil: the client did not say).
    var residentKey: Bool?
    /// `prf.enabled`: whether the credential supports PRF.
    package internal(set) var prfEnabled: Bool?
    /// `prf.results`, when an evaluation was asked for and the authenticator performed it.
    public internal(set) var prfResults: PRFValues?
    /// `largeBlob` (at registration only `supported`).
    var largeBlob: LargeBlobResult?
    /// `credProtect`: the level the authenticator applied.
    var credentialProtection: CredentialProtectionLevel?
    /// `minPinLength`.
    var minPinLength: Int?
    /// `hmac-secret` (or `hmacCreateSecret`): whether the credential has an hmac-secret.
    var hmacSecret: Bool?
    /// `credBlob`: whether the blob was stored.
    var credBlob: Bool?
    /// `appidExclude`: whether the client ran the check against the AppID.
    public internal(set) var appidExclude: Bool?

    /// No outputs.
    init() {}
}

/// The verified extension outputs of an authentication (see ``RegistrationExtensionResults``).
public struct AuthenticationExtensionResults: Sendable, Hashable {
    /// `prf.results`, when an evaluation was asked for and performed.
    public internal(set) var prfResults: PRFValues?
    /// `largeBlob` (`blob` after `read`, `written` after `write`).
    public internal(set) var largeBlob: LargeBlobResult?
    /// `credBlob`: the blob stored at registration, when `getCredBlob` was asked.
    public internal(set) var credBlob: [UInt8]?
    /// Whether the authenticator returned hmac-secret output (encrypted to the client).
    public internal(set) var hmacSecret: Bool?
    /// `appid`: true when the credential was used with the legacy AppID (rpIdHash is then
    /// SHA-256 of the AppID).
    public internal(set) var appid: Bool?

    /// No outputs.
    init() {}
}

/// What the extensions said about a credential, kept on its ``CredentialRecord`` (nil: unknown).
public struct CredentialExtensionProperties: Sendable, Hashable, Codable {
    /// `credProps.rk` at registration: whether the credential is discoverable.
    public var discoverable: Bool?
    /// `credProtect` at registration.
    public var credentialProtection: CredentialProtectionLevel?
    /// PRF support (`prf.enabled`, or PRF results seen at a login).
    public var prfEnabled: Bool?
    /// `largeBlob.supported` at registration.
    public var largeBlobSupported: Bool?
    /// `hmac-secret` at registration.
    public var hmacSecret: Bool?
    /// `credBlob` at registration: whether a blob was stored.
    public var credBlobStored: Bool?
    /// `minPinLength` at registration.
    public var minPinLength: Int?

    /// Nothing known.
    public init() {}

    /// Whether nothing is known.
    var isEmpty: Bool { self == CredentialExtensionProperties() }

    init(_ results: RegistrationExtensionResults) {
        discoverable = results.residentKey
        credentialProtection = results.credentialProtection
        prfEnabled = results.prfEnabled ?? (results.prfResults != nil ? true : nil)
        largeBlobSupported = results.largeBlob?.supported
        hmacSecret = results.hmacSecret
        credBlobStored = results.credBlob
        minPinLength = results.minPinLength
    }

    /// The properties after a login whose outputs are `results`.
    func updated(by results: AuthenticationExtensionResults) -> CredentialExtensionProperties {
        var copy = self
        if results.prfResults != nil { copy.prfEnabled = true }
        return copy
    }
}
