public import Foundation
import WebAuthnCrypto

/// Play Integrity verdicts for a server, decrypted and verified locally with the keys it manages
/// (Play Console, "Manage response encryption"), without a call to Google's `decodeIntegrityToken`:
/// proves that a request comes from the relying party's own app as Google Play distributed it,
/// on a device Google Play recognizes. Beside ``AndroidKeyAttestationService`` (the app's own
/// hardware key) and ``AppAttestService`` (iOS).
///
/// An endpoint that protects a request receives the token the app obtained for it and calls
/// ``verify(token:binding:now:)``, with the request bound one of two ways
/// (``PlayIntegrityRequestBinding``): a classic request's nonce, issued by
/// ``issueChallenge(now:)`` on the server's ``ChallengeTransport`` as a kind of its own
/// (``CeremonyKind/playIntegrity``) and used up first whatever the verdict, or a standard
/// request's request hash, which the server computes from the request. Every rejection is a
/// ``WebAuthnError`` whose step names the check (`Play Integrity device verdict`). Create one per
/// process and keep it.
public struct PlayIntegrityService: Sendable {
    let verifier: PlayIntegrityVerifier
    /// The service's nonces on the server's transport.
    let challenges: AppChallenges

    /// Creates a service.
    /// - Parameters:
    ///   - decryptionKey: the decryption key the Play Console shows (base64 of 32 bytes, AES-256).
    ///   - verificationKey: the verification key the Play Console shows (base64 of a DER
    ///     SubjectPublicKeyInfo, EC P-256).
    ///   - apps: the Android apps whose verdicts are accepted (package name and signing-certificate
    ///     fingerprint; for Play App Signing, Google's app signing certificate), the apps the
    ///     relying party declares.
    ///   - policy: what a verdict must establish (default: `PLAY_RECOGNIZED`,
    ///     `MEETS_DEVICE_INTEGRITY`, licensing not checked, at most 2 minutes old).
    ///   - challenges: how nonces travel (default: stored in a bounded in-memory store); pass the
    ///     transport the server's ``RelyingPartyService`` has.
    ///   - challengeLifetime: seconds an issued nonce stays answerable (default 300).
    /// - Throws: ``WebAuthnError`` `configuration` when a key is not base64, not 32 bytes, or not
    ///   an EC P-256 public key.
    public init(
        decryptionKey: String, verificationKey: String, apps: [AndroidApp], policy: PlayIntegrityPolicy = PlayIntegrityPolicy(),
        challenges: ChallengeTransport = .stored(InMemoryChallengeStore()), challengeLifetime: TimeInterval = 300
    ) throws(WebAuthnError) {
        let step = "Play Integrity keys"
        guard let aesKey = try? StandardBase64.decode(decryptionKey), aesKey.count == AESKeyWrap.keySize else {
            throw WebAuthnError(.configuration, step: step, "the decryption key is not base64 of a 32-byte AES key")
        }
        guard let spki = try? StandardBase64.decode(verificationKey), let publicKey = try? PublicKey(subjectPublicKeyInfoDER: spki[...]),
            publicKey.curve == .p256
        else {
            throw WebAuthnError(.configuration, step: step, "the verification key is not base64 of an EC P-256 SubjectPublicKeyInfo")
        }
        self.verifier = PlayIntegrityVerifier(decryptionKey: aesKey, verificationKey: publicKey, apps: apps, policy: policy)
        self.challenges = AppChallenges(
            transport: challenges, lifetime: challengeLifetime, kind: .playIntegrity, storedTag: Self.storedChallengeTag,
            boundTo: apps.map(\.packageName).sorted().joined(separator: ","), service: "Play Integrity")
    }

    /// Issues a one-time nonce on the service's ``ChallengeTransport``, for a classic request
    /// (`IntegrityTokenRequest.builder().setNonce(challenge)`). It answers one verification until
    /// `now` plus the challenge lifetime, and never a passkey ceremony or another app-integrity
    /// service. The text is base64url, which the Play Integrity API takes as a nonce unchanged.
    /// - Parameter now: the current time.
    /// - Returns: the text to send to the app, and its expiry.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when the
    ///   random generator or sealing fails.
    public func issueChallenge(now: Date) async throws -> AppAttestChallenge {
        try await challenges.issue(now: now)
    }

    /// Uses up the nonce when the request is bound to one, then decrypts and verifies the token
    /// and checks its verdict.
    /// - Parameters:
    ///   - token: the integrity token as the app sent it (`IntegrityTokenResponse.token()`).
    ///   - binding: the nonce the app sent back with the token, or the request hash the server
    ///     computed from the request.
    ///   - now: the current time, for the nonce's expiry and the verdict's age.
    /// - Returns: what the verdict established.
    /// - Throws: ``WebAuthnError`` (`challenge` for a nonce this service did not issue, used
    ///   before or expired, a verdict of another nonce or request hash, or outside the time
    ///   window; `malformed`, `algorithm`, `signature` for a token that does not read, decrypt or
    ///   verify; `attestation` for an app, certificate, device or licence the policy refuses);
    ///   store errors as they come.
    public func verify(token: String, binding: PlayIntegrityRequestBinding, now: Date) async throws -> VerifiedPlayIntegrityVerdict {
        var trace = CeremonyTrace(recording: false)
        return try await verify(token: token, binding: binding, now: now, trace: &trace).get()
    }

    /// ``verify(token:binding:now:)`` with the step trace.
    /// - Parameters:
    ///   - token: the token.
    ///   - binding: the nonce or request hash.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func report(
        token: String, binding: PlayIntegrityRequestBinding, now: Date
    ) async throws -> CeremonyReport<
        VerifiedPlayIntegrityVerdict
    > {
        var trace = CeremonyTrace()
        let result = try await verify(token: token, binding: binding, now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verify(
        token: String, binding: PlayIntegrityRequestBinding, now: Date, trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedPlayIntegrityVerdict, WebAuthnError> {
        // The nonce first, whatever the verdict: a refused token cannot be retried with it.
        if case .nonce(let nonce) = binding, let refusal = try await challenges.consume(nonce, now: now, trace: &trace) {
            return .failure(refusal)
        }
        do {
            return .success(try verifier.verify(token: token, binding: binding, at: now, trace: &trace))
        } catch {
            return .failure(error)
        }
    }

    /// The first bytes of every stored Play Integrity nonce (then 32 random bytes).
    package static let storedChallengeTag = Array("plyintgr".utf8)
}
