/// A credential response in its JSON form (WebAuthn Level 3 §5.1.8), what
/// `PublicKeyCredential.toJSON()` returns: ``RegistrationResponseJSON`` after `create()`,
/// ``AuthenticationResponseJSON`` after `get()`. The two differ only in `response`.
package struct PublicKeyCredentialJSON<Response: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The credential ID as base64url text (must equal ``rawId`` encoded; the ceremony checks).
    var id: String
    /// The credential ID.
    var rawId: Base64URLBytes
    /// The authenticator's response.
    var response: Response
    /// The attachment of the authenticator that was used, if the client said.
    var authenticatorAttachment: AuthenticatorAttachment?
    /// Client extension outputs, kept as JSON.
    var clientExtensionResults: [String: JSONValue]
    /// The credential type (`public-key`).
    var type: PublicKeyCredentialType

    /// Creates a response.
    /// - Parameters:
    ///   - id: the credential ID as base64url text.
    ///   - rawId: the credential ID.
    ///   - response: the authenticator's response.
    ///   - authenticatorAttachment: the attachment, or nil.
    ///   - clientExtensionResults: client extension outputs.
    ///   - type: the credential type.
    package init(
        id: String, rawId: Base64URLBytes, response: Response,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: [String: JSONValue] = [:], type: PublicKeyCredentialType = .publicKey
    ) {
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
    /// - Throws: `DecodingError` for a missing or mistyped member (`clientExtensionResults` may be
    ///   absent: it is then empty).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        response = try container.decode(Response.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        // Absent is read as `{}`: a client that ran no extension may leave the member out (the FIDO
        // conformance tool's transport profile does); present, it must be an object.
        clientExtensionResults =
            container.contains(.clientExtensionResults) ? try container.decodeJSONObject(forKey: .clientExtensionResults) : [:]
        type = try container.decode(PublicKeyCredentialType.self, forKey: .type)
    }
}

/// A registration response in its JSON form (`RegistrationResponseJSON`).
package typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// An authentication response in its JSON form (`AuthenticationResponseJSON`).
package typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// The authenticator's part of a registration response (`AuthenticatorAttestationResponseJSON`).
///
/// `authenticatorData`, `transports`, `publicKey` and `publicKeyAlgorithm` are
/// conveniences a client adds; the ceremony relies on ``attestationObject`` alone.
package struct AuthenticatorAttestationResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    var clientDataJSON: Base64URLBytes
    /// A copy of the authenticator data inside the attestation object, if sent.
    var authenticatorData: Base64URLBytes?
    /// The transports the authenticator supports, if the client could tell.
    var transports: [AuthenticatorTransport]?
    /// The credential public key as a DER SubjectPublicKeyInfo, if the client could produce it.
    var publicKey: Base64URLBytes?
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
    package init(
        clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes? = nil,
        transports: [AuthenticatorTransport]? = nil, publicKey: Base64URLBytes? = nil,
        publicKeyAlgorithm: Int? = nil, attestationObject: Base64URLBytes
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.attestationObject = attestationObject
    }
}

/// The authenticator's part of an authentication response (`AuthenticatorAssertionResponseJSON`).
package struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    var clientDataJSON: Base64URLBytes
    /// The authenticator data the signature covers.
    var authenticatorData: Base64URLBytes
    /// The assertion signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    var signature: Base64URLBytes
    /// The user handle, sent by discoverable credentials (absent or null otherwise).
    var userHandle: Base64URLBytes?

    /// Creates an assertion response.
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes.
    ///   - authenticatorData: the authenticator data bytes.
    ///   - signature: the signature bytes.
    ///   - userHandle: the user handle, or nil.
    package init(
        clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes, signature: Base64URLBytes,
        userHandle: Base64URLBytes? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
