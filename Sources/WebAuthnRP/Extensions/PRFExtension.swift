import WebAuthnCoding

/// `prf` (L3 §10.1.4): PRF support at registration, evaluations at either ceremony.
struct PRFExtension: WebAuthnExtension {
    /// The PRF output length (HMAC-SHA-256).
    static let outputLength = 32

    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        guard let prf = inputs.prf else { return }
        // L3 §10.1.4, registration: "If evalByCredential is present, return a DOMException
        // whose name is NotSupportedError."
        guard prf.evalByCredential.isEmpty else {
            throw WebAuthnError(.extension, "prf.evalByCredential is not allowed at registration")
        }
        json["prf"] = prf.json
    }

    func addInput(_ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
                  to json: inout [String: JSONValue]) throws(WebAuthnError) {
        guard let prf = inputs.prf else { return }
        if !prf.evalByCredential.isEmpty {
            // L3 §10.1.4, authentication: evalByCredential needs allowCredentials, and each key
            // must be the id of one of its credentials.
            guard !allowCredentials.isEmpty else {
                throw WebAuthnError(.extension, "prf.evalByCredential needs a non-empty allowCredentials")
            }
            // In id order, so that of several foreign ids the error names the same one every time.
            for id in prf.evalByCredential.keys.sorted(by: { $0.lexicographicallyPrecedes($1) })
            where id.isEmpty || !allowCredentials.contains(id) {
                throw WebAuthnError(.extension,
                                    "prf.evalByCredential names \(Base64URL.encode(id)), which is not in allowCredentials")
            }
        }
        json["prf"] = prf.json
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "prf" ? asked.prf : nil
    }

    func checkRegistration(client: ClientExtensionOutputs, authenticator: AuthenticatorExtensionOutputs,
                           asked: RequestedExtensions, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        guard let prf = client.prf else { return }
        // Unasked, only `enabled` (a statement about the credential) is reported.
        results.prfEnabled = prf.enabled
        guard asked.prf, prf.hasResults else { return }
        guard let evaluation = asked.prfEval else {
            throw WebAuthnError(.extension, "prf.results arrived but no evaluation (prf.eval) was asked for")
        }
        if prf.enabled == false {
            throw WebAuthnError(.extension, "prf.results arrived with prf.enabled false")
        }
        results.prfResults = try Self.results(prf, evaluation: evaluation)
    }

    func checkAuthentication(client: ClientExtensionOutputs, authenticator: AuthenticatorExtensionOutputs,
                             asked: RequestedExtensions, context: ExtensionChecks.AuthenticationContext,
                             results: inout AuthenticationExtensionResults) throws(WebAuthnError) {
        guard asked.prf, let prf = client.prf else { return }
        // L3 §10.1.4 (and its test vectors): enabled is a registration output only.
        guard prf.enabled == nil else {
            throw WebAuthnError(.extension, "prf.enabled is not an authentication output")
        }
        guard prf.hasResults else { return }
        // The inputs chosen for this credential: its evalByCredential entry, else eval.
        guard let evaluation = asked.prfEvalByCredential[Base64URL.encode(context.credentialId)] ?? asked.prfEval else {
            throw WebAuthnError(.extension, "prf.results arrived but no evaluation was asked for this credential")
        }
        results.prfResults = try Self.results(prf, evaluation: evaluation)
    }

    /// PRF results: 32 bytes each; `second` present exactly when a second input was given.
    static func results(_ prf: ClientExtensionOutputs.PRF,
                        evaluation: RequestedExtensions.PRFEvaluation) throws(WebAuthnError) -> PRFResults? {
        guard let first = prf.first else { return nil }
        guard first.count == outputLength else {
            throw WebAuthnError(.extension, "prf.results.first is \(first.count) bytes, expected \(outputLength)")
        }
        if let second = prf.second {
            guard evaluation.second else {
                throw WebAuthnError(.extension, "prf.results.second arrived but no second input was given")
            }
            guard second.count == outputLength else {
                throw WebAuthnError(.extension, "prf.results.second is \(second.count) bytes, expected \(outputLength)")
            }
        } else if evaluation.second {
            throw WebAuthnError(.extension, "prf.results.second is missing although a second input was given")
        }
        return PRFResults(first: first, second: prf.second)
    }
}
