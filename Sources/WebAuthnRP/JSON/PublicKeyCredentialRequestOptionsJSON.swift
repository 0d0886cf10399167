/// Authentication options in their JSON form (`PublicKeyCredentialRequestOptionsJSON`,
/// WebAuthn Level 3 §5.1.10), what a server sends for `parseRequestOptionsFromJSON`.
///
/// Members that are nil are left out when encoding.
public struct PublicKeyCredentialRequestOptionsJSON: Sendable, Hashable, Codable {
    /// The challenge (at least 16 random bytes).
    public var challenge: Base64URLBytes
    /// A hint, in milliseconds, for how long the ceremony may take.
    public var timeout: UInt32?
    /// The RP ID; when absent the client uses the caller's effective domain.
    public var rpId: String?
    /// The credentials that may be used, most preferred first; absent for discoverable credentials.
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]?
    /// The user verification requirement.
    public var userVerification: UserVerificationRequirement?
    /// Hints about the authenticator expected, most preferred first.
    public var hints: [PublicKeyCredentialHint]?
    /// Client extension inputs, kept as JSON.
    public var extensions: [String: JSONValue]?

    /// Creates options from every member. A server gets its options from
    /// ``RelyingPartyService/beginAuthentication(_:now:)``, which draws the challenge and records it.
    /// - Parameters:
    ///   - challenge: the challenge.
    ///   - timeout: milliseconds, or nil.
    ///   - rpId: the RP ID, or nil.
    ///   - allowCredentials: the allowed credentials, or nil.
    ///   - userVerification: the user verification requirement.
    ///   - hints: authenticator hints.
    ///   - extensions: client extension inputs.
    public init(
        challenge: Base64URLBytes, timeout: UInt32? = nil, rpId: String? = nil,
        allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil,
        userVerification: UserVerificationRequirement? = nil, hints: [PublicKeyCredentialHint]? = nil,
        extensions: [String: JSONValue]? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case challenge, timeout, rpId, allowCredentials, userVerification, hints, extensions
    }

    /// Decodes the options.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing challenge, a wrong type or bad base64url.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try Base64URLBytes.decodeRelyingPartyValue(from: c, forKey: .challenge)
        timeout = try decodeTimeout(c, forKey: .timeout)
        rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
        allowCredentials = try c.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .allowCredentials)
        userVerification = try c.decodeIfPresent(UserVerificationRequirement.self, forKey: .userVerification)
        hints = try c.decodeIfPresent([PublicKeyCredentialHint].self, forKey: .hints)
        extensions = try c.decodeJSONObjectIfPresent(forKey: .extensions)
    }

    /// Builds authentication options with a fresh challenge.
    /// - Parameters:
    ///   - challenge: the challenge to use, at least 16 bytes; nil (the default) draws
    ///     32 fresh random bytes.
    ///   - timeout: milliseconds (default five minutes).
    ///   - rpId: the RP ID.
    ///   - allowCredentials: the allowed credentials (nil for discoverable credentials).
    ///   - userVerification: the requirement (default `preferred`).
    ///   - hints: authenticator hints.
    ///   - extensions: client extension inputs.
    /// - Returns: the options.
    /// - Throws: ``WebAuthnError`` with category `malformed` for a challenge shorter than
    ///   16 bytes, or when no random bytes could be drawn.
    static func make(
        challenge: [UInt8]? = nil,
        timeout: UInt32? = 300_000,
        rpId: String? = nil,
        allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil,
        userVerification: UserVerificationRequirement? = .preferred,
        hints: [PublicKeyCredentialHint]? = nil,
        extensions: [String: JSONValue]? = nil
    ) throws(WebAuthnError) -> PublicKeyCredentialRequestOptionsJSON {
        let challengeBytes = try OptionsChallenge.challenge(challenge)
        return PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(challengeBytes), timeout: timeout, rpId: rpId, allowCredentials: allowCredentials,
            userVerification: userVerification, hints: hints, extensions: extensions)
    }
}
