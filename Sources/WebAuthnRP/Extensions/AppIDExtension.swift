import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// `appid` (L3 §10.1.1): a login with a credential registered under the FIDO U2F AppID. It
/// changes §7.2 step 15 (which rpIdHash is expected), so its rule runs there; step 20 reports
/// the answer step 15 read.
struct AppIDExtension: WebAuthnExtension {
    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]
    ) throws(WebAuthnError) {
        guard let appid = inputs.appid else { return }
        try Self.checkAppID(appid, member: "appid")
        json["appid"] = .string(appid)
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "appid" ? asked.appid != nil : nil
    }

    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {
        // The rpIdHash rule was applied at step 15; here its answer is reported.
        if exchange.asked.appid != nil { results.appid = context.usedAppID }
    }

    /// The AppID part of §7.2 step 15: when the relying party sent `appid` and the client
    /// reports `appid: true`, rpIdHash must be SHA-256 of the AppID. `appid: true` that was not
    /// asked for is `extension`; an rpIdHash that is not the AppID's hash is `rpIdHash`. When
    /// the AppID was not used, the caller checks rpIdHash against the RP ID.
    /// - Returns: whether the AppID was used (and rpIdHash is its hash).
    static func checkUsedAppID(
        _ authData: AuthenticatorData, clientOutputs json: [String: JSONValue],
        asked: RequestedExtensions
    ) throws(WebAuthnError) -> Bool {
        var usedAppID = false
        if let value = json["appid"] {
            guard let used = value.boolValue else {
                throw WebAuthnError(.extension, "client extension output appid is not a boolean")
            }
            usedAppID = used
        }
        guard usedAppID else { return false }
        guard let appid = asked.appid else {
            throw WebAuthnError(.extension, "the client reports appid true but the appid extension was not asked for")
        }
        guard ConstantTime.equals(authData.rpIdHash, Digest.sha256.hash(Array(appid.utf8))) else {
            throw WebAuthnError(.rpIdHash, "the client used the AppID but rpIdHash is not SHA-256(\"\(appid)\")")
        }
        return true
    }

    /// A FIDO AppID is an https URL with a host (FIDO AppID and Facet Specification §3.1.2).
    static func checkAppID(_ appid: String, member: String) throws(WebAuthnError) {
        guard appid.utf8.count <= 2048, let url = URL(string: appid), url.scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw WebAuthnError(.extension, "\(member) \"\(appid)\" is not an https URL")
        }
    }

    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] {
        results.appid.map { [("appid", "\($0)")] } ?? []
    }
}
