package import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Verifies an authentication ceremony: W3C WebAuthn Level 3 §7.2, every step in order.
///
/// Stateless: the caller (normally ``RelyingPartyService``) consumes the challenge and
/// looks up the credential record; this checks the response against both and returns
/// the updated record for the caller to store.
package struct AuthenticationVerifier: Sendable {
    /// The relying party.
    let relyingParty: RelyingParty
    /// The policy.
    let policy: VerificationPolicy
    private let cache: VerificationCache?

    /// Creates a verifier.
    /// - Parameters:
    ///   - relyingParty: RP ID and origins.
    ///   - policy: algorithms, attestation and counter policy.
    ///   - cache: credential keys to share between logins, or nil to rebuild each key from its record.
    package init(relyingParty: RelyingParty, policy: VerificationPolicy, cache: VerificationCache? = nil) {
        self.relyingParty = relyingParty
        self.policy = policy
        self.cache = cache
    }

    /// Verifies a response (WebAuthn L3 §7.2) (the service and the tests call it).
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - issued: the challenge issued for this ceremony (already consumed).
    ///   - record: the credential record found for `response.rawId`, or nil when there is none.
    ///   - now: the current time (challenge expiry).
    /// - Returns: the verified authentication; store its ``VerifiedAuthentication/updatedRecord``.
    /// - Throws: ``WebAuthnError``.
    func verify(
        _ response: AuthenticationResponse, issued: IssuedChallenge, record: CredentialRecord?,
        now: Date
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        var trace = CeremonyTrace(recording: false)
        return try verify(response, issued: issued, record: record, now: now, trace: &trace)
    }

    /// Verifies a response and records each step (the replay's `--explain`).
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - issued: the challenge issued for this ceremony (already consumed).
    ///   - record: the credential record found for `response.rawId`, or nil when there is none.
    ///   - now: the current time (challenge expiry).
    ///   - trace: receives every step.
    /// - Returns: the verified authentication with the updated record.
    /// - Throws: ``WebAuthnError``.
    package func verify(
        _ response: AuthenticationResponse, issued: IssuedChallenge, record: consuming CredentialRecord?,
        now: Date, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try verify(response, issued: issued, record: record, now: now, clientData: nil, trace: &trace)
    }

    /// ``verify(_:issued:record:now:trace:)`` with the response's client data when the caller
    /// parsed it already (the service, to find the challenge); nil to parse it here.
    func verify(
        _ response: AuthenticationResponse, issued: IssuedChallenge, record: consuming CredentialRecord?,
        now: Date, clientData parsed: CollectedClientData?,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try CeremonyChecks.verifyPending(issued, steps: .authentication, now: now, trace: &trace)
        // Step 3: the response must be an assertion response of a public-key credential.
        try trace.check("§7.2 step 3", "the credential is a public-key credential") { () throws(WebAuthnError) in
            guard response.type == "public-key" else {
                throw WebAuthnError(.malformed, "credential type is \"\(response.type)\", expected \"public-key\"")
            }
            guard response.idEncodesRawId else {
                throw WebAuthnError(.malformed, "id \"\(response.id)\" is not the base64url of rawId")
            }
        }
        trace.note("§7.2 step 4", "client extension results collected")
        // Step 5: "If pkOptions.allowCredentials is not empty, verify that credential.id identifies one
        // of the public key credentials listed in pkOptions.allowCredentials."
        if issued.allowCredentials.isEmpty {
            trace.skip("§7.2 step 5", "credential is in allowCredentials", because: "allowCredentials is empty")
        } else {
            try trace.check("§7.2 step 5", "credential is in allowCredentials") { () throws(WebAuthnError) in
                guard issued.allowCredentials.contains(response.rawId) else {
                    throw WebAuthnError(.unknownCredential, "credential \(response.id) is not in allowCredentials")
                }
            }
        }
        // Step 6: identify the user and the credential record.
        try trace.check("§7.2 step 6", "the credential record and user handle belong together") { () throws(WebAuthnError) in
            try Self.identify(response: response, issued: issued, record: record)
        }
        // The record, taken over (not copied): it becomes the updated record of step 25.
        guard let record = consume record else {
            // Unreachable: step 6 refused a missing record.
            throw WebAuthnError(.unknownCredential, step: "§7.2 step 6", "no credential record for \(response.id)")
        }
        // Steps 7-14: client data.
        let clientData = try CeremonyChecks.verifyClientData(
            response.members.clientDataJSON, parsed: parsed, steps: .authentication, issued: issued,
            relyingParty: relyingParty, checkingTokenBinding: policy.checksTokenBindingShape, trace: &trace)
        let authData = try trace.check("§7.2 step 7", "authenticatorData parses, nothing left over") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: response.members.authenticatorData)
        }
        // What the options asked of the extensions, read once for steps 15 and 20.
        let askedExtensions = RequestedExtensions(issued.extensions)
        let usedAppID = try trace.check(
            "§7.2 step 15", "rpIdHash is SHA-256 of the RP ID (of the AppID when appid was used)",
            detail: issued.rpId
        ) { () throws(WebAuthnError) in
            try ExtensionChecks.checkAssertionRPIDHash(
                authData, clientOutputs: response.clientExtensionResults,
                asked: askedExtensions, issued: issued, relyingParty: relyingParty)
        }
        try CeremonyChecks.verifyFlags(
            authData, steps: .authentication, userPresenceOptional: policy.userPresenceOptionalInAssertions,
            because: "the policy is the FIDO conformance profile (UP optional in assertions)",
            requirement: issued.userVerification, trace: &trace)
        // Step 19: "If credentialRecord.backupEligible is set, verify that currentBe is set. If
        // credentialRecord.backupEligible is not set, verify that currentBe is not set."
        try trace.check("§7.2 step 19", "BE is unchanged since registration") { () throws(WebAuthnError) in
            let currentBE = authData.flags.contains(.backupEligible)
            guard currentBE == record.backupEligible else {
                throw WebAuthnError(.backupFlags, "BE is \(currentBE) but was \(record.backupEligible) at registration")
            }
        }
        // Step 20: the client and authenticator extension outputs are as expected.
        let extensions = try ExtensionChecks.verifyAuthentication(
            clientOutputs: response.clientExtensionResults, authData: authData, issued: issued, asked: askedExtensions,
            context: .init(credentialId: response.rawId, usedAppID: usedAppID), rejectUnsolicited: policy.rejectUnsolicitedExtensionOutputs,
            trace: &trace)
        // Step 21: "Let hash be the result of computing a hash over the cData using SHA-256."
        // (Held inline: the hash is used once, for the signature, and needs no array.)
        let clientDataHash = Digest.sha256Inline(response.members.clientDataJSON)
        trace.note("§7.2 step 21", "hash = SHA-256(clientDataJSON)")
        // Step 22: "Using credentialRecord.publicKey, verify that sig is a valid signature over the
        // binary concatenation of authData and hash."
        try trace.check("§7.2 step 22", "the signature over authData || hash verifies with the stored key") { () throws(WebAuthnError) in
            let key = try self.credentialKey(record)
            let valid: Bool
            do {
                // authData and hash are streamed to libcrypto as two parts, not joined into a copy.
                valid = try key.verify(
                    signature: response.members.signature, over: response.members.authenticatorData,
                    then: clientDataHash)
            } catch {
                throw WebAuthnError(.signature, "the signature could not be checked: \(error)")
            }
            guard valid else { throw WebAuthnError(.signature, "the signature does not verify with the stored \(key.algorithm) key") }
        }
        // Step 23: "If authData.signCount is nonzero or credentialRecord.signCount is nonzero": the new
        // count must be greater; otherwise the authenticator may be cloned.
        var counterRegressed = false
        if authData.signCount == 0 && record.signCount == 0 {
            trace.skip("§7.2 step 23", "signCount increased", because: "both counters are zero")
        } else {
            try trace.check(
                "§7.2 step 23", "signCount increased",
                detail: "stored \(record.signCount), received \(authData.signCount)"
            ) { () throws(WebAuthnError) in
                guard authData.signCount <= record.signCount else { return }
                switch policy.counter {
                case .reject:
                    throw WebAuthnError(
                        .signCount,
                        "signCount \(authData.signCount) is not greater than the stored \(record.signCount): possible cloned authenticator")
                case .acceptAndFlag:
                    counterRegressed = true
                }
            }
        }
        trace.skip("§7.2 step 24", "attestation in the assertion", because: "no attestation requested in assertions")
        // Step 25: update the credential record (the record itself, moved, not a copy of it).
        var updated = consume record
        updated.signCount = counterRegressed ? max(updated.signCount, authData.signCount) : authData.signCount
        updated.backupState = authData.flags.contains(.backupState)
        if authData.flags.contains(.userVerified) { updated.uvInitialized = true }
        updated.extensions = updated.extensions.updated(by: extensions)
        trace.note(
            "§7.2 step 25", "credential record updated",
            detail: "signCount \(updated.signCount), BS \(updated.backupState), uvInitialized \(updated.uvInitialized)")
        return VerifiedAuthentication(
            updatedRecord: updated, authenticatorData: authData, clientData: clientData,
            counterRegressed: counterRegressed, extensions: extensions)
    }

    /// §7.2 step 6: the identified user (or, for a discoverable login, the user handle)
    /// must own the credential record.
    /// The user handles are compared as slices of the response's buffer (no array made).
    static func identify(
        response: AuthenticationResponse, issued: IssuedChallenge,
        record: CredentialRecord?
    ) throws(WebAuthnError) {
        guard let record else {
            throw WebAuthnError(.unknownCredential, "no credential record for \(response.id)")
        }
        // "… a credential record whose id equals credential.rawId": the caller's lookup is not
        // trusted to have found it (a store comparing ids case-insensitively as base64 text
        // would hand back another credential's record, which would then be updated).
        guard record.id.elementsEqual(response.rawId) else {
            throw WebAuthnError(.unknownCredential, "the credential record found for \(response.id) has another id")
        }
        if let user = issued.userHandle {
            // "If the user was identified before the authentication ceremony was initiated, verify that
            // the identified user account contains a credential record whose id equals credential.rawId."
            guard record.userHandle == user else {
                throw WebAuthnError(.unknownCredential, "credential \(response.id) does not belong to the identified user")
            }
            // "If response.userHandle is present, verify that it equals the user handle of the user account."
            if let handle = response.members.userHandle, !handle.elementsEqual(user) {
                throw WebAuthnError(.userHandle, "response.userHandle differs from the identified user's handle")
            }
        } else if issued.allowCredentials.isEmpty {
            // Discoverable login: "verify that response.userHandle is present. Verify that the user
            // account identified by response.userHandle contains a credential record whose id equals
            // credential.rawId."
            guard let handle = response.members.userHandle else {
                throw WebAuthnError(.userHandle, "a discoverable login must return a user handle")
            }
            guard let owner = record.userHandle, handle.elementsEqual(owner) else {
                throw WebAuthnError(.userHandle, "response.userHandle differs from the credential record's user handle")
            }
        } else if let handle = response.members.userHandle, let owner = record.userHandle, !handle.elementsEqual(owner) {
            // The user was identified through allowCredentials; a returned handle must still match.
            throw WebAuthnError(.userHandle, "response.userHandle differs from the credential record's user handle")
        }
    }

    private func credentialKey(_ record: CredentialRecord) throws(WebAuthnError) -> COSEKey {
        if let cached = cache?.keys.key(for: record) { return cached }
        do throws(CryptoError) {
            let options = CeremonyChecks.credentialKeyOptions(offered: [COSEAlgorithm(rawValue: record.algorithm)], policy: policy)
            let key = try COSEKey(cbor: record.publicKey[...], options: options)
            cache?.keys.insert(key, for: record)
            return key
        } catch {
            throw CeremonyChecks.coseKeyError(error, context: "stored credential public key")
        }
    }
}
