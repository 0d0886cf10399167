import WebAuthnCoding

/// One WebAuthn or CTAP extension, end to end, in its own file: its inputs checked as a client
/// would check them when the options are built, which outputs answer what was asked, and the
/// check of its outputs at §7.1 step 21 / §7.2 step 20 with the results it reports. Every
/// requirement has a default that does nothing, so a slice states only what its extension has.
///
/// Adding an extension is one new file conforming to this and one line in
/// ``ExtensionList/all``. The typed readers of the outputs (``ClientExtensionOutputs``,
/// ``AuthenticatorExtensionOutputs``) stay shared: they are one pass over one JSON object and
/// one CBOR map, fuzzed as such.
protocol WebAuthnExtension: Sendable {
    /// Adds this extension's registration input to the options' `extensions` member.
    /// - Throws: ``WebAuthnError`` (`extension`) for an input the client would refuse.
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError)
    /// Adds this extension's authentication input, checked against `allowCredentials`.
    /// - Throws: ``WebAuthnError`` (`extension`) for an input the client would refuse.
    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]) throws(WebAuthnError)
    /// Whether the client extension output `name` answers an input that was asked; nil when
    /// `name` is not one of this extension's outputs.
    func asked(client name: String, _ asked: RequestedExtensions) -> Bool?
    /// Whether the authenticator extension output `identifier` answers an input that was asked;
    /// nil when `identifier` is not one of this extension's.
    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool?
    /// §7.1 step 21 for this extension: checks its outputs and records its results.
    /// - Throws: ``WebAuthnError`` (`extension`) for outputs that do not fit.
    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError)
    /// §7.2 step 20 for this extension: checks its outputs and records its results.
    /// - Throws: ``WebAuthnError`` (`extension`) for outputs that do not fit.
    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError)
    /// This extension's verified registration results as (name, value) trace lines; secrets
    /// (PRF outputs, blobs) by presence or length only.
    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)]
    /// This extension's verified authentication results as trace lines (secrets by presence only).
    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)]
}

extension WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {}
    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]
    ) throws(WebAuthnError) {}
    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? { nil }
    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? { nil }
    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {}
    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {}
    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] { [] }
    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] { [] }
}

/// One ceremony's extension outputs, each read once, with what the options asked: what every
/// extension's check reads.
struct ExtensionExchange: Sendable {
    /// What the options asked for.
    let asked: RequestedExtensions
    /// The client extension outputs (`clientExtensionResults`).
    let client: ClientExtensionOutputs
    /// The authenticator extension outputs in authenticator data.
    let authenticator: AuthenticatorExtensionOutputs
}

/// What an authentication's extension checks know beyond the outputs: the credential used, and
/// whether §7.2 step 15 found the AppID used (read once there, reported at step 20).
struct AuthenticationExtensionContext: Sendable {
    var credentialId: [UInt8]
    var usedAppID: Bool
}

/// The extensions this library knows: the one list of them. Inputs are written, and outputs
/// checked, in this order, so of two faults the same one is reported every time.
enum ExtensionList {
    static let all: [any WebAuthnExtension] = [
        CredPropsExtension(),
        PRFExtension(),
        LargeBlobExtension(),
        CredProtectExtension(),
        MinPinLengthExtension(),
        HMACSecretExtension(),
        CredBlobExtension(),
        AppIDExtension(),
        AppIDExcludeExtension(),
    ]
}

/// What the relying party asked for, read back from the `extensions` member of the options it
/// issued (kept on ``IssuedChallenge/extensions``). Read leniently: the options are the
/// relying party's own, and an input this reader does not recognise asks for nothing.
struct RequestedExtensions: Sendable {
    /// PRF evaluation inputs as asked: which of `first` / `second` were given.
    struct PRFEvaluation: Sendable, Equatable {
        var second: Bool
    }

    var credProps = false
    /// `prf` was asked for (with or without evaluation inputs).
    var prf = false
    var prfEval: PRFEvaluation?
    /// `evalByCredential`, keyed by the credential id's base64url text.
    var prfEvalByCredential: [String: PRFEvaluation] = [:]
    var largeBlobSupport: String?
    var largeBlobRead = false
    var largeBlobWrite = false
    var largeBlob: Bool { largeBlobSupport != nil || largeBlobRead || largeBlobWrite }
    var credProtectLevel: Int?
    var enforceCredProtect = false
    var minPinLength = false
    var hmacCreateSecret = false
    var hmacGetSecret = false
    var credBlob = false
    var getCredBlob = false
    var appid: String?
    var appidExclude: String?

    init(_ json: [String: JSONValue]?) {
        guard let json else { return }
        credProps = json["credProps"]?.boolValue == true
        if let prf = json["prf"]?.objectValue {
            self.prf = true
            prfEval = Self.evaluation(prf["eval"])
            for (id, values) in prf["evalByCredential"]?.objectValue ?? [:] {
                if let evaluation = Self.evaluation(values) { prfEvalByCredential[id] = evaluation }
            }
        }
        if let largeBlob = json["largeBlob"]?.objectValue {
            largeBlobSupport = largeBlob["support"]?.stringValue
            largeBlobRead = largeBlob["read"]?.boolValue == true
            largeBlobWrite = largeBlob["write"]?.stringValue != nil
            if largeBlobSupport == nil, !largeBlobRead, !largeBlobWrite { largeBlobSupport = "preferred" }
        }
        if let policy = json["credentialProtectionPolicy"]?.stringValue {
            credProtectLevel = CredentialProtectionPolicy(rawValue: policy)?.level
            enforceCredProtect = json["enforceCredentialProtectionPolicy"]?.boolValue == true
        }
        minPinLength = json["minPinLength"]?.boolValue == true
        hmacCreateSecret = json["hmacCreateSecret"]?.boolValue == true
        hmacGetSecret = json["hmacGetSecret"]?.objectValue != nil
        credBlob = json["credBlob"]?.stringValue != nil
        getCredBlob = json["getCredBlob"]?.boolValue == true
        appid = json["appid"]?.stringValue
        appidExclude = json["appidExclude"]?.stringValue
    }

    private static func evaluation(_ value: JSONValue?) -> PRFEvaluation? {
        guard let object = value?.objectValue, object["first"] != nil else { return nil }
        return PRFEvaluation(second: object["second"] != nil)
    }

    /// Whether the client extension named `name` was asked for (each extension answers for
    /// its own outputs; a name none of them knows was not asked for).
    func asked(client name: String) -> Bool {
        for definition in ExtensionList.all {
            if let answer = definition.asked(client: name, self) { return answer }
        }
        return false
    }

    /// Whether an input asked the client to send the authenticator extension `identifier`.
    func asked(authenticator identifier: String) -> Bool {
        for definition in ExtensionList.all {
            if let answer = definition.asked(authenticator: identifier, self) { return answer }
        }
        return false
    }
}
