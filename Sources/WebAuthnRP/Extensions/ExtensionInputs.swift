import Foundation
import WebAuthnCoding

// Typed client extension inputs (WebAuthn L3 §9, §10; CTAP 2.2 §12). A server fills these in the
// options builders; they are validated the way the client would validate them, then rendered as
// the options' `extensions` member (bytes as base64url, as in the L3 JSON serialization).

/// One or two PRF evaluation inputs (`AuthenticationExtensionsPRFValues`, L3 §10.1.4). The client
/// hashes each with the context string "WebAuthn PRF" before the authenticator sees it.
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
    public var eval: PRFValues?
    /// Authentication only: inputs per credential id, which take precedence over ``eval``.
    /// Every key must be the id of a credential in `allowCredentials`.
    public var evalByCredential: [[UInt8]: PRFValues]

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

/// `largeBlob.support` at registration (L3 §10.1.5).
public enum LargeBlobSupport: String, Sendable, Hashable, Codable {
    /// The credential must be created on an authenticator that can store large blobs.
    case required
    /// Large-blob support is wanted but not required.
    case preferred
}

/// The `largeBlob` input at authentication (L3 §10.1.5): read the blob, or write one.
public enum LargeBlobOperation: Sendable, Hashable {
    /// `read: true`: return the stored blob.
    case read
    /// `write`: store these bytes. `allowCredentials` must name exactly one credential.
    case write([UInt8])
}

/// The credential protection policy asked of the authenticator (CTAP 2.2 §12.1, `credProtect`).
public enum CredentialProtectionPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Level 1: the credential is usable without user verification.
    case userVerificationOptional
    /// Level 2: discoverable use needs UV; use with the credential id in an allow list does not.
    case userVerificationOptionalWithCredentialIDList
    /// Level 3: every use needs user verification.
    case userVerificationRequired

    /// The CTAP level, 1 to 3.
    public var level: Int {
        switch self {
        case .userVerificationOptional: return 1
        case .userVerificationOptionalWithCredentialIDList: return 2
        case .userVerificationRequired: return 3
        }
    }
}

/// The client extension inputs of a registration. Each is validated by
/// ``RelyingPartyService/beginRegistration(_:now:)`` before the options are sent.
public struct RegistrationExtensionInputs: Sendable, Hashable {
    /// `credProps: true`: ask whether the credential is discoverable (L3 §10.1.3).
    public var credProps: Bool
    /// `prf`: ask for PRF support, optionally evaluating ``PRFInputs/eval`` (L3 §10.1.4).
    /// `evalByCredential` is not allowed at registration.
    public var prf: PRFInputs?
    /// `largeBlob.support` (L3 §10.1.5).
    public var largeBlob: LargeBlobSupport?
    /// `credentialProtectionPolicy` (CTAP 2.2 §12.1).
    public var credentialProtectionPolicy: CredentialProtectionPolicy?
    /// `enforceCredentialProtectionPolicy`: a credential protected below the policy is then refused.
    public var enforceCredentialProtectionPolicy: Bool
    /// `minPinLength: true` (CTAP 2.2 §12.4): ask for the authenticator's minimum PIN length.
    public var minPinLength: Bool
    /// `hmacCreateSecret: true` (CTAP 2.2 §12.5, `hmac-secret`).
    public var hmacCreateSecret: Bool
    /// `credBlob` (CTAP 2.2 §12.2): 1 to 32 bytes to store with the credential.
    public var credBlob: [UInt8]?
    /// `appidExclude` (L3 §10.1.2): the FIDO AppID (an https URL) whose U2F credentials to exclude.
    public var appidExclude: String?

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
    public init(credProps: Bool = false, prf: PRFInputs? = nil, largeBlob: LargeBlobSupport? = nil,
                credentialProtectionPolicy: CredentialProtectionPolicy? = nil,
                enforceCredentialProtectionPolicy: Bool = false, minPinLength: Bool = false,
                hmacCreateSecret: Bool = false, credBlob: [UInt8]? = nil, appidExclude: String? = nil) {
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

/// The client extension inputs of an authentication. Each is validated by
/// ``RelyingPartyService/beginAuthentication(_:now:)`` against the `allowCredentials` it sends.
public struct AuthenticationExtensionInputs: Sendable, Hashable {
    /// `prf` (L3 §10.1.4): inputs to evaluate.
    public var prf: PRFInputs?
    /// `largeBlob` (L3 §10.1.5): read or write.
    public var largeBlob: LargeBlobOperation?
    /// `getCredBlob: true` (CTAP 2.2 §12.2).
    public var getCredBlob: Bool
    /// `appid` (L3 §10.1.1): the FIDO AppID (an https URL) of credentials registered with U2F.
    public var appid: String?

    /// Creates authentication inputs; the default asks for nothing.
    /// - Parameters:
    ///   - prf: PRF inputs.
    ///   - largeBlob: read or write a large blob.
    ///   - getCredBlob: ask for the credBlob.
    ///   - appid: a legacy AppID.
    public init(prf: PRFInputs? = nil, largeBlob: LargeBlobOperation? = nil, getCredBlob: Bool = false,
                appid: String? = nil) {
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
