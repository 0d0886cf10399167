import WebAuthnCoding
import WebAuthnCrypto

/// Verifies extension outputs against their definitions and against what the relying party
/// asked for (WebAuthn L3 §7.1 step 21 / §7.2 step 20, §9, §10; CTAP 2.2 §12). One entry point
/// per ceremony, plus the appid rule of §7.2 step 15.
enum ExtensionChecks {
    /// The PRF output length (HMAC-SHA-256).
    static let prfOutputLength = 32

    // MARK: Registration

    /// §7.1 step 21: the registration's client and authenticator extension outputs.
    static func verifyRegistration(clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
                                   issued: IssuedChallenge,
                                   policy: ExtensionPolicy) throws(WebAuthnError) -> RegistrationExtensionResults {
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil { return RegistrationExtensionResults() }
        let asked = RequestedExtensions(issued.extensions)
        let client = try ClientExtensionOutputs(json: json)
        let authenticator = try authenticatorOutputs(authData, ceremony: .registration)
        if policy.rejectUnsolicitedOutputs {
            try rejectUnsolicited(client: client, authenticator: authenticator, asked: asked)
        }
        var results = RegistrationExtensionResults()
        // credProps (L3 §10.1.3): rk, a boolean, when the client knows it. A statement about the
        // credential, so it is reported also when a client volunteers it.
        if let props = client.credProps { results.residentKey = props }
        // prf (L3 §10.1.4). Unasked, only `enabled` (a statement about the credential) is reported.
        if !asked.prf, let prf = client.prf { results.prfEnabled = prf.enabled }
        if asked.prf, let prf = client.prf {
            results.prfEnabled = prf.enabled
            if prf.hasResults {
                guard let evaluation = asked.prfEval else {
                    throw WebAuthnError(.extension, "prf.results arrived but no evaluation (prf.eval) was asked for")
                }
                if prf.enabled == false {
                    throw WebAuthnError(.extension, "prf.results arrived with prf.enabled false")
                }
                results.prfResults = try prfResults(prf, evaluation: evaluation)
            }
        }
        // largeBlob (L3 §10.1.5): at registration only `supported`; unasked, `supported` is reported.
        if asked.largeBlobSupport == nil, let supported = client.largeBlob?.supported {
            results.largeBlob = LargeBlobResult(supported: supported, blob: nil, written: nil)
        }
        if let support = asked.largeBlobSupport, let largeBlob = client.largeBlob {
            guard largeBlob.blob == nil, largeBlob.written == nil else {
                throw WebAuthnError(.extension, "largeBlob.blob and largeBlob.written are not registration outputs")
            }
            if support == LargeBlobSupport.required.rawValue, largeBlob.supported == false {
                throw WebAuthnError(.extension, "largeBlob support was required and the client reports supported false")
            }
            results.largeBlob = LargeBlobResult(supported: largeBlob.supported, blob: nil, written: nil)
        }
        // credProtect (CTAP 2.2 §12.1): the level applied; below the asked level is refused when
        // the relying party enforced its policy.
        if let level = authenticator.credProtect { results.credentialProtection = CredentialProtectionLevel(rawValue: level) }
        if let level = asked.credProtectLevel, level > 1, asked.enforceCredProtect {
            let applied = authenticator.credProtect ?? 1
            guard applied >= level else {
                throw WebAuthnError(.extension,
                                    "credProtect level \(applied) is below the enforced level \(level)")
            }
        }
        results.minPinLength = authenticator.minPinLength
        // hmac-secret: the authenticator says whether it created the secret; hmacCreateSecret echoes it.
        results.hmacSecret = authenticator.hmacSecret ?? (asked.hmacCreateSecret ? client.hmacCreateSecret : nil)
        results.credBlob = authenticator.credBlobStored ?? (asked.credBlob ? client.credBlob : nil)
        if asked.appidExclude != nil { results.appidExclude = client.appidExclude }
        return results
    }

    // MARK: Authentication

    /// §7.2 step 15 with the appid extension (L3 §10.1.1): when the relying party sent `appid`
    /// and the client reports `appid: true`, rpIdHash must be SHA-256 of the AppID; otherwise
    /// SHA-256 of the RP ID. `appid: true` that was not asked for is `extension`; an rpIdHash
    /// that is not the one the client's answer implies is `rpIdHash`.
    /// - Returns: whether the AppID was used.
    static func checkAssertionRPIDHash(_ authData: AuthenticatorData, clientOutputs json: [String: JSONValue],
                                       issued: IssuedChallenge, relyingParty: RelyingParty) throws(WebAuthnError) -> Bool {
        var usedAppID = false
        if let value = json["appid"] {
            guard let used = value.boolValue else {
                throw WebAuthnError(.extension, "client extension output appid is not a boolean")
            }
            usedAppID = used
        }
        guard usedAppID else {
            try CeremonyChecks.checkRPIDHash(authData, rpId: issued.rpId, relyingParty: relyingParty)
            return false
        }
        guard let appid = RequestedExtensions(issued.extensions).appid else {
            throw WebAuthnError(.extension, "the client reports appid true but the appid extension was not asked for")
        }
        guard ConstantTime.equals(authData.rpIdHash, Digest.sha256.hash(Array(appid.utf8))) else {
            throw WebAuthnError(.rpIdHash, "the client used the AppID but rpIdHash is not SHA-256(\"\(appid)\")")
        }
        return true
    }

