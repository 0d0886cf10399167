import Foundation
import WebAuthnCoding

// Typed client extension inputs (WebAuthn L3 §9, §10; CTAP 2.2 §12). A server fills these in the
// options builders; they are validated the way the client would validate them, then rendered as
// the options' `extensions` member (bytes as base64url, as in the L3 JSON serialization).

/// The client extension inputs of a registration, set through the initializer. Each is validated
/// by ``RelyingPartyService/beginRegistration(_:now:)`` before the options are sent.
public struct RegistrationExtensionInputs: Sendable, Hashable {
    /// `credProps: true`: ask whether the credential is discoverable (L3 §10.1.3).
    var credProps: Bool
    /// `prf`: ask for PRF support, optionally evaluating `eval` (L3 §10.1.4).
    /// `evalByCredential` is not allowed at registration.
    var prf: PRFInputs?
    /// `largeBlob.support` (L3 §10.1.5).
    var largeBlob: LargeBlobSupport?
    /// `credentialProtectionPolicy` (CTAP 2.2 §12.1).
    var credentialProtectionPolicy: CredentialProtectionPolicy?
    /// `enforceCredentialProtectionPolicy`: a credential protected below the policy is then refused.
    var enforceCredentialProtectionPolicy: Bool
    /// `minPinLength: true` (CTAP 2.2 §12.4): ask for the authenticator's minimum PIN length.
    var minPinLength: Bool
    /// `hmacCreateSecret: true` (CTAP 2.2 §12.5, `hmac-secret`).
    var hmacCreateSecret: Bool
    /// `credBlob` (CTAP 2.2 §12.2): 1 to 32 bytes to store with the credential.
    var credBlob: [UInt8]?
    /// `appidExclude` (L3 §10.1.2): the FIDO AppID (an https URL) whose U2F credentials to exclude.
    var appidExclude: String?

    /// Creates registration inputs; the default asks for nothing.
    /// - Parameters:
    ///   - credProps: ask for credential properties.
    ///   - prf: PRF inputs.
    ///   - largeBlob: large-blob support.
    ///   - credentialProtectionPolicy: the credential protection policy.
    ///   - enforceCredentialProtectionPolicy: refuse a lower protection than asked.
    ///   - minPinLength: ask for the minimum PIN length.
    ///   - hmacCreateSecret: ask for an hmac-secret.
    ///   - credBlob: bytes to store with the credential.
    ///   - appidExclude: a legacy AppID to exclude.
    public init(
        credProps: Bool = false, prf: PRFInputs? = nil, largeBlob: LargeBlobSupport? = nil,
        credentialProtectionPolicy: CredentialProtectionPolicy? = nil,
        enforceCredentialProtectionPolicy: Bool = false, minPinLength: Bool = false,
        hmacCreateSecret: Bool = false, credBlob: [UInt8]? = nil, appidExclude: String? = nil
    ) {
        self.credProps = credProps
        self.prf = prf
        self.largeBlob = largeBlob
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        self.minPinLength = minPinLength
        self.hmacCreateSecret = hmacCreateSecret
        self.credBlob = credBlob
        self.appidExclude = appidExclude
    }

    /// The `extensions` member of the options, or nil when nothing is asked.
    /// - Throws: ``WebAuthnError`` (`extension`) for an input the client would refuse.
    package func validatedJSON() throws(WebAuthnError) -> [String: JSONValue]? {
        var out: [String: JSONValue] = [:]
        for definition in ExtensionList.all { try definition.addInput(self, to: &out) }
        return out.isEmpty ? nil : out
    }
}

/// The client extension inputs of an authentication, set through the initializer. Each is
/// validated by ``RelyingPartyService/beginAuthentication(_:now:)`` against the
/// `allowCredentials` it sends.
public struct AuthenticationExtensionInputs: Sendable, Hashable {
    /// `prf` (L3 §10.1.4): inputs to evaluate.
    var prf: PRFInputs?
    /// `largeBlob` (L3 §10.1.5): read or write.
    var largeBlob: LargeBlobOperation?
    /// `getCredBlob: true` (CTAP 2.2 §12.2).
    var getCredBlob: Bool
    /// `appid` (L3 §10.1.1): the FIDO AppID (an https URL) of credentials registered with U2F.
    var appid: String?

    /// Creates authentication inputs; the default asks for nothing.
    /// - Parameters:
    ///   - prf: PRF inputs.
    ///   - largeBlob: read or write a large blob.
    ///   - getCredBlob: ask for the credBlob.
    ///   - appid: a legacy AppID.
    public init(
        prf: PRFInputs? = nil, largeBlob: LargeBlobOperation? = nil, getCredBlob: Bool = false,
        appid: String? = nil
    ) {
        self.prf = prf
        self.largeBlob = largeBlob
        self.getCredBlob = getCredBlob
        self.appid = appid
    }

    /// The `extensions` member of the options, or nil when nothing is asked.
    /// - Parameter allowCredentials: the credential ids the options allow (empty: any).
    /// - Throws: ``WebAuthnError`` (`extension`) for an input the client would refuse.
    package func validatedJSON(allowCredentials: [[UInt8]]) throws(WebAuthnError) -> [String: JSONValue]? {
        var out: [String: JSONValue] = [:]
        for definition in ExtensionList.all { try definition.addInput(self, allowCredentials: allowCredentials, to: &out) }
        return out.isEmpty ? nil : out
    }
}
