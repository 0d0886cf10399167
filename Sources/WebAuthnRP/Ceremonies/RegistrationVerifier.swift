package import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Verifies a registration ceremony: W3C WebAuthn Level 3 §7.1, every step in order.
///
/// Stateless: it checks a response against the challenge that was issued (already
/// consumed by the caller) and the relying party's policy. Checking that the
/// credential id is new and storing the record (steps 27-28) belong to the registry
/// (``RelyingPartyService``), which owns the credential store.
package struct RegistrationVerifier: Sendable {
    /// The relying party.
    let relyingParty: RelyingParty
    /// The policy.
    let policy: VerificationPolicy
    let formats: AttestationFormatTable
    private let cache: VerificationCache?

    /// Creates a verifier.
    /// - Parameters:
    ///   - relyingParty: RP ID and origins.
    ///   - policy: algorithms, attestation and counter policy.
    ///   - cache: parsed attestation certificates to share between ceremonies, or nil to keep none.
    package init(relyingParty: RelyingParty, policy: VerificationPolicy, cache: VerificationCache? = nil) {
        self.relyingParty = relyingParty
        self.policy = policy
        self.formats = .standard
        self.cache = cache
    }

    /// Verifies a response (WebAuthn L3 §7.1) (the service and the tests call it).
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - issued: the challenge issued for this ceremony (already consumed).
    ///   - now: the current time: challenge expiry and certificate validity.
    ///   - keepAttestation: keep the raw attestation object and client data in the record.
    /// - Returns: the verified registration; store its ``VerifiedRegistration/record``.
    /// - Throws: ``WebAuthnError``.
    func verify(
        _ response: RegistrationResponse, issued: IssuedChallenge, now: Date,
        keepAttestation: Bool = false
    ) throws(WebAuthnError) -> VerifiedRegistration {
        var trace = CeremonyTrace(recording: false)
        return try verify(response, issued: issued, now: now, keepAttestation: keepAttestation, trace: &trace)
    }

    /// Verifies a response and records each step (the replay's `--explain`).
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - issued: the challenge issued for this ceremony (already consumed).
    ///   - now: the current time: challenge expiry and certificate validity.
    ///   - keepAttestation: keep the raw attestation object and client data in the record.
    ///   - trace: receives every step.
    /// - Returns: the verified registration.
    /// - Throws: ``WebAuthnError``.
    package func verify(
        _ response: RegistrationResponse, issued: IssuedChallenge, now: Date,
        keepAttestation: Bool = false, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try verify(response, issued: issued, now: now, keepAttestation: keepAttestation, clientData: nil, trace: &trace)
    }

    /// ``verify(_:issued:now:keepAttestation:trace:)`` with the response's client data when the
    /// caller parsed it already (the service, to find the challenge); nil to parse it here.
    func verify(
        _ response: RegistrationResponse, issued: IssuedChallenge, now: Date,
        keepAttestation: Bool, clientData parsed: CollectedClientData?,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try CeremonyChecks.verifyPending(issued, steps: .registration, now: now, trace: &trace)
        // Step 3: "If response is not an instance of AuthenticatorAttestationResponse, abort."
        try trace.check("§7.1 step 3", "the credential is a public-key credential") { () throws(WebAuthnError) in
            guard response.type == "public-key" else {
                throw WebAuthnError(.malformed, "credential type is \"\(response.type)\", expected \"public-key\"")
            }
        }
        // Step 28 stores response.getTransports() in the record, which goes back to clients in every
        // allowCredentials: the list is bounded (not a spec rule) and kept without repeats. Checked
        // with the response's shape, before any work.
        let transports = try trace.check(
            "§7.1 step 3", "response.getTransports(): at most 16 names of at most 32 bytes",
            detail: response.transports.prefix(16).joined(separator: ", ")
        ) { () throws(WebAuthnError) in
            try Self.storableTransports(response.transports)
        }
        trace.note("§7.1 step 4", "client extension results collected")
        // Steps 5-11: client data.
        let clientData = try CeremonyChecks.verifyClientData(
            response.clientDataJSON[...], parsed: parsed, steps: .registration, issued: issued,
            relyingParty: relyingParty, checkingTokenBinding: policy.checksTokenBindingShape, trace: &trace)
        // Step 12: "Let hash be the result of computing a hash over response.clientDataJSON using SHA-256."
        let clientDataHash = Digest.sha256.hash(response.clientDataJSON)
        trace.note("§7.1 step 12", "hash = SHA-256(clientDataJSON)")
        // Step 13: CBOR-decode the attestation object into fmt, authData and attStmt.
        let attestationObject = try trace.check("§7.1 step 13", "attestationObject decodes to fmt, authData, attStmt") {
            () throws(WebAuthnError) in
            try AttestationObject(bytes: response.attestationObject[...])
        }
        let authData = attestationObject.authenticatorData
        let attested = try trace.check("§7.1 step 13", "authData carries attested credential data bound to the response id") {
            () throws(WebAuthnError) in
            guard authData.flags.contains(.attestedCredentialData), let attested = authData.attestedCredentialData else {
                throw WebAuthnError(.malformed, "authData has no attested credential data (AT flag clear)")
            }
            // The credential id is taken from authData; the client-supplied id and rawId must agree with it.
            guard attested.credentialId.elementsEqual(response.rawId) else {
                throw WebAuthnError(.malformed, "rawId differs from the credential id in authenticator data")
            }
            guard response.idEncodesRawId else {
                throw WebAuthnError(.malformed, "id \"\(response.id)\" is not the base64url of rawId")
            }
            return attested
        }
        try trace.check("§7.1 step 14", "rpIdHash is SHA-256 of the RP ID", detail: issued.rpId) { () throws(WebAuthnError) in
            try CeremonyChecks.checkRPIDHash(authData, rpId: issued.rpId, relyingParty: relyingParty)
        }
        try CeremonyChecks.verifyFlags(
            authData, steps: .registration, userPresenceOptional: issued.conditionalCreate,
            requirement: issued.userVerification, trace: &trace)
        trace.note(
            "§7.1 steps 18-19", "BE and BS recorded for the caller's policy",
            detail: "BE \(authData.flags.contains(.backupEligible)) BS \(authData.flags.contains(.backupState))")
        let credentialKey = try trace.check("§7.1 step 20", "the credential key's alg was offered and is accepted") {
            () throws(WebAuthnError) in
            // The client creates credentials only with an offered algorithm (§5.1.3: ES256 and
            // RS256 when pubKeyCredParams was empty; nothing when every entry had an unknown type).
            let offered = issued.offeredAlgorithms
            guard !offered.isEmpty else {
                throw WebAuthnError(.algorithm, "pubKeyCredParams offered no public-key algorithm, so no credential can answer it")
            }
            // The key was decoded in CTAP2 canonical form with the authenticator data (L3 §2.5),
            // so the record stores canonical bytes. Keys read back from storage are not held to it.
            let options = CeremonyChecks.credentialKeyOptions(offered: offered, policy: policy)
            let key: COSEKey
            do throws(CryptoError) {
                key = try COSEKey(item: attested.credentialPublicKey, options: options)
            } catch {
                throw CeremonyChecks.coseKeyError(error, context: "credential public key")
            }
            guard offered.contains(key.algorithm) else {
                throw WebAuthnError(.algorithm, "credential algorithm \(key.algorithm) was not offered in pubKeyCredParams \(offered)")
            }
            guard policy.acceptedAlgorithms.contains(key.algorithm) else {
                throw WebAuthnError(.algorithm, "credential algorithm \(key.algorithm) is not accepted by policy")
            }
            return key
        }
        // Step 21: "Verify that the values of the client extension outputs in clientExtensionResults and
        // the authenticator extension outputs in the extensions in authData are as expected."
        let extensions = try ExtensionChecks.verifyRegistration(
            clientOutputs: response.clientExtensionResults, authData: authData,
            issued: issued, rejectUnsolicited: policy.rejectUnsolicitedExtensionOutputs, trace: &trace)
        // Step 22: "Determine the attestation statement format by performing a USASCII case-sensitive
        // match on fmt against the set of supported WebAuthn Attestation Statement Format Identifier values."
        let format = try trace.check(
            "§7.1 step 22", "fmt is a supported attestation format",
            detail: attestationObject.format
        ) { () throws(WebAuthnError) -> any AttestationFormat in
            if let allowed = policy.attestation.allowedFormats, !allowed.contains(attestationObject.format) {
                throw WebAuthnError(.attestation, "attestation format \"\(attestationObject.format)\" is not allowed by policy")
            }
            guard let format = formats.format(attestationObject.format) else {
                throw WebAuthnError(.attestation, "unsupported attestation format \"\(attestationObject.format)\"")
            }
            return format
        }
        // Step 23: run the format's verification procedure over attStmt, authData and hash.
        let context = AttestationContext(
            format: format.identifier, statement: attestationObject.statement, authenticatorData: authData,
            clientDataHash: clientDataHash, credentialKey: credentialKey,
            attestedCredential: attested, options: policy.attestation.formats,
            allowedFormats: policy.attestation.allowedFormats,
            verificationTime: now, formats: formats, certificateCache: cache?.certificates)
        let outcome = try trace.check("§7.1 step 23", "attStmt is a valid \(attestationObject.format) statement") {
            () throws(WebAuthnError) in
            try format.verify(context)
        }
        // Step 24: "Obtain a list of acceptable trust anchors … for that attestation type and attestation
        // statement format fmt, from a trusted source": the requirement's source (fixed roots, FIDO
        // metadata, or the caller's own), which may refuse the authenticator outright (`metadata`).
        let (verdict, authenticatorTrust) = try trace.check(
            "§7.1 step 24", "trust anchors for this authenticator",
            detail: attested.aaguid.uuidString
        ) { () throws(WebAuthnError) in
            try AttestationTrustEvaluator.assess(
                outcome, format: attestationObject.format, aaguid: attested.aaguid,
                policy: policy.attestation, at: now)
        }
        // Step 25: assess the trust path against those anchors.
        trace.note(
            "§7.1 step 25", "attestation trust assessed",
            detail: verdict.trusted ? "trusted" : "untrusted: \(verdict.reason ?? "")")
        // Step 26: "Verify that the credentialId is ≤ 1023 bytes." AuthenticatorData refuses a longer id
        // while parsing (step 13, category malformed), so by here it always holds.
        trace.note(
            "§7.1 step 26", "credentialId is at most 1023 bytes",
            detail: "\(attested.credentialId.count) bytes; enforced by the authenticator data parser")
        // Step 29 (checked before the registry's steps 27-28 so nothing is stored): an attestation that
        // verified but is not trustworthy fails the ceremony when the policy requires trust. The same
        // step reconciles the requested conveyance with what arrived: a `none` answering a `direct` or
        // `enterprise` request is refused only when the policy says so.
        try trace.check(
            "§7.1 step 29", "untrusted attestation rejected when trust is required",
            detail: "requested \(issued.attestation?.rawValue ?? "none"), received \(outcome.type.rawValue)"
        ) { () throws(WebAuthnError) in
            let requested = issued.attestation ?? AttestationConveyancePreference.none
            try policy.attestation.check(
                type: outcome.type, trusted: verdict.trusted,
                reason: verdict.reason, requested: requested)
        }
        let record = CredentialRecord(
            id: Array(attested.credentialId), publicKey: credentialKey.cborBytes, signCount: authData.signCount,
            userHandle: issued.userHandle, uvInitialized: authData.flags.contains(.userVerified),
            backupEligible: authData.flags.contains(.backupEligible), backupState: authData.flags.contains(.backupState),
            transports: transports, aaguid: attested.aaguid.uuidString,
            attestationFormat: attestationObject.format, attestationType: outcome.type,
            attestationTrusted: verdict.trusted,
            attestationObject: keepAttestation ? response.attestationObject : nil,
            registrationClientDataJSON: keepAttestation ? response.clientDataJSON : nil,
            extensions: CredentialExtensionProperties(extensions))
        let attestation = AttestationResult(
            format: attestationObject.format, outcome: outcome, verdict: verdict,
            authenticator: authenticatorTrust,
            providerName: policy.passkeyProviders.name(of: attested.aaguid))
        return VerifiedRegistration(
            record: record, attestation: attestation, authenticatorData: authData,
            clientData: clientData, credentialKey: credentialKey, extensions: extensions)
    }
}

extension RegistrationVerifier {
    /// The most transport names a registration may report (§5.8.4 defines six).
    static let maximumTransports = 16
    /// The longest transport name, in UTF-8 bytes (the longest defined, `smart-card`, has 10).
    static let maximumTransportNameBytes = 32

    /// The transports as the record keeps them: each name once, in the order given. Unknown
    /// names are kept (clients ignore them), but more than ``maximumTransports`` names or a name
    /// over ``maximumTransportNameBytes`` bytes is `malformed`: the list is stored and sent back.
    static func storableTransports(_ names: [String]) throws(WebAuthnError) -> [String] {
        guard names.count <= maximumTransports else {
            throw WebAuthnError(
                .malformed, step: "§7.1 step 3",
                "response.transports holds \(names.count) names, more than \(maximumTransports)")
        }
        var kept: [String] = []
        for name in names {
            guard name.utf8.count <= maximumTransportNameBytes else {
                throw WebAuthnError(
                    .malformed, step: "§7.1 step 3",
                    "a transport name of \(name.utf8.count) bytes is longer than \(maximumTransportNameBytes)")
            }
            if !kept.contains(name) { kept.append(name) }
        }
        return kept
    }
}
