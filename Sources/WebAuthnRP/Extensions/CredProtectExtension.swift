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

    func checkRegistration(client: ClientExtensionOutputs, authenticator: AuthenticatorExtensionOutputs,
                           asked: RequestedExtensions, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        // The level applied; below the asked level is refused when the relying party enforced
        // its policy.
        if let level = authenticator.credProtect { results.credentialProtection = CredentialProtectionLevel(rawValue: level) }
        if let level = asked.credProtectLevel, level > 1, asked.enforceCredProtect {
            let applied = authenticator.credProtect ?? 1
            guard applied >= level else {
                throw WebAuthnError(.extension,
                                    "credProtect level \(applied) is below the enforced level \(level)")
            }
        }
    }
}
