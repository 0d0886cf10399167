import WebAuthnCoding

/// `credProtect` (CTAP 2.2 §12.1; `credentialProtectionPolicy` in the client input): the
/// protection level the authenticator applied to a new credential.
struct CredProtectExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        if let policy = inputs.credentialProtectionPolicy {
            json["credentialProtectionPolicy"] = .string(policy.rawValue)
            if inputs.enforceCredentialProtectionPolicy { json["enforceCredentialProtectionPolicy"] = .bool(true) }
        } else if inputs.enforceCredentialProtectionPolicy {
            throw WebAuthnError(.extension, "enforceCredentialProtectionPolicy needs a credentialProtectionPolicy")
        }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "credProtect" || name == "credentialProtectionPolicy" ? asked.credProtectLevel != nil : nil
    }

    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? {
        identifier == "credProtect" ? asked.credProtectLevel != nil : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        // The level applied; below the asked level is refused when the relying party enforced
        // its policy.
        if let level = exchange.authenticator.credProtect { results.credentialProtection = CredentialProtectionLevel(rawValue: level) }
        if let level = exchange.asked.credProtectLevel, level > 1, exchange.asked.enforceCredProtect {
            let applied = exchange.authenticator.credProtect ?? 1
            guard applied >= level else {
                throw WebAuthnError(
                    .extension,
                    "credProtect level \(applied) is below the enforced level \(level)")
            }
        }
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        results.credentialProtection.map { [("credProtect", "level \($0.rawValue)")] } ?? []
    }
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
    var level: Int {
        switch self {
        case .userVerificationOptional: return 1
        case .userVerificationOptionalWithCredentialIDList: return 2
        case .userVerificationRequired: return 3
        }
    }
}

/// The protection level an authenticator applied to a credential (CTAP 2.2 §12.1, `credProtect`).
public enum CredentialProtectionLevel: Int, Sendable, Hashable, Codable, Comparable {
    /// 1: usable without user verification.
    case userVerificationOptional = 1
    /// 2: discoverable use needs user verification.
    case userVerificationOptionalWithCredentialIDList = 2
    /// 3: every use needs user verification.
    case userVerificationRequired = 3

    /// Orders by level.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
