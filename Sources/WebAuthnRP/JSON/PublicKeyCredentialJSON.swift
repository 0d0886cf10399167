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
    /// - Throws: `DecodingError` for a missing or mistyped member.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        response = try container.decode(Response.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeJSONObject(forKey: .clientExtensionResults)
        type = try container.decode(PublicKeyCredentialType.self, forKey: .type)
    }
}

/// A registration response in its JSON form (`RegistrationResponseJSON`).
package typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// An authentication response in its JSON form (`AuthenticationResponseJSON`).
package typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>
