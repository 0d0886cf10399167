// An authentication response from what the browser posted, and its client data parsed once.

extension AuthenticationResponse {
    /// The decoded form of an `AuthenticationResponseJSON`.
    /// - Parameter json: the decoded JSON.
    public init(json: AuthenticationResponseJSON) {
        self.init(id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
                  clientDataJSON: json.response.clientDataJSON.bytes,
                  authenticatorData: json.response.authenticatorData.bytes,
                  signature: json.response.signature.bytes, userHandle: json.response.userHandle?.bytes,
                  clientExtensionResults: json.clientExtensionResults)
    }
}

extension AuthenticationResponse {
    /// The client data, parsed once (§7.2 steps 9-10).
    func clientData() throws(WebAuthnError) -> CollectedClientData {
        if let preparsedClientData { return preparsedClientData }
        return try CeremonyChecks.parseClientData(clientDataJSON)
    }
}
