/// An authentication response in its JSON form (`AuthenticationResponseJSON`, WebAuthn
/// Level 3 §5.1.8), what `PublicKeyCredential.toJSON()` returns after `get()`.
package struct AuthenticationResponseJSON: Sendable, Hashable, Codable {
    /// The credential ID as base64url text (must equal ``rawId`` encoded; the ceremony checks).
    var id: String
    /// The credential ID.
    var rawId: Base64URLBytes
    /// The authenticator's response.
    package var response: AuthenticatorAssertionResponseJSON
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
    package init(id: String, rawId: Base64URLBytes, response: AuthenticatorAssertionResponseJSON,
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
        response = try container.decode(AuthenticatorAssertionResponseJSON.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeJSONObject(forKey: .clientExtensionResults)
        type = try container.decode(PublicKeyCredentialType.self, forKey: .type)
    }
}

/// The authenticator's part of an authentication response (`AuthenticatorAssertionResponseJSON`).
package struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    var clientDataJSON: Base64URLBytes
    /// The authenticator data the signature covers.
    var authenticatorData: Base64URLBytes
    /// The assertion signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    package var signature: Base64URLBytes
    /// The user handle, sent by discoverable credentials (absent or null otherwise).
    package var userHandle: Base64URLBytes?

    /// Creates an assertion response.
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes.
    ///   - authenticatorData: the authenticator data bytes.
    ///   - signature: the signature bytes.
    ///   - userHandle: the user handle, or nil.
    package init(clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes, signature: Base64URLBytes,
                userHandle: Base64URLBytes? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// Parses ``clientDataJSON``.
    /// - Returns: the client data, whose `rawBytes` are the received bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed`.
    func parsedClientData() throws(WebAuthnError) -> CollectedClientData {
        try CollectedClientData(jsonBytes: clientDataJSON.bytes[...])
    }

    /// Parses ``authenticatorData``.
    /// - Returns: the authenticator data, whose `rawBytes` are the received bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed`.
    func parsedAuthenticatorData() throws(WebAuthnError) -> AuthenticatorData {
        try AuthenticatorData(bytes: authenticatorData.bytes[...])
    }
}
