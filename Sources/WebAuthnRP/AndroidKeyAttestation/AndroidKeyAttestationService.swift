public import Foundation
public import WebAuthnCrypto

/// Android key attestation for a server: proves that requests come from the relying party's own
/// Android app, signed by a key that the device's secure hardware generated for that app, on a
/// device whose boot was verified. The Android counterpart of ``AppAttestService``.
///
/// Three endpoints use it: one giving the app a challenge (``issueChallenge(now:)``); one
/// receiving the certificate chain of a Keystore key the app generated with
/// `setAttestationChallenge(SHA-256(challenge))`
/// (``verifyAttestation(certificateChain:challenge:now:)``), which verifies it against Google's
/// hardware attestation roots, the attestation status list, the policy and the declared apps,
/// and stores the key; and every protected route, receiving a request signed with that key
/// (``verifyAssertion(keyId:counter:signature:binding:consumingChallenge:method:path:body:now:)``,
/// the layout in the article "Android app integrity"). Challenges travel on the server's
/// ``ChallengeTransport`` as a kind of their own (``CeremonyKind/androidKeyAttestation``) and
/// are used up first, whatever the verdict. Every rejection is a ``WebAuthnError`` whose step
/// names the check (`Android key attestation root of trust`). Create one per process and keep it.
public struct AndroidKeyAttestationService: Sendable {
    /// The attested keys.
    public let keys: any AndroidAppKeyStore
    let verifier: AndroidKeyAttestationVerifier
    /// The service's challenges on the server's transport.
    let challenges: AppChallenges

    /// Creates a service.
    /// - Parameters:
    ///   - apps: the Android apps whose keys are accepted (package name and signing-certificate
    ///     fingerprint; for Play App Signing, Google's app signing certificate), the apps the
    ///     relying party declares. A key of an app signed with another certificate (a debug
    ///     build) is refused.
    ///   - policy: what an attestation must establish (default: TEE or StrongBox, verified boot,
    ///     locked bootloader, no minimum versions).
    ///   - trustAnchors: the roots a chain must end in (default: Google's hardware attestation
    ///     roots, ``KnownAttestationRoots/googleHardwareAttestationRoots``).
    ///   - statusList: revoked and suspended attestation certificates (default: the list shipped
    ///     with the library, ``AndroidAttestationStatusList/snapshot``; load a newer one daily).
    ///   - challenges: how challenges travel (default: stored in a bounded in-memory store); pass
    ///     the transport the server's ``RelyingPartyService`` has.
    ///   - challengeLifetime: seconds an issued challenge stays answerable (default 300).
    ///   - keys: the key store (default: bounded, in memory).
    public init(
        apps: [AndroidApp], policy: AndroidKeyAttestationPolicy = AndroidKeyAttestationPolicy(),
        trustAnchors: [Certificate] = KnownAttestationRoots.googleHardwareAttestationRoots,
        statusList: AndroidAttestationStatusList = .snapshot,
        challenges: ChallengeTransport = .stored(InMemoryChallengeStore()), challengeLifetime: TimeInterval = 300,
        keys: any AndroidAppKeyStore = InMemoryAndroidAppKeyStore()
    ) {
        self.verifier = AndroidKeyAttestationVerifier(
            apps: apps, policy: policy, trustAnchors: trustAnchors, statusList: statusList, cache: VerificationCache())
        self.challenges = AppChallenges(
            transport: challenges, lifetime: challengeLifetime, kind: .androidKeyAttestation,
            storedTag: Self.storedChallengeTag, boundTo: apps.map(\.packageName).sorted().joined(separator: ","),
            service: "Android key attestation")
        self.keys = keys
    }

    /// Uses up the challenge, then verifies a key attestation chain and stores the key.
    /// - Parameters:
    ///   - certificateChain: the DER certificates of `KeyStore.getCertificateChain(alias)`, the
    ///     key's own first.
    ///   - challenge: the challenge text from ``issueChallenge(now:)``, as the app sent it back;
    ///     the app passed SHA-256 of its UTF-8 bytes to `setAttestationChallenge`.
    ///   - now: the current time, for the challenge's expiry and certificate validity.
    /// - Returns: the verified attestation; its key is stored (the app signs requests with it and
    ///   names it by ``AttestedAndroidKey/keyId``).
    /// - Throws: ``WebAuthnError`` (`challenge` for a challenge this service did not issue, used
    ///   before or expired, or an attestation of another challenge; `malformed`, `trust`,
    ///   `attestation`; `credentialExists` for a key attested before); store errors as they come.
    public func verifyAttestation(certificateChain: [[UInt8]], challenge: String, now: Date) async throws -> VerifiedAndroidKeyAttestation {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAttestation(
            certificateChain: certificateChain, challenge: challenge,
            attestationChallenge: Digest.sha256.hash(Array(challenge.utf8)), now: now, trace: &trace
        ).get()
    }

