import WebAuthnCoding

/// `credProps` (L3 §10.1.3): whether the new credential is discoverable.
struct CredPropsExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        if inputs.credProps { json["credProps"] = .bool(true) }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "credProps" ? asked.credProps : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        // rk, a boolean, when the client knows it. A statement about the credential, so it is
        // reported also when a client volunteers it.
        if let props = exchange.client.credProps { results.residentKey = props }
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        if let residentKey = results.residentKey { return [("credProps", "rk \(residentKey)")] }
        return []
    }
}
