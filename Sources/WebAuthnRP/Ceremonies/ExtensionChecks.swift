import WebAuthnCoding

/// Verifies extension outputs against their definitions and against what the relying party
/// asked for (WebAuthn L3 §7.1 step 21 / §7.2 step 20, §9, §10; CTAP 2.2 §12): the outputs are
/// read once, then each extension of ``ExtensionList`` checks its own. One entry point per
/// ceremony; the appid rule of §7.2 step 15 is ``AppIDExtension``'s.
enum ExtensionChecks {
    // MARK: Registration

    /// §7.1 step 21: the registration's client and authenticator extension outputs, with the
    /// step's trace.
    static func verifyRegistration(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, rejectUnsolicited: Bool,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> RegistrationExtensionResults {
        try verify(
            "§7.1 step 21", .registration, clientOutputs: json, authData: authData, issued: issued,
            asked: RequestedExtensions(issued.extensions), rejectUnsolicited: rejectUnsolicited, trace: &trace
        ) { (definition, exchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) in
            try definition.checkRegistration(exchange, results: &results)
        }
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

    /// §7.2 step 20: the assertion's client and authenticator extension outputs, with the step's
    /// trace.
    /// - Parameters:
    ///   - asked: what the options asked, read once for the ceremony (step 15 read it first).
    ///   - context: the credential used and step 15's appid answer.
    static func verifyAuthentication(
        clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, asked: RequestedExtensions,
        context: AuthenticationExtensionContext, rejectUnsolicited: Bool,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> AuthenticationExtensionResults {
        try verify(
            "§7.2 step 20", .authentication, clientOutputs: json, authData: authData, issued: issued,
            asked: asked, rejectUnsolicited: rejectUnsolicited, trace: &trace
        ) { (definition, exchange, results: inout AuthenticationExtensionResults) throws(WebAuthnError) in
            try definition.checkAuthentication(exchange, context: context, results: &results)
        }
    }

    // MARK: Shared

    /// Either ceremony's extension step: the outputs are read once, then each extension of
    /// ``ExtensionList`` checks its own (`check`); traced as one checked step for the outputs,
    /// then one line per verified result (what `webauthn-replay --explain` shows).
    private static func verify<Results: ExtensionStepResults>(
        _ step: String, _ ceremony: CeremonyKind, clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
        issued: IssuedChallenge, asked: @autoclosure () -> RequestedExtensions, rejectUnsolicited: Bool,
        trace: inout CeremonyTrace,
        _ check: (any WebAuthnExtension, ExtensionExchange, inout Results) throws(WebAuthnError) -> Void
    ) throws(WebAuthnError) -> Results {
        // The common ceremony asks for nothing and gets nothing: no work beyond three checks.
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil {
            trace.note(step, "extension outputs: none asked for, none present")
            return Results()
        }
        let results = try trace.check(
            step, "extension outputs fit their definitions and what was asked",
            detail: describe(issued: issued, clientOutputs: json, authData: authData)
        ) { () throws(WebAuthnError) in
            // What was asked is read only now: registration's common case above never needs it.
            let exchange = try readOutputs(json, authData, ceremony: ceremony, asked: asked(), rejectUnsolicited: rejectUnsolicited)
            var results = Results()
            for definition in ExtensionList.all {
                try check(definition, exchange, &results)
            }
            return results
        }
        for (name, value) in results.traceItems { trace.note(step, "extension \(name)", detail: value) }
        return results
    }

    /// Both outputs, each read once, with what was asked; outputs nothing asked for are refused
    /// first when the policy says so (`rejectUnsolicitedExtensionOutputs`).
    private static func readOutputs(
        _ json: [String: JSONValue], _ authData: AuthenticatorData, ceremony: CeremonyKind, asked: RequestedExtensions,
        rejectUnsolicited: Bool
    ) throws(WebAuthnError) -> ExtensionExchange {
        let client = try ClientExtensionOutputs(json: json)
        let authenticator = try authenticatorOutputs(authData, ceremony: ceremony)
        if rejectUnsolicited {
            try Self.rejectUnsolicited(client: client, authenticator: authenticator, asked: asked)
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

/// A ceremony's verified extension results, as the extension step builds and traces them.
protocol ExtensionStepResults {
    /// No outputs.
    init()
    /// Each reported output as (name, value) for the trace, in the order of ``ExtensionList``.
    var traceItems: [(String, String)] { get }
}

extension RegistrationExtensionResults: ExtensionStepResults {
    /// Each reported output as (name, value) for the trace, in the order of ``ExtensionList``.
    var traceItems: [(String, String)] { ExtensionList.all.flatMap { $0.traceItems(self) } }
}

extension AuthenticationExtensionResults: ExtensionStepResults {
    /// Each reported output as (name, value) for the trace, in the order of ``ExtensionList``.
    var traceItems: [(String, String)] { ExtensionList.all.flatMap { $0.traceItems(self) } }
}