    /// ``verifyAttestation(certificateChain:challenge:now:)`` with the step trace.
    /// - Parameters:
    ///   - certificateChain: the chain.
    ///   - challenge: the challenge to use up, or nil when this service did not issue it (the
    ///     replay's recorded chains, which carry their own).
    ///   - attestationChallenge: the bytes `attestationChallenge` must hold.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func attestationReport(
        certificateChain: [[UInt8]], challenge: String?, attestationChallenge: [UInt8], now: Date
    ) async throws -> CeremonyReport<VerifiedAndroidKeyAttestation> {
        var trace = CeremonyTrace()
        let result = try await verifyAttestation(
            certificateChain: certificateChain, challenge: challenge, attestationChallenge: attestationChallenge,
            now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAttestation(
        certificateChain: [[UInt8]], challenge: String?, attestationChallenge: [UInt8], now: Date,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAndroidKeyAttestation, WebAuthnError> {
        // The challenge first, whatever the verdict: a refused attestation cannot be retried with it.
        if let challenge, let refusal = try await challenges.consume(challenge, now: now, trace: &trace) {
            return .failure(refusal)
        }
        let verified: VerifiedAndroidKeyAttestation
        do {
            verified = try verifier.verifyAttestation(chain: certificateChain, challenge: attestationChallenge, at: now, trace: &trace)
        } catch {
            return .failure(error)
        }
        guard try await keys.create(verified.key) else {
            return .failure(
                trace.fail(AndroidKeyStep.keyStore, "the key id is new", .credentialExists, "this key was attested before"))
        }
        trace.note(AndroidKeyStep.keyStore, "the key is stored")
        return .success(verified)
    }

    /// Verifies a request signed with an attested key and advances its counter; uses up the
    /// challenge first when the request answers one.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent (``AttestedAndroidKey/keyId``).
    ///   - counter: the counter the app signed, greater than the last one it used with this key.
    ///   - signature: the DER ECDSA signature (`SHA256withECDSA`) over the layout the article
    ///     "Android app integrity" defines.
    ///   - binding: what the request is bound to and the app signed: the challenge text from
    ///     ``issueChallenge(now:)``, or a token id the request carries (which the caller checks).
    ///   - consumingChallenge: true when `binding` is a challenge of this service, used up here.
    ///   - method: the request's HTTP method, as received.
    ///   - path: the request's path and query, as received.
    ///   - body: the request's body, as received (empty for none).
    ///   - now: the current time, for the challenge's expiry.
    /// - Returns: the key with its new counter, which is stored.
    /// - Throws: ``WebAuthnError`` (`challenge`, `unknownCredential`, `signature`, `signCount`
    ///   for a counter not above the stored one or a request accepted meanwhile with the same
    ///   counter); store errors.
    public func verifyAssertion(
        keyId: [UInt8], counter: UInt32, signature: [UInt8], binding: String, consumingChallenge: Bool,
        method: String, path: String, body: [UInt8], now: Date
    ) async throws -> AttestedAndroidKey {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAssertion(
            keyId: keyId, counter: counter, signature: signature, challenge: consumingChallenge ? binding : nil,
            signedBytes: AndroidKeyAssertion.signedBytes(counter: counter, binding: binding, method: method, path: path, body: body),
            now: now, trace: &trace
        ).get()
    }

    /// The assertion check with the step trace, over the signed bytes.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - counter: the signed counter.
    ///   - signature: the signature.
    ///   - challenge: the challenge to use up, or nil.
    ///   - signedBytes: the layout rebuilt from the request.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func assertionReport(
        keyId: [UInt8], counter: UInt32, signature: [UInt8], challenge: String?, signedBytes: [UInt8], now: Date
    ) async throws -> CeremonyReport<AttestedAndroidKey> {
        var trace = CeremonyTrace()
        let result = try await verifyAssertion(
            keyId: keyId, counter: counter, signature: signature, challenge: challenge, signedBytes: signedBytes,
            now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAssertion(
        keyId: [UInt8], counter: UInt32, signature: [UInt8], challenge: String?, signedBytes: [UInt8], now: Date,
        trace: inout CeremonyTrace
    ) async throws -> Result<AttestedAndroidKey, WebAuthnError> {
        // The challenge first, whatever the verdict, before the key is looked up.
        if let challenge, let refused = try await challenges.consume(challenge, now: now, trace: &trace) {
            return .failure(refused)
        }
        guard let key = try await keys.key(id: keyId) else {
            return .failure(
                trace.fail(
                    AndroidKeyStep.keyStore, "a key with this id was attested", .unknownCredential, "no attested key has this key id"))
        }
        trace.note(AndroidKeyStep.keyStore, "a key with this id was attested", detail: key.packageName)
        let updated: AttestedAndroidKey
        do {
            updated = try verifier.verifyAssertion(
                signature: signature, counter: counter, signedBytes: signedBytes, key: key, trace: &trace)
        } catch {
            return .failure(error)
        }
        // Compare and swap: of two requests with the same counter, even on two nodes, one wins.
        guard try await keys.updateCounter(keyId: keyId, from: key.counter, to: updated.counter) else {
            return .failure(
                trace.fail(
                    AndroidKeyStep.keyStore, "the counter is stored", .signCount,
                    "the stored counter changed while the request was verified"))
        }
        trace.note(AndroidKeyStep.keyStore, "the counter is stored", detail: "\(updated.counter)")
        return .success(updated)
    }
}

// The names App Attest's service has too: the same job on the same transport.
extension AndroidKeyAttestationService {
    /// The first bytes of every stored Android key attestation challenge (then 32 random bytes).
    package static let storedChallengeTag = Array("andkeyat".utf8)

    /// Issues a one-time challenge on the service's ``ChallengeTransport``. It answers one key
    /// attestation or one request assertion until `now` plus the challenge lifetime, and never a
    /// passkey ceremony or App Attest.
    /// - Parameter now: the current time.
    /// - Returns: the text to send to the app, and its expiry.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when the
    ///   random generator or sealing fails.
    public func issueChallenge(now: Date) async throws -> AppAttestChallenge {
        try await challenges.issue(now: now)
    }
}
