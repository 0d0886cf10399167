/// Registration options in their JSON form (`PublicKeyCredentialCreationOptionsJSON`,
/// WebAuthn Level 3 §5.1.9), what a server sends for `parseCreationOptionsFromJSON`.
///
/// Members that are nil are left out when encoding. `excludeCredentials` defaults to
/// an empty list when absent, as in the IDL.
public struct PublicKeyCredentialCreationOptionsJSON: Sendable, Hashable, Codable {
    /// The relying party.
    public var rp: PublicKeyCredentialRpEntity
    /// The user account.
    public var user: PublicKeyCredentialUserEntityJSON
    /// The challenge (at least 16 random bytes).
    public var challenge: Base64URLBytes
    /// The acceptable credential types and algorithms, most preferred first.
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    /// A hint, in milliseconds, for how long the ceremony may take.
    public var timeout: UInt32?
    /// Credentials the user already has, so the authenticator does not create a second one.
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    /// Requirements on the authenticator.
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    /// Hints about the authenticator expected, most preferred first.
    public var hints: [PublicKeyCredentialHint]?
    /// The attestation preference.
    public var attestation: AttestationConveyancePreference?
    /// Attestation statement formats the relying party prefers, most preferred first.
    public var attestationFormats: [String]?
    /// Client extension inputs, kept as JSON.
    public var extensions: [String: JSONValue]?

    /// Creates options from every member. A server gets its options from
    /// ``RelyingPartyService/beginRegistration(_:now:)``, which draws the challenge and records it.
    /// - Parameters:
    ///   - rp: the relying party.
    ///   - user: the user account.
    ///   - challenge: the challenge.
    ///   - pubKeyCredParams: acceptable algorithms.
    ///   - timeout: milliseconds, or nil.
    ///   - excludeCredentials: credentials to exclude.
    ///   - authenticatorSelection: authenticator requirements.
    ///   - hints: authenticator hints.
    ///   - attestation: attestation preference.
    ///   - attestationFormats: preferred attestation formats.
    ///   - extensions: client extension inputs.
    public init(
        rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntityJSON, challenge: Base64URLBytes,
        pubKeyCredParams: [PublicKeyCredentialParameters], timeout: UInt32? = nil,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        authenticatorSelection: AuthenticatorSelectionCriteria? = nil, hints: [PublicKeyCredentialHint]? = nil,
        attestation: AttestationConveyancePreference? = nil, attestationFormats: [String]? = nil,
        extensions: [String: JSONValue]? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection, hints,
            attestation, attestationFormats, extensions
    }

    /// Decodes the options; an absent `excludeCredentials` becomes an empty list.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing required member, a wrong type or bad base64url.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rp = try c.decode(PublicKeyCredentialRpEntity.self, forKey: .rp)
        user = try c.decode(PublicKeyCredentialUserEntityJSON.self, forKey: .user)
        challenge = try Base64URLBytes.decodeRelyingPartyValue(from: c, forKey: .challenge)
        pubKeyCredParams = try c.decode([PublicKeyCredentialParameters].self, forKey: .pubKeyCredParams)
        timeout = try decodeTimeout(c, forKey: .timeout)
        excludeCredentials = try c.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .excludeCredentials) ?? []
        authenticatorSelection = try c.decodeIfPresent(AuthenticatorSelectionCriteria.self, forKey: .authenticatorSelection)
        hints = try c.decodeIfPresent([PublicKeyCredentialHint].self, forKey: .hints)
        attestation = try c.decodeIfPresent(AttestationConveyancePreference.self, forKey: .attestation)
        attestationFormats = try c.decodeIfPresent([String].self, forKey: .attestationFormats)
        extensions = try c.decodeJSONObjectIfPresent(forKey: .extensions)
    }

    /// Encodes the options, leaving out nil members.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rp, forKey: .rp)
        try c.encode(user, forKey: .user)
        try c.encode(challenge, forKey: .challenge)
        try c.encode(pubKeyCredParams, forKey: .pubKeyCredParams)
        try c.encodeIfPresent(timeout, forKey: .timeout)
        try c.encode(excludeCredentials, forKey: .excludeCredentials)
        try c.encodeIfPresent(authenticatorSelection, forKey: .authenticatorSelection)
        try c.encodeIfPresent(hints, forKey: .hints)
        try c.encodeIfPresent(attestation, forKey: .attestation)
        try c.encodeIfPresent(attestationFormats, forKey: .attestationFormats)
        try c.encodeIfPresent(extensions, forKey: .extensions)
    }
}

extension PublicKeyCredentialCreationOptionsJSON {
    /// Builds registration options with a fresh challenge.
    /// - Parameters:
    ///   - rp: the relying party.
    ///   - user: the user account; its `id` must be 1 to 64 bytes.
    ///   - challenge: the challenge to use, at least 16 bytes; nil (the default) draws
    ///     32 fresh random bytes.
    ///   - pubKeyCredParams: acceptable algorithms (default ES256, EdDSA, RS256).
    ///   - timeout: milliseconds (default five minutes).
    ///   - excludeCredentials: the user's existing credentials.
    ///   - authenticatorSelection: authenticator requirements.
    ///   - hints: authenticator hints.
    ///   - attestation: attestation preference (default `none`).
    ///   - attestationFormats: preferred attestation formats.
    ///   - extensions: client extension inputs.
    /// - Returns: the options.
    /// - Throws: ``WebAuthnError`` with category `malformed` for a user handle outside
    ///   1...64 bytes or a challenge shorter than 16 bytes, or when no random bytes
    ///   could be drawn.
    static func make(
        rp: PublicKeyCredentialRpEntity,
        user: PublicKeyCredentialUserEntityJSON,
        challenge: [UInt8]? = nil,
        pubKeyCredParams: [PublicKeyCredentialParameters] = PublicKeyCredentialParameters.recommended,
        timeout: UInt32? = 300_000,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        authenticatorSelection: AuthenticatorSelectionCriteria? = nil,
        hints: [PublicKeyCredentialHint]? = nil,
        attestation: AttestationConveyancePreference? = AttestationConveyancePreference.none,
        attestationFormats: [String]? = nil,
        extensions: [String: JSONValue]? = nil
    ) throws(WebAuthnError) -> PublicKeyCredentialCreationOptionsJSON {
        guard (1...64).contains(user.id.bytes.count) else {
            throw WebAuthnError(.malformed, "creation options: user.id is \(user.id.bytes.count) bytes; 1 to 64 are allowed")
        }
        let challengeBytes = try OptionsChallenge.challenge(challenge)
        return PublicKeyCredentialCreationOptionsJSON(
            rp: rp, user: user, challenge: Base64URLBytes(challengeBytes), pubKeyCredParams: pubKeyCredParams,
            timeout: timeout, excludeCredentials: excludeCredentials, authenticatorSelection: authenticatorSelection,
            hints: hints, attestation: attestation, attestationFormats: attestationFormats, extensions: extensions)
    }
}

/// Decodes an `unsigned long` timeout. Foundation reports an integer out of range
/// as invalid JSON without a path, so the value is read as a number and checked here.
func decodeTimeout<K: CodingKey>(_ container: KeyedDecodingContainer<K>, forKey key: K) throws -> UInt32? {
    guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
    guard let value = UInt32(exactly: number) else {
        throw DecodingError.dataCorruptedError(
            forKey: key, in: container, debugDescription: "\(number) is not an unsigned 32-bit integer")
    }
    return value
}
