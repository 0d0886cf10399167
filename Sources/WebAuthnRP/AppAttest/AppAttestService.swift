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

    /// The client data must begin with the challenge the server issued (the app sends
    /// `challenge ‖ request body`).
    /// - Parameter challenge: the issued challenge (not empty).
    /// - Returns: the check.
    public static func startsWith(challenge: [UInt8]) -> AppAttestClientDataCheck {
        AppAttestClientDataCheck("the client data begins with the issued challenge") {
            !challenge.isEmpty && $0.starts(with: challenge)
        }
    }

    func run(_ clientData: [UInt8]) -> Bool { accepts(clientData) }
}

/// App Attest for a server: verifies key attestations (Apple's "Validating apps that connect
/// to your server", step by step) and stores their keys, verifies assertions against stored keys
/// and advances their counters atomically.
///
/// Two endpoints use it: one receiving `keyId` and the attestation after `attestKey`
/// (``verifyAttestation(keyId:attestation:challenge:now:)``), one receiving `keyId`, the
/// assertion and the request after `generateAssertion`
/// (``verifyAssertion(keyId:assertion:clientData:check:)``). Create one per process and keep it:
/// it keeps parsed certificates and built keys between ceremonies, so a known key's assertion
/// builds nothing. Every rejection is a ``WebAuthnError`` whose step names Apple's step
/// (`App Attest attestation step 4`).
public struct AppAttestService: Sendable {
    /// The attested keys.
    public let keys: any AppAttestKeyStore
    let verifier: AppAttestVerifier

    /// Creates a service.
    /// - Parameters:
    ///   - app: Team ID and bundle identifier.
    ///   - environment: the App Attest environment the app's builds attest in: `production` for
    ///     distributed builds, `development` for builds with the development entitlement.
    ///   - trustAnchors: the roots an attestation's `x5c` chain must end in (default: Apple's
    ///     App Attestation Root CA alone).
    ///   - keys: the key store (default: bounded, in memory).
    public init(
        app: AppleApp, environment: AppAttestEnvironment,
        trustAnchors: [Certificate] = KnownAttestationRoots.appleAppAttestationRootCA.map { [$0] } ?? [],
        keys: any AppAttestKeyStore = InMemoryAppAttestKeyStore()
    ) {
        self.verifier = AppAttestVerifier(
            app: app, environment: environment, trustAnchors: trustAnchors,
            cache: VerificationCache())
        self.keys = keys
    }

    /// Verifies a key attestation and stores the key.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent (32 bytes, decoded from its base64).
    ///   - attestation: the attestation object the app sent (CBOR).
    ///   - challenge: the one-time challenge this server gave the app for `attestKey`
    ///     (kept in the server's session; the app hashed it into `clientDataHash`).
    ///   - now: the clock for certificate validity.
    /// - Returns: the verified attestation; its key (with the receipt) is stored.
    /// - Throws: ``WebAuthnError`` (`malformed`, `attestation`, `trust`, `rpIdHash`, or
    ///   `credentialExists` for a key id attested before); store errors as they come.
    public func verifyAttestation(
        keyId: [UInt8], attestation: [UInt8], challenge: [UInt8],
        now: Date
    ) async throws -> VerifiedAppAttestation {
        try await verifyAttestation(keyId: keyId, attestation: attestation, clientDataHash: Digest.sha256.hash(challenge), now: now)
    }

    /// Verifies a key attestation given the exact `clientDataHash` the app passed to
    /// `attestKey`, and stores the key.
    ///
    /// For apps that pass something other than SHA-256 of a bare challenge: a hash of a request
    /// that carries the challenge, or (as in Apple's published sample) the challenge bytes
    /// themselves. The server must still know which one-time challenge those bytes commit to.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent.
    ///   - attestation: the attestation object.
    ///   - clientDataHash: the bytes the app passed to `attestKey`, as the server recomputes
    ///     them from its one-time challenge.
    ///   - now: the clock for certificate validity.
    /// - Returns: the verified attestation; its key (with the receipt) is stored.
    /// - Throws: ``WebAuthnError`` (`malformed`, `attestation`, `trust`, `rpIdHash`, or
    ///   `credentialExists` for a key id attested before); store errors as they come.
    public func verifyAttestation(
        keyId: [UInt8], attestation: [UInt8], clientDataHash: [UInt8],
        now: Date
    ) async throws -> VerifiedAppAttestation {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAttestation(
            keyId: keyId, attestation: attestation, clientDataHash: clientDataHash,
            now: now, trace: &trace
        ).get()
    }

    /// ``verifyAttestation(keyId:attestation:clientDataHash:now:)`` with the step trace.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - attestation: the attestation object.
    ///   - clientDataHash: the bytes the app passed to `attestKey`.
    ///   - now: the clock.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func attestationReport(
        keyId: [UInt8], attestation: [UInt8], clientDataHash: [UInt8],
        now: Date
    ) async throws -> CeremonyReport<VerifiedAppAttestation> {
        var trace = CeremonyTrace()
        let result = try await verifyAttestation(
            keyId: keyId, attestation: attestation, clientDataHash: clientDataHash,
            now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAttestation(
        keyId: [UInt8], attestation: [UInt8], clientDataHash: [UInt8], now: Date,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAppAttestation, WebAuthnError> {
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

    /// Verifies an assertion with the stored key and advances its counter.
    /// - Parameters:
    ///   - keyId: the key identifier the app sent.
    ///   - assertion: the assertion the app sent (CBOR `{signature, authenticatorData}`).
    ///   - clientData: the bytes whose SHA-256 the app passed to `generateAssertion`.
    ///   - check: Apple's step 6, the server's challenge (or request) in `clientData`; nil when
    ///     the caller checks it itself.
    /// - Returns: the verified assertion; the stored counter is updated.
    /// - Throws: ``WebAuthnError`` (`unknownCredential`, `malformed`, `signature`, `rpIdHash`,
    ///   `signCount`, `attestation` for a key of the other environment, or `challenge` when `check`
    ///   refuses the client data); store errors.
    public func verifyAssertion(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8],
        check: AppAttestClientDataCheck? = nil
    ) async throws -> VerifiedAppAssertion {
        var trace = CeremonyTrace(recording: false)
        return try await verifyAssertion(
            keyId: keyId, assertion: assertion, clientData: clientData, check: check,
            trace: &trace
        ).get()
    }

    /// ``verifyAssertion(keyId:assertion:clientData:check:)`` with the step trace.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - assertion: the assertion.
    ///   - clientData: the client data.
    ///   - check: the client-data check, or nil.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func assertionReport(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8],
        check: AppAttestClientDataCheck? = nil
    ) async throws -> CeremonyReport<VerifiedAppAssertion> {
        var trace = CeremonyTrace()
        let result = try await verifyAssertion(
            keyId: keyId, assertion: assertion, clientData: clientData, check: check,
            trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    private func verifyAssertion(
        keyId: [UInt8], assertion: [UInt8], clientData: [UInt8], check: AppAttestClientDataCheck?,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAppAssertion, WebAuthnError> {
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
            if let check {
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
