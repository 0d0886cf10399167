import WebAuthnCoding

/// `hmac-secret` (CTAP 2.2 §12.5; `hmacCreateSecret` and `hmacGetSecret` in the client, and
/// `hmac-secret-mc` at creation). PRF runs over it, so a `prf` input asks for it too.
struct HMACSecretExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        if inputs.hmacCreateSecret { json["hmacCreateSecret"] = .bool(true) }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        switch name {
        case "hmacCreateSecret": return asked.hmacCreateSecret
        case "hmacGetSecret": return asked.hmacGetSecret
        default: return nil
        }
    }

    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? {
        identifier == "hmac-secret" || identifier == "hmac-secret-mc"
            ? asked.prf || asked.hmacCreateSecret || asked.hmacGetSecret : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        // The authenticator says whether it created the secret; hmacCreateSecret echoes it.
        results.hmacSecret = exchange.authenticator.hmacSecret ?? (exchange.asked.hmacCreateSecret ? exchange.client.hmacCreateSecret : nil)
    }

    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {
        if exchange.authenticator.hmacSecretOutput != nil { results.hmacSecret = true }
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        results.hmacSecret.map { [("hmac-secret", "\($0)")] } ?? []
    }

    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] {
        results.hmacSecret == true ? [("hmac-secret", "output present")] : []
    }
}
