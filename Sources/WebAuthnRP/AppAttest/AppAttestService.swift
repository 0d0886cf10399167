public import Foundation
public import WebAuthnCrypto

/// Apple's step 6 of assertion validation, "verify that the embedded challenge in the client
/// data matches the earlier challenge to the client": how the app binds the server's challenge
/// (and the request) into `clientData` is the app's protocol, so the server says how to check it.
public struct AppAttestClientDataCheck: Sendable {
    /// What the check requires, for traces and errors.
    let summary: String
    private let accepts: @Sendable ([UInt8]) -> Bool

    /// A check of the caller's own.
    /// - Parameters:
    ///   - summary: what it requires, for traces and errors.
    ///   - accepts: true when the client data carries what the server expects.
    public init(_ summary: String, accepts: @escaping @Sendable (_ clientData: [UInt8]) -> Bool) {
        self.summary = summary
        self.accepts = accepts
    }

    /// The client data must be exactly these bytes: the server rebuilds what the app hashed
    /// (for example the challenge it issued followed by the request body it received).
    /// - Parameter expected: the bytes the app should have passed.
    /// - Returns: the check.
    public static func equals(_ expected: [UInt8]) -> AppAttestClientDataCheck {
        AppAttestClientDataCheck("the client data is the one the server rebuilt") { $0 == expected }
    }

    /// The check when the caller names none but the assertion answers a challenge: the client
    /// data contains the challenge text (UTF-8) somewhere, so the app signed it.
    static func contains(challenge: String) -> AppAttestClientDataCheck {
        let needle = Array(challenge.utf8)
        return AppAttestClientDataCheck("the client data contains the challenge") { contains($0, needle) }
    }

