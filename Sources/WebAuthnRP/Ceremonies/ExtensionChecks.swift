import WebAuthnCoding

/// Verifies extension outputs against their definitions and against what the relying party
/// asked for (WebAuthn L3 §7.1 step 21 / §7.2 step 20, §9, §10; CTAP 2.2 §12): the outputs are
/// read once, then each extension of ``ExtensionList`` checks its own. One entry point per
/// ceremony; the appid rule of §7.2 step 15 is ``AppIDExtension``'s.
enum ExtensionChecks {
    // MARK: Registration

    /// §7.1 step 21: the registration's client and authenticator extension outputs.
    static func verifyRegistration(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge,
        policy: ExtensionPolicy
    ) throws(WebAuthnError) -> RegistrationExtensionResults {
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil { return RegistrationExtensionResults() }
        let exchange = try readOutputs(
            json, authData, ceremony: .registration, asked: RequestedExtensions(issued.extensions), policy: policy)
        var results = RegistrationExtensionResults()
        for definition in ExtensionList.all {
            try definition.checkRegistration(exchange, results: &results)
        }
        return results
    }

    // MARK: Authentication

    /// §7.2 step 15 with the appid extension (L3 §10.1.1): when the relying party sent `appid`
    /// and the client reports `appid: true`, rpIdHash must be SHA-256 of the AppID
    /// (``AppIDExtension``); otherwise SHA-256 of the RP ID.
    /// - Returns: whether the AppID was used.
    static func checkAssertionRPIDHash(
        _ authData: AuthenticatorData, clientOutputs json: [String: JSONValue],
        asked: RequestedExtensions, issued: IssuedChallenge,
        relyingParty: RelyingParty
    ) throws(WebAuthnError) -> Bool {
        // A login with no client extension outputs cannot have used the AppID.
        guard !json.isEmpty, try AppIDExtension.checkUsedAppID(authData, clientOutputs: json, asked: asked) else {
            try CeremonyChecks.checkRPIDHash(authData, rpId: issued.rpId, relyingParty: relyingParty)
            return false
        }
        return true
    }

    /// §7.2 step 20: the assertion's client and authenticator extension outputs.
    /// - Parameters:
    ///   - asked: what the options asked, read once for the ceremony (step 15 read it first).
    ///   - context: the credential used and step 15's appid answer.
    static func verifyAuthentication(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, asked: RequestedExtensions,
        context: AuthenticationExtensionContext,
        policy: ExtensionPolicy
    ) throws(WebAuthnError) -> AuthenticationExtensionResults {
        // The common login asks for nothing and gets nothing: no work beyond three checks.
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil { return AuthenticationExtensionResults() }
        let exchange = try readOutputs(json, authData, ceremony: .authentication, asked: asked, policy: policy)
        var results = AuthenticationExtensionResults()
        for definition in ExtensionList.all {
            try definition.checkAuthentication(exchange, context: context, results: &results)
        }
        return results
    }

    // MARK: Shared

    /// Both outputs, each read once, with what was asked; outputs nothing asked for are refused
    /// first when the policy says so.
    private static func readOutputs(
        _ json: [String: JSONValue], _ authData: AuthenticatorData, ceremony: CeremonyKind, asked: RequestedExtensions,
        policy: ExtensionPolicy
    ) throws(WebAuthnError) -> ExtensionExchange {
        let client = try ClientExtensionOutputs(json: json)
        let authenticator = try authenticatorOutputs(authData, ceremony: ceremony)
        if policy.rejectUnsolicitedOutputs {
            try rejectUnsolicited(client: client, authenticator: authenticator, asked: asked)
        }
        return ExtensionExchange(asked: asked, client: client, authenticator: authenticator)
    }

    private static func authenticatorOutputs(
        _ authData: AuthenticatorData,
        ceremony: CeremonyKind
    ) throws(WebAuthnError) -> AuthenticatorExtensionOutputs {
        guard let map = authData.extensions else { return AuthenticatorExtensionOutputs() }
        return try AuthenticatorExtensionOutputs(map: map, ceremony: ceremony)
    }

    private static func rejectUnsolicited(
        client: ClientExtensionOutputs, authenticator: AuthenticatorExtensionOutputs,
        asked: RequestedExtensions
    ) throws(WebAuthnError) {
        for name in client.names where !asked.asked(client: name) {
            throw WebAuthnError(.extension, "client extension output \(name) was not asked for")
        }
        for identifier in authenticator.identifiers where !asked.asked(authenticator: identifier) {
            throw WebAuthnError(.extension, "authenticator extension output \(identifier) was not asked for")
        }
    }
}

extension ExtensionChecks {
    /// A trace line for the extension step: what was asked and what arrived.
    static func describe(issued: IssuedChallenge, clientOutputs: [String: JSONValue], authData: AuthenticatorData) -> String {
        let asked = (issued.extensions ?? [:]).keys.sorted()
        let client = clientOutputs.keys.sorted()
        let authenticator = authData.extensions?.mapEntries?.compactMap { $0.key.text } ?? []
        return "asked [\(asked.joined(separator: ", "))], client [\(client.joined(separator: ", "))], "
            + "authenticator [\(authenticator.joined(separator: ", "))]"
    }
}

extension ExtensionChecks {
    /// §7.1 step 21 with its trace: one checked step for the outputs, then one line per
    /// verified result (what `webauthn-replay --explain` shows).
    static func verifyRegistration(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, policy: ExtensionPolicy,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> RegistrationExtensionResults {
        try traced(
            "§7.1 step 21", issued: issued, clientOutputs: json, authData: authData, nothing: RegistrationExtensionResults(),
            items: \.traceItems, trace: &trace
        ) { () throws(WebAuthnError) in
            try verifyRegistration(clientOutputs: json, authData: authData, issued: issued, policy: policy)
        }
    }

    /// §7.2 step 20 with its trace (see the registration form).
    static func verifyAuthentication(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, asked: RequestedExtensions, context: AuthenticationExtensionContext,
        policy: ExtensionPolicy,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> AuthenticationExtensionResults {
        try traced(
            "§7.2 step 20", issued: issued, clientOutputs: json, authData: authData, nothing: AuthenticationExtensionResults(),
            items: \.traceItems, trace: &trace
        ) { () throws(WebAuthnError) in
            try verifyAuthentication(
                clientOutputs: json, authData: authData, issued: issued, asked: asked,
                context: context, policy: policy)
        }
    }

    /// Either ceremony's extension step with its trace: one checked step for the outputs, then
    /// one line per verified result; `nothing` when none were asked for and none came.
    private static func traced<Results>(
        _ step: String, issued: IssuedChallenge, clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        nothing: @autoclosure () -> Results, items: (Results) -> [(String, String)], trace: inout CeremonyTrace,
        _ verify: () throws(WebAuthnError) -> Results
    ) throws(WebAuthnError) -> Results {
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil {
            trace.note(step, "extension outputs: none asked for, none present")
            return nothing()
        }
        let results = try trace.check(
            step, "extension outputs fit their definitions and what was asked",
            detail: describe(issued: issued, clientOutputs: json, authData: authData), verify)
        for (name, value) in items(results) { trace.note(step, "extension \(name)", detail: value) }
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
