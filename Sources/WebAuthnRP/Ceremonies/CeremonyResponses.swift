package import WebAuthnCrypto
/// A registration response with its binary members decoded: from the JSON the browser posted
/// (``init(jsonData:)``, or `Decodable` inside a larger body), or built directly by a server
/// whose native app sent the members another way.
public struct RegistrationResponse: Sendable {
    /// `id`: the credential id, base64url, as the client sent it.
    public var id: String
    /// `rawId`: the credential id bytes.
    public var rawId: [UInt8]
    /// `type`: must be `public-key`.
    public var type: String
    /// `response.clientDataJSON`, exactly as received.
    public var clientDataJSON: [UInt8] { didSet { preparsedClientData = nil } }
    /// The parse of ``clientDataJSON`` when the registry already made it (to find the challenge),
    /// so the verifier does not parse it twice; cleared whenever the bytes change.
    var preparsedClientData: CollectedClientData?
    /// `response.attestationObject`, exactly as received.
    public var attestationObject: [UInt8]
    /// `response.transports`.
    public var transports: [String]
    /// `clientExtensionResults`, as the client sent it.
    public var clientExtensionResults: [String: JSONValue]

    /// Creates a response from decoded members.
    /// - Parameters:
    ///   - id: base64url credential id.
    ///   - rawId: credential id bytes.
    ///   - type: credential type (`public-key`).
    ///   - clientDataJSON: client data bytes.
    ///   - attestationObject: attestation object bytes.
    ///   - transports: reported transports.
    ///   - clientExtensionResults: the client extension outputs.
    public init(id: String, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
                attestationObject: [UInt8], transports: [String] = [],
                clientExtensionResults: [String: JSONValue] = [:]) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.clientExtensionResults = clientExtensionResults
    }
}

/// An authentication response with its binary members decoded: from the JSON the browser
/// posted (``init(jsonData:)``, or `Decodable` inside a larger body), or built directly by a
/// server whose native app sent the members another way.
public struct AuthenticationResponse: Sendable {
    /// `id`: the credential id, base64url.
    public var id: String
    /// `rawId`: the credential id bytes.
    public var rawId: [UInt8]
    /// `type`: must be `public-key`.
    public var type: String
    /// `response.clientDataJSON`, exactly as received.
    public var clientDataJSON: [UInt8] { didSet { preparsedClientData = nil } }
    /// The parse of ``clientDataJSON`` when the registry already made it; cleared whenever the
    /// bytes change.
    var preparsedClientData: CollectedClientData?
    /// `response.authenticatorData`, exactly as received.
    public var authenticatorData: [UInt8]
    /// `response.signature`.
    public var signature: [UInt8]
    /// `response.userHandle` (nil when absent, null or empty).
    public var userHandle: [UInt8]?
    /// `clientExtensionResults`, as the client sent it.
    public var clientExtensionResults: [String: JSONValue]

    /// Creates a response from decoded members.
    /// - Parameters:
    ///   - id: base64url credential id.
    ///   - rawId: credential id bytes.
    ///   - type: credential type (`public-key`).
    ///   - clientDataJSON: client data bytes.
    ///   - authenticatorData: authenticator data bytes.
    ///   - signature: assertion signature.
    ///   - userHandle: user handle, if the authenticator returned one.
    ///   - clientExtensionResults: the client extension outputs.
    public init(id: String, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
                authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
                clientExtensionResults: [String: JSONValue] = [:]) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = (userHandle?.isEmpty ?? true) ? nil : userHandle
        self.clientExtensionResults = clientExtensionResults
    }
}

/// A registration that passed every check.
public struct VerifiedRegistration: Sendable {
    /// The record to store (the registry stores it when it runs the ceremony).
    public let record: CredentialRecord
    /// Format, type and trust of the attestation.
    public let attestation: AttestationResult
    /// The parsed authenticator data (for a server: the UP and UV flags are ``userPresent``
    /// and ``userVerified``; counter, backup state and credential data are in the record).
    package let authenticatorData: AuthenticatorData
    /// The parsed client data.
    public let clientData: CollectedClientData
    /// The credential public key, built once.
    package let credentialKey: COSEKey
    /// The verified extension outputs.
    public let extensions: RegistrationExtensionResults
    /// UP flag.
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
    /// UV flag.
    public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
}

/// An authentication that passed every check.
public struct VerifiedAuthentication: Sendable {
    /// The credential record with signCount, backup state and uvInitialized updated.
    public let updatedRecord: CredentialRecord
    /// The parsed authenticator data (for a server: the UP and UV flags are ``userPresent``
    /// and ``userVerified``; counter, backup state and credential data are in the record).
    package let authenticatorData: AuthenticatorData
    /// The parsed client data.
    public let clientData: CollectedClientData
    /// True when the counter did not increase and the policy accepted it anyway.
    public let counterRegressed: Bool
    /// The verified extension outputs.
    public let extensions: AuthenticationExtensionResults
    /// UP flag.
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
    /// UV flag.
    public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
}