    /// §7.2 step 20: the assertion's client and authenticator extension outputs.
    static func verifyAuthentication(clientOutputs json: [String: JSONValue], authData: AuthenticatorData,
                                     credentialId: [UInt8], issued: IssuedChallenge,
                                     policy: ExtensionPolicy) throws(WebAuthnError) -> AuthenticationExtensionResults {
        // The common login asks for nothing and gets nothing: no work beyond three checks.
        if json.isEmpty, authData.extensions == nil, issued.extensions == nil { return AuthenticationExtensionResults() }
        let asked = RequestedExtensions(issued.extensions)
        let client = try ClientExtensionOutputs(json: json)
        let authenticator = try authenticatorOutputs(authData, ceremony: .authentication)
        if policy.rejectUnsolicitedOutputs {
            try rejectUnsolicited(client: client, authenticator: authenticator, asked: asked)
        }
        var results = AuthenticationExtensionResults()
        if asked.prf, let prf = client.prf {
            // L3 §10.1.4 (and its test vectors): enabled is a registration output only.
            guard prf.enabled == nil else {
                throw WebAuthnError(.extension, "prf.enabled is not an authentication output")
            }
            if prf.hasResults {
                // The inputs chosen for this credential: its evalByCredential entry, else eval.
                guard let evaluation = asked.prfEvalByCredential[Base64URL.encode(credentialId)] ?? asked.prfEval else {
                    throw WebAuthnError(.extension, "prf.results arrived but no evaluation was asked for this credential")
                }
                results.prfResults = try prfResults(prf, evaluation: evaluation)
            }
        }
        if asked.largeBlob, let largeBlob = client.largeBlob {
            guard largeBlob.supported == nil else {
                throw WebAuthnError(.extension, "largeBlob.supported is not an authentication output")
            }
            if largeBlob.blob != nil, !asked.largeBlobRead {
                throw WebAuthnError(.extension, "largeBlob.blob arrived but read was not asked for")
            }
            if largeBlob.written != nil, !asked.largeBlobWrite {
                throw WebAuthnError(.extension, "largeBlob.written arrived but write was not asked for")
            }
            results.largeBlob = LargeBlobResult(supported: nil, blob: largeBlob.blob, written: largeBlob.written)
        }
        if asked.getCredBlob {
            results.credBlob = authenticator.credBlob ?? client.getCredBlob
        }
        if authenticator.hmacSecretOutput != nil { results.hmacSecret = true }
        // The rpIdHash rule was applied at step 15; here the answer is reported.
        if asked.appid != nil { results.appid = client.appid ?? false }
        return results
    }

    // MARK: Shared

    private static func authenticatorOutputs(_ authData: AuthenticatorData,
                                             ceremony: CeremonyKind) throws(WebAuthnError) -> AuthenticatorExtensionOutputs {
        guard let map = authData.extensions else { return AuthenticatorExtensionOutputs() }
        try CeremonyChecks.checkExtensionsCanonical(authData)
        return try AuthenticatorExtensionOutputs(map: map, ceremony: ceremony)
    }

    /// PRF results: 32 bytes each; `second` present exactly when a second input was given.
    private static func prfResults(_ prf: ClientExtensionOutputs.PRF,
                                   evaluation: RequestedExtensions.PRFEvaluation) throws(WebAuthnError) -> PRFResults? {
        guard let first = prf.first else { return nil }
        guard first.count == prfOutputLength else {
            throw WebAuthnError(.extension, "prf.results.first is \(first.count) bytes, expected \(prfOutputLength)")
        }
        if let second = prf.second {
            guard evaluation.second else {
                throw WebAuthnError(.extension, "prf.results.second arrived but no second input was given")
            }
            guard second.count == prfOutputLength else {
                throw WebAuthnError(.extension, "prf.results.second is \(second.count) bytes, expected \(prfOutputLength)")
            }
        } else if evaluation.second {
            throw WebAuthnError(.extension, "prf.results.second is missing although a second input was given")
        }
        return PRFResults(first: first, second: prf.second)
    }

    private static func rejectUnsolicited(client: ClientExtensionOutputs, authenticator: AuthenticatorExtensionOutputs,
                                          asked: RequestedExtensions) throws(WebAuthnError) {
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
