import WebAuthnCoding

extension ExtensionChecks {
    /// §7.1 step 21 with its trace: one checked step for the outputs, then one line per
    /// verified result (what `webauthn-replay --explain` shows).
    static func verifyRegistration(clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
                                   issued: IssuedChallenge, policy: ExtensionPolicy,
                                   trace: inout CeremonyTrace) throws(WebAuthnError) -> RegistrationExtensionResults {
        let step = "§7.1 step 21"
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil {
            trace.note(step, "extension outputs: none asked for, none present")
            return RegistrationExtensionResults()
        }
        let results = try trace.check(step, "extension outputs fit their definitions and what was asked",
                                      detail: describe(issued: issued, clientOutputs: json, authData: authData)) { () throws(WebAuthnError) in
            try verifyRegistration(clientOutputs: json, authData: authData, issued: issued, policy: policy)
        }
        for (name, value) in results.traceItems { trace.note(step, "extension \(name)", detail: value) }
        return results
    }

    /// §7.2 step 20 with its trace (see the registration form).
    static func verifyAuthentication(clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
                                     issued: IssuedChallenge, asked: RequestedExtensions, context: AuthenticationExtensionContext,
                                     policy: ExtensionPolicy,
                                     trace: inout CeremonyTrace) throws(WebAuthnError) -> AuthenticationExtensionResults {
        let step = "§7.2 step 20"
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil {
            trace.note(step, "extension outputs: none asked for, none present")
            return AuthenticationExtensionResults()
        }
        let results = try trace.check(step, "extension outputs fit their definitions and what was asked",
                                      detail: describe(issued: issued, clientOutputs: json, authData: authData)) { () throws(WebAuthnError) in
            try verifyAuthentication(clientOutputs: json, authData: authData, issued: issued, asked: asked,
                                     context: context, policy: policy)
        }
        for (name, value) in results.traceItems { trace.note(step, "extension \(name)", detail: value) }
        return results
    }
}

extension RegistrationExtensionResults {
    /// Each reported output as (name, value) for the trace, in the order of ``ExtensionList``.
    var traceItems: [(String, String)] { ExtensionList.all.flatMap { $0.traceItems(self) } }
}

extension AuthenticationExtensionResults {
    /// Each reported output as (name, value) for the trace, in the order of ``ExtensionList``.
    var traceItems: [(String, String)] { ExtensionList.all.flatMap { $0.traceItems(self) } }
}
