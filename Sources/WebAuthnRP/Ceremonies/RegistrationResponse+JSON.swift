// A registration response from what the browser posted, and its client data parsed once.

extension RegistrationResponse {
    /// The decoded form of a `RegistrationResponseJSON` (what `PublicKeyCredential.toJSON()` sent).
    /// - Parameter json: the decoded JSON.
    public init(json: RegistrationResponseJSON) {
        self.init(id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
                  clientDataJSON: json.response.clientDataJSON.bytes,
                  attestationObject: json.response.attestationObject.bytes,
                  transports: (json.response.transports ?? []).map(\.rawValue),
                  clientExtensionResults: json.clientExtensionResults)
    }
}

extension RegistrationResponse {
    /// The client data, parsed once (§7.1 steps 5-6).
    func clientData() throws(WebAuthnError) -> CollectedClientData {
        if let preparsedClientData { return preparsedClientData }
        return try CeremonyChecks.parseClientData(clientDataJSON)
    }
}
