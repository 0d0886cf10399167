public import WebAuthnCrypto
/// A registration response with its binary members decoded (from
/// ``RegistrationResponseJSON``, or built directly by a server that decoded them).
public struct RegistrationResponse: Sendable {
    /// `id`: the credential id, base64url, as the client sent it.
    public var id: String
    /// `rawId`: the credential id bytes.
    public var rawId: [UInt8]
    /// `type`: must be `public-key`.
    public var type: String
    /// `response.clientDataJSON`, exactly as received.
    public var clientDataJSON: [UInt8]
    /// `response.attestationObject`, exactly as received.
    public var attestationObject: [UInt8]
    /// `response.transports`.
    public var transports: [String]

    /// Creates a response from decoded members.
    /// - Parameters:
    ///   - id: base64url credential id.
    ///   - rawId: credential id bytes.
    ///   - type: credential type (`public-key`).
    ///   - clientDataJSON: client data bytes.
    ///   - attestationObject: attestation object bytes.
    ///   - transports: reported transports.
    public init(id: String, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
                attestationObject: [UInt8], transports: [String] = []) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// An authentication response with its binary members decoded.
public struct AuthenticationResponse: Sendable {
    /// `id`: the credential id, base64url.
    public var id: String
    /// `rawId`: the credential id bytes.
    public var rawId: [UInt8]
    /// `type`: must be `public-key`.
    public var type: String
    /// `response.clientDataJSON`, exactly as received.
    public var clientDataJSON: [UInt8]
    /// `response.authenticatorData`, exactly as received.
    public var authenticatorData: [UInt8]
    /// `response.signature`.
    public var signature: [UInt8]
    /// `response.userHandle` (nil when absent, null or empty).
    public var userHandle: [UInt8]?

    /// Creates a response from decoded members.
    /// - Parameters:
    ///   - id: base64url credential id.
    ///   - rawId: credential id bytes.
    ///   - type: credential type (`public-key`).
    ///   - clientDataJSON: client data bytes.
    ///   - authenticatorData: authenticator data bytes.
    ///   - signature: assertion signature.
    ///   - userHandle: user handle, if the authenticator returned one.
    public init(id: String, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
                authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = (userHandle?.isEmpty ?? true) ? nil : userHandle
    }
}

/// A registration that passed every check.
public struct VerifiedRegistration: Sendable {
    /// The record to store (the registry stores it when it runs the ceremony).
    public let record: CredentialRecord
    /// Format, type and trust of the attestation.
    public let attestation: AttestationResult
    /// The parsed authenticator data.
    public let authenticatorData: AuthenticatorData
    /// The parsed client data.
    public let clientData: CollectedClientData
    /// The credential public key, built once.
    package let credentialKey: COSEKey
    /// UP flag.
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
    /// UV flag.
    public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
}

/// An authentication that passed every check.
public struct VerifiedAuthentication: Sendable {
    /// The credential record with signCount, backup state and uvInitialized updated.
    public let updatedRecord: CredentialRecord
    /// The parsed authenticator data.
    public let authenticatorData: AuthenticatorData
    /// The parsed client data.
    public let clientData: CollectedClientData
    /// True when the counter did not increase and the policy accepted it anyway.
    public let counterRegressed: Bool
    /// UP flag.
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
    /// UV flag.
    public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
}