    /// Whether `needle` occurs in `haystack`, in time linear in both (Knuth-Morris-Pratt): the
    /// client data is the app's, so a search that backtracks could be made to take quadratic time.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        // failure[i]: the length of the longest proper prefix of needle[...i] that is also its suffix.
        var failure = [Int](repeating: 0, count: needle.count)
        var matched = 0
        for index in needle.indices.dropFirst() {
            while matched > 0, needle[index] != needle[matched] { matched = failure[matched - 1] }
            if needle[index] == needle[matched] { matched += 1 }
            failure[index] = matched
        }
        matched = 0
        for byte in haystack {
            while matched > 0, byte != needle[matched] { matched = failure[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }

    /// The client data must begin with these challenge bytes (an app that sends
    /// `challenge ‖ request body`; the replay's App Attest files).
    /// - Parameter challenge: the challenge bytes (not empty).
    /// - Returns: the check.
    package static func startsWith(challenge: [UInt8]) -> AppAttestClientDataCheck {
        AppAttestClientDataCheck("the client data begins with the issued challenge") {
            !challenge.isEmpty && $0.starts(with: challenge)
        }
    }

    func run(_ clientData: [UInt8]) -> Bool { accepts(clientData) }
}

/// App Attest for a server: issues one-time challenges on the same ``ChallengeTransport`` as the
/// server's passkey ceremonies, verifies key attestations (Apple's "Validating apps that connect
/// to your server", step by step) and stores their keys, verifies assertions against stored keys
/// and advances their counters atomically.
///
/// Three endpoints use it: one giving the app a challenge (``issueChallenge(now:)``), one
/// receiving `keyId`, the attestation and the challenge after `attestKey`
/// (``verifyAttestation(keyId:attestation:challenge:clientDataHash:now:)``), and one receiving
/// `keyId`, the assertion and the request after `generateAssertion`
/// (``verifyAssertion(keyId:assertion:clientData:challenge:check:now:)``). Every verification
/// that names a challenge uses it up first, whatever the verdict. An App Attest challenge is of
/// its own kind (``CeremonyKind/appAttest``): it never answers a passkey ceremony, and a passkey
/// ceremony's challenge never answers App Attest. Create one per process and keep it: it keeps
/// parsed certificates and built keys between ceremonies, so a known key's assertion builds
/// nothing. Every rejection is a ``WebAuthnError`` whose step names Apple's step
/// (`App Attest attestation step 4`).
public struct AppAttestService: Sendable {
    /// The attested keys.
    public let keys: any AppAttestKeyStore
    let verifier: AppAttestVerifier
    /// How challenges travel from ``issueChallenge(now:)`` to the verification that answers them.
    let challenges: ChallengeTransport
    /// Seconds an issued challenge stays answerable.
    let challengeLifetime: TimeInterval

    /// Creates a service.
    /// - Parameters:
    ///   - app: Team ID and bundle identifier.
    ///   - environment: the App Attest environment the app's builds attest in: `production` for
    ///     distributed builds, `development` for builds with the development entitlement.
    ///   - trustAnchors: the roots an attestation's `x5c` chain must end in (default: Apple's
    ///     App Attestation Root CA alone).
    ///   - challenges: how challenges travel (default: stored in a bounded in-memory store); pass
    ///     the transport the server's ``RelyingPartyService`` has, its store or its key and
    ///     replay store, so that every node checks App Attest challenges as it checks passkey ones.
    ///   - challengeLifetime: seconds an issued challenge stays answerable (default 300).
    ///   - keys: the key store (default: bounded, in memory).
    public init(
        app: AppleApp, environment: AppAttestEnvironment,
        trustAnchors: [Certificate] = KnownAttestationRoots.appleAppAttestationRootCA.map { [$0] } ?? [],
        challenges: ChallengeTransport = .stored(InMemoryChallengeStore()), challengeLifetime: TimeInterval = 300,
        keys: any AppAttestKeyStore = InMemoryAppAttestKeyStore()
    ) {
        self.verifier = AppAttestVerifier(
            app: app, environment: environment, trustAnchors: trustAnchors,
            cache: VerificationCache())
        self.challenges = challenges
        self.challengeLifetime = challengeLifetime
        self.keys = keys
    }

    /// Uses up the challenge, then verifies a key attestation and stores the key.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent (32 bytes, decoded from its base64).
    ///   - attestation: the attestation object the app sent (CBOR).
    ///   - challenge: the challenge text from ``issueChallenge(now:)``, as the app sent it back.
    ///   - clientDataHash: the bytes the app passed to `attestKey`, for an app that passes
    ///     something other than SHA-256 of the challenge text (a hash of a request that carries
    ///     the challenge, say), as the server rebuilds them from what it received; nil (default):
    ///     SHA-256 of the challenge text's UTF-8 bytes.
    ///   - now: the current time, for the challenge's expiry and certificate validity.
    /// - Returns: the verified attestation; its key (with the receipt) is stored.
    /// - Throws: ``WebAuthnError`` (`challenge` for a challenge this service did not issue for
    ///   App Attest, used before or expired; `malformed`, `attestation`, `trust`, `rpIdHash`, or
    ///   `credentialExists` for a key id attested before); store errors as they come.
    public func verifyAttestation(
        keyId: [UInt8], attestation: [UInt8], challenge: String, clientDataHash: [UInt8]? = nil,
        now: Date
    ) async throws -> VerifiedAppAttestation {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAttestation(
            keyId: keyId, attestation: attestation, challenge: challenge,
            clientDataHash: clientDataHash ?? Digest.sha256.hash(Array(challenge.utf8)), now: now, trace: &trace
        ).get()
    }

    /// ``verifyAttestation(keyId:attestation:challenge:clientDataHash:now:)`` with the step trace.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - attestation: the attestation object.
    ///   - challenge: the challenge to use up, or nil when this service did not issue it (the
    ///     replay's untracked ceremonies, bound through the nonce only).
    ///   - clientDataHash: the bytes the app passed to `attestKey`.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func attestationReport(
        keyId: [UInt8], attestation: [UInt8], challenge: String?, clientDataHash: [UInt8],
        now: Date
    ) async throws -> CeremonyReport<VerifiedAppAttestation> {
        var trace = CeremonyTrace()
        let result = try await verifyAttestation(
            keyId: keyId, attestation: attestation, challenge: challenge, clientDataHash: clientDataHash,
            now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAttestation(
        keyId: [UInt8], attestation: [UInt8], challenge: String?, clientDataHash: [UInt8], now: Date,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAppAttestation, WebAuthnError> {
        // The challenge first, whatever the verdict: a refused attestation cannot be retried with it.
        if let challenge, let refusal = try await consumeChallenge(challenge, now: now, trace: &trace) {
            return .failure(refusal)
        }
        let verified: VerifiedAppAttestation
        do {
            verified = try verifier.verifyAttestation(
                attestation, keyId: keyId, clientDataHash: clientDataHash,
                at: now, trace: &trace)
        } catch {
            return .failure(error)
        }
        guard try await keys.create(verified.key) else {
            return .failure(
                trace.fail(
                    "App Attest key store", "the key id is new", .credentialExists,
                    "this key id was attested before"))
        }
        trace.note("App Attest key store", "the key is stored")
        return .success(verified)
    }

    /// Uses up the challenge, if the assertion answers one, then verifies an assertion with the
    /// stored key and advances its counter.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent.
    ///   - assertion: the assertion the app sent (CBOR `{signature, authenticatorData}`).
    ///   - clientData: the bytes whose SHA-256 the app passed to `generateAssertion`.
    ///   - challenge: the challenge text from ``issueChallenge(now:)`` that the assertion answers,
    ///     as the app sent it back; nil when the assertion binds something else the server
    ///     checks (an access token's id, say).
    ///   - check: Apple's step 6, how `clientData` carries the challenge or binding; nil
    ///     (default): with a challenge, `clientData` must contain its text (UTF-8); without one,
    ///     the caller checked `clientData` itself (it rebuilt it from the request, say).
    ///   - now: the current time, for the challenge's expiry.
    /// - Returns: the verified assertion; the stored counter is updated.
    /// - Throws: ``WebAuthnError`` (`challenge` for a challenge this service did not issue for
    ///   App Attest, used before or expired, or client data the check refuses;
    ///   `unknownCredential`, `malformed`, `signature`, `rpIdHash`, `signCount`, `attestation`
    ///   for a key of the other environment); store errors.
    public func verifyAssertion(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8], challenge: String?,
        check: AppAttestClientDataCheck? = nil, now: Date
    ) async throws -> VerifiedAppAssertion {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAssertion(
            keyId: keyId, assertion: assertion, clientData: clientData, challenge: challenge,
            check: check, now: now, trace: &trace
        ).get()
    }

    /// ``verifyAssertion(keyId:assertion:clientData:challenge:check:now:)`` with the step trace.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - assertion: the assertion.
    ///   - clientData: the client data.
    ///   - challenge: the challenge the assertion answers, or nil.
    ///   - check: the client-data check, or nil.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func assertionReport(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8], challenge: String?,
        check: AppAttestClientDataCheck? = nil, now: Date
    ) async throws -> CeremonyReport<VerifiedAppAssertion> {
        var trace = CeremonyTrace()
        let result = try await verifyAssertion(
            keyId: keyId, assertion: assertion, clientData: clientData, challenge: challenge,
            check: check, now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAssertion(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8], challenge: String?,
        check: AppAttestClientDataCheck?, now: Date, trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAppAssertion, WebAuthnError> {
        // The challenge first, whatever the verdict, before the key is looked up.
        if let challenge, let refused = try await consumeChallenge(challenge, now: now, trace: &trace) {
            return .failure(refused)
        }
        guard let key = try await keys.key(id: keyId) else {
            return .failure(
                trace.fail(
                    "App Attest key store", "a key with this id was attested", .unknownCredential,
                    "no attested key has this key id"))
        }
        trace.note("App Attest key store", "a key with this id was attested", detail: "environment \(key.environment.rawValue)")
        let verified: VerifiedAppAssertion
        do {
            verified = try verifier.verifyAssertion(assertion, clientData: clientData, key: key, trace: &trace)
            if let check = check ?? challenge.map(AppAttestClientDataCheck.contains(challenge:)) {
                try trace.check(AppAttestStep.assertion(6), "the client data carries the server's challenge", detail: check.summary) {
                    () throws(WebAuthnError) in
                    guard check.run(clientData) else {
                        throw WebAuthnError(.challenge, "the client data does not satisfy: \(check.summary)")
                    }
                }
            } else {
                trace.skip(
                    AppAttestStep.assertion(6), "the client data carries the server's challenge",
                    because: "the caller checks the client data")
            }
        } catch {
            return .failure(error)
        }
        guard try await keys.updateSignCount(keyId: keyId, from: key.signCount, to: verified.updatedKey.signCount) else {
            return .failure(
                trace.fail(
                    "App Attest key store", "the counter is stored", .signCount,
                    "the stored counter changed while the assertion was verified"))
        }
        trace.note("App Attest key store", "the counter is stored", detail: "\(verified.updatedKey.signCount)")
        return .success(verified)
    }
}
