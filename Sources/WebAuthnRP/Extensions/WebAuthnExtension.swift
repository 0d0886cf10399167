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
