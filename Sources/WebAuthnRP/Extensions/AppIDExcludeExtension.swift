import WebAuthnCoding

/// `appidExclude` (L3 §10.1.2): at registration, also exclude the credentials a FIDO U2F AppID
/// names.
struct AppIDExcludeExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        guard let appidExclude = inputs.appidExclude else { return }
        try AppIDExtension.checkAppID(appidExclude, member: "appidExclude")
        json["appidExclude"] = .string(appidExclude)
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "appidExclude" ? asked.appidExclude != nil : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        if exchange.asked.appidExclude != nil { results.appidExclude = exchange.client.appidExclude }
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        results.appidExclude.map { [("appidExclude", "\($0)")] } ?? []
    }
}
