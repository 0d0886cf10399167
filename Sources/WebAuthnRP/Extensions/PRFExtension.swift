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

    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]
    ) throws(WebAuthnError) {
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
                throw WebAuthnError(
                    .extension,
                    "prf.evalByCredential names \(Base64URL.encode(id)), which is not in allowCredentials")
            }
        }
        json["prf"] = prf.json
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "prf" ? asked.prf : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        guard let prf = exchange.client.prf else { return }
        // Unasked, only `enabled` (a statement about the credential) is reported.
        results.prfEnabled = prf.enabled
        guard exchange.asked.prf, prf.hasResults else { return }
        guard let evaluation = exchange.asked.prfEval else {
            throw WebAuthnError(.extension, "prf.results arrived but no evaluation (prf.eval) was asked for")
        }
        if prf.enabled == false {
            throw WebAuthnError(.extension, "prf.results arrived with prf.enabled false")
        }
        results.prfResults = try Self.results(prf, evaluation: evaluation)
    }

    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {
        guard exchange.asked.prf, let prf = exchange.client.prf else { return }
        // L3 §10.1.4 (and its test vectors): enabled is a registration output only.
        guard prf.enabled == nil else {
            throw WebAuthnError(.extension, "prf.enabled is not an authentication output")
        }
        guard prf.hasResults else { return }
        // The inputs chosen for this credential: its evalByCredential entry, else eval.
        guard let evaluation = exchange.asked.prfEvalByCredential[Base64URL.encode(context.credentialId)] ?? exchange.asked.prfEval else {
            throw WebAuthnError(.extension, "prf.results arrived but no evaluation was asked for this credential")
        }
        results.prfResults = try Self.results(prf, evaluation: evaluation)
    }

    /// PRF outputs are secrets: the trace shows which arrived, never their bytes.
    static func describe(_ results: PRFValues) -> String {
        results.second == nil ? "results: first" : "results: first, second"
    }

    /// PRF results: 32 bytes each; `second` present exactly when a second input was given.
    static func results(
        _ prf: ClientExtensionOutputs.PRF,
        evaluation: RequestedExtensions.PRFEvaluation
    ) throws(WebAuthnError) -> PRFValues? {
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
        return PRFValues(first: first, second: prf.second)
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        var items: [(String, String)] = []
        if let prfEnabled = results.prfEnabled { items.append(("prf", "enabled \(prfEnabled)")) }
        if let prfResults = results.prfResults { items.append(("prf", Self.describe(prfResults))) }
        return items
    }

    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] {
        results.prfResults.map { [("prf", Self.describe($0))] } ?? []
    }
}

/// One or two PRF values (`AuthenticationExtensionsPRFValues`, L3 §10.1.4): evaluation inputs,
/// which the client hashes with the context string "WebAuthn PRF" before the authenticator sees
/// them, or the outputs (`results`), 32 bytes each: `first` is the output for `eval.first` (or
/// the credential's `evalByCredential` entry), `second` is present exactly when a second input
/// was given. Outputs are secrets derived from the credential: use them (for example as key
/// material) and do not log or store them.
public struct PRFValues: Sendable, Hashable {
    /// The first input (any length).
    public var first: [UInt8]
    /// The optional second input.
    public var second: [UInt8]?

    /// Creates evaluation inputs.
    /// - Parameters:
    ///   - first: the first input.
    ///   - second: the optional second input.
    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }

    var json: JSONValue {
        var object: [String: JSONValue] = ["first": .string(Base64URL.encode(first))]
        if let second { object["second"] = .string(Base64URL.encode(second)) }
        return .object(object)
    }
}

/// The `prf` input (`AuthenticationExtensionsPRFInputs`, L3 §10.1.4).
public struct PRFInputs: Sendable, Hashable {
    /// Inputs evaluated for whichever credential is used.
    var eval: PRFValues?
    /// Authentication only: inputs per credential id, which take precedence over `eval`.
    /// Every key must be the id of a credential in `allowCredentials`.
    var evalByCredential: [[UInt8]: PRFValues]

    /// Creates PRF inputs. `PRFInputs()` alone asks at registration whether PRF is enabled.
    /// - Parameters:
    ///   - eval: inputs for any credential.
    ///   - evalByCredential: inputs per credential id (authentication only).
    public init(eval: PRFValues? = nil, evalByCredential: [[UInt8]: PRFValues] = [:]) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let eval { object["eval"] = eval.json }
        if !evalByCredential.isEmpty {
            var byCredential: [String: JSONValue] = [:]
            for (id, values) in evalByCredential { byCredential[Base64URL.encode(id)] = values.json }
            object["evalByCredential"] = .object(byCredential)
        }
        return .object(object)
    }
}
