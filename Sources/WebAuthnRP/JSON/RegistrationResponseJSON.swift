/// A registration response in its JSON form (`RegistrationResponseJSON`, WebAuthn
/// Level 3 §5.1.8), what `PublicKeyCredential.toJSON()` returns after `create()`.
package struct RegistrationResponseJSON: Sendable, Hashable, Codable {
    /// The credential ID as base64url text (must equal ``rawId`` encoded; the ceremony checks).
    package var id: String
    /// The credential ID.
    package var rawId: Base64URLBytes
    /// The authenticator's response.
    package var response: AuthenticatorAttestationResponseJSON
    /// The attachment of the authenticator that was used, if the client said.
    var authenticatorAttachment: AuthenticatorAttachment?
    /// Client extension outputs, kept as JSON.
    package var clientExtensionResults: [String: JSONValue]
    /// The credential type (`public-key`).
    package var type: PublicKeyCredentialType

    /// Creates a response.
    /// - Parameters:
    ///   - id: the credential ID as base64url text.
    ///   - rawId: the credential ID.
    ///   - response: the authenticator's response.
    ///   - authenticatorAttachment: the attachment, or nil.
    ///   - clientExtensionResults: client extension outputs.
    ///   - type: the credential type.
    package init(id: String, rawId: Base64URLBytes, response: AuthenticatorAttestationResponseJSON,
                authenticatorAttachment: AuthenticatorAttachment? = nil,
                clientExtensionResults: [String: JSONValue] = [:], type: PublicKeyCredentialType = .publicKey) {
        self.id = id
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    /// Decodes a response; `clientExtensionResults` member by member in name order, so that the
    /// same malformed input always gets the same error (see `decodeJSONObject(forKey:)`).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing or mistyped member.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        response = try container.decode(AuthenticatorAttestationResponseJSON.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeJSONObject(forKey: .clientExtensionResults)
        type = try container.decode(PublicKeyCredentialType.self, forKey: .type)
    }
}

/// The authenticator's part of a registration response (`AuthenticatorAttestationResponseJSON`).
///
/// `authenticatorData`, `transports`, `publicKey` and `publicKeyAlgorithm` are
/// conveniences a client adds; the ceremony relies on ``attestationObject`` alone.
package struct AuthenticatorAttestationResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    package var clientDataJSON: Base64URLBytes
    /// A copy of the authenticator data inside the attestation object, if sent.
    package var authenticatorData: Base64URLBytes?
    /// The transports the authenticator supports, if the client could tell.
    package var transports: [AuthenticatorTransport]?
    /// The credential public key as a DER SubjectPublicKeyInfo, if the client could produce it.
    package var publicKey: Base64URLBytes?
    /// The credential's COSE algorithm identifier, if sent.
    var publicKeyAlgorithm: Int?
    /// The attestation object (CBOR).
    var attestationObject: Base64URLBytes

    /// Creates an attestation response.
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes.
    ///   - authenticatorData: the authenticator data copy, or nil.
    ///   - transports: the transports, or nil.
    ///   - publicKey: the SubjectPublicKeyInfo, or nil.
    ///   - publicKeyAlgorithm: the COSE algorithm, or nil.
    ///   - attestationObject: the attestation object bytes.
    package init(clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes? = nil,
                transports: [AuthenticatorTransport]? = nil, publicKey: Base64URLBytes? = nil,
                publicKeyAlgorithm: Int? = nil, attestationObject: Base64URLBytes) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.attestationObject = attestationObject
    }

    /// Parses ``clientDataJSON``.
    /// - Returns: the client data, whose `rawBytes` are the received bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed`.
    func parsedClientData() throws(WebAuthnError) -> CollectedClientData {
        try CollectedClientData(jsonBytes: clientDataJSON.bytes[...])
    }

    /// Parses ``attestationObject``.
    /// - Returns: the attestation object.
    /// - Throws: ``WebAuthnError`` with category `malformed`.
    func parsedAttestationObject() throws(WebAuthnError) -> AttestationObject {
        try AttestationObject(bytes: attestationObject.bytes[...])
    }
}
