import WebAuthnCoding

/// `minPinLength` (CTAP 2.2 §12.4): the authenticator's minimum PIN length.
struct MinPinLengthExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        if inputs.minPinLength { json["minPinLength"] = .bool(true) }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "minPinLength" ? asked.minPinLength : nil
    }

    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? {
        identifier == "minPinLength" ? asked.minPinLength : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        results.minPinLength = exchange.authenticator.minPinLength
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        results.minPinLength.map { [("minPinLength", "\($0)")] } ?? []
    }
}
