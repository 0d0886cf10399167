import WebAuthnCoding

/// `credBlob` (CTAP 2.2 §12.2): a small blob stored at registration, returned at
/// authentication when `getCredBlob` asks for it.
struct CredBlobExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        guard let credBlob = inputs.credBlob else { return }
        // Every authenticator with credBlob stores at least 32 bytes.
        guard (1...32).contains(credBlob.count) else {
            throw WebAuthnError(.extension, "credBlob is \(credBlob.count) bytes; 1 to 32 are stored by every authenticator")
        }
        json["credBlob"] = .string(Base64URL.encode(credBlob))
    }

    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]
    ) throws(WebAuthnError) {
        if inputs.getCredBlob { json["getCredBlob"] = .bool(true) }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        switch name {
        case "credBlob": return asked.credBlob
        case "getCredBlob": return asked.getCredBlob
        default: return nil
        }
    }

    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? {
        identifier == "credBlob" ? asked.credBlob || asked.getCredBlob : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        results.credBlob = exchange.authenticator.credBlobStored ?? (exchange.asked.credBlob ? exchange.client.credBlob : nil)
    }

    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {
        if exchange.asked.getCredBlob { results.credBlob = exchange.authenticator.credBlob ?? exchange.client.getCredBlob }
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        results.credBlob.map { [("credBlob", "stored \($0)")] } ?? []
    }

    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] {
        results.credBlob.map { [("credBlob", "\($0.count) bytes")] } ?? []
    }
}
