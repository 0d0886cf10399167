import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Shared fixtures for the ceremony tests.
enum CeremonyFixture {
    static let now = AttestationTestSupport.now
    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])

    /// A service over ``relyingParty`` whose challenges are stored (a fresh in-memory store) or
    /// sealed (a fresh key and replay store), for the tests that run on both transports.
    static func service(sealed: Bool) throws -> RelyingPartyService {
        let transport: ChallengeTransport =
            sealed
            ? .sealed(try SealedChallengeKey.generate(), replayStore: InMemorySealedChallengeReplayStore())
            : .stored(InMemoryChallengeStore())
        return RelyingPartyService(relyingParty: relyingParty, challenges: transport)
    }

    /// A registration challenge issued now, offering the common algorithms.
    static func registrationChallenge(
        _ bytes: [UInt8] = Array(repeating: 0xA1, count: 32),
        userHandle: [UInt8] = Array("user-a".utf8),
        userVerification: UserVerificationRequirement = .preferred,
        offered: [COSEAlgorithm] = [.es256, .edDSA, .ed25519, .es384, .es512, .ps256, .rs256],
        conditional: Bool = false, rpId: String = "example.org", issuedAt: Date? = nil,
        expiresAt: Date = now.addingTimeInterval(300)
    ) -> IssuedChallenge {
        IssuedChallenge(
            challenge: bytes, kind: .registration, rpId: rpId, userHandle: userHandle,
            userVerification: userVerification, offeredAlgorithms: offered,
            conditionalCreate: conditional, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// An authentication challenge issued now.
    static func authenticationChallenge(
        _ bytes: [UInt8] = Array(repeating: 0xB2, count: 32),
        userHandle: [UInt8]? = nil, allowCredentials: [[UInt8]] = [],
        userVerification: UserVerificationRequirement = .preferred,
        rpId: String = "example.org", issuedAt: Date? = nil,
        expiresAt: Date = now.addingTimeInterval(300)
    ) -> IssuedChallenge {
        IssuedChallenge(
            challenge: bytes, kind: .authentication, rpId: rpId, userHandle: userHandle,
            allowCredentials: allowCredentials, userVerification: userVerification, issuedAt: issuedAt,
            expiresAt: expiresAt)
    }
}

/// A verdict and its trace, from running a verifier directly.
struct CeremonyOutcome<Verified> {
    var result: Result<Verified, WebAuthnError>
    var trace: CeremonyTrace

    /// The verified value, or nil (the failure is recorded as a test issue).
    func accepted(sourceLocation: SourceLocation = #_sourceLocation) -> Verified? {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            Issue.record("expected acceptance, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Records a test issue unless the ceremony failed with `category` at `step`.
    func expectRejected(
        _ category: WebAuthnError.Category, step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch result {
        case .success:
            Issue.record("expected \(category.rawValue) at \(step), but the ceremony was accepted", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.category == category, "\(error)", sourceLocation: sourceLocation)
            #expect(error.step == step, "\(error)", sourceLocation: sourceLocation)
            // The trace's last step is the failed one, with the same error.
            if case .failed(let traced)? = trace.steps.last?.outcome {
                #expect(traced.step == step && traced.category == category, sourceLocation: sourceLocation)
            } else {
                Issue.record("the trace does not end in a failed step", sourceLocation: sourceLocation)
            }
        }
    }
}

extension CeremonyOutcome {
    /// Records a test issue unless the ceremony failed with a message containing `text`
    /// (to tell apart two checks of one step that fail with the same category).
    func expectMessage(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .failure(let error) = result else {
            Issue.record("expected a failure mentioning \"\(text)\"", sourceLocation: sourceLocation)
            return
        }
        #expect(error.message.contains(text), "\(error)", sourceLocation: sourceLocation)
    }
}

extension CeremonyReport {
    /// The report as a ``CeremonyOutcome``.
    var outcome: CeremonyOutcome<Verified> { CeremonyOutcome(result: result, trace: trace) }
}

extension CeremonyTrace {
    /// The outcomes recorded under `step`, in order.
    func outcomes(_ step: String) -> [Outcome] { steps.filter { $0.step == step }.map(\.outcome) }

    /// Whether `step` was recorded and every record of it passed.
    func passed(_ step: String) -> Bool {
        let found = outcomes(step)
        return !found.isEmpty && found.allSatisfy { if case .passed = $0 { return true } else { return false } }
    }

    /// Whether `step` was recorded as skipped.
    func skipped(_ step: String) -> Bool {
        outcomes(step).contains { if case .skipped = $0 { return true } else { return false } }
    }
}

extension CeremonyFixture {
    /// Runs §7.1 directly.
    static func register(
        _ response: RegistrationResponse, issued: IssuedChallenge = registrationChallenge(),
        relyingParty: RelyingParty = relyingParty, policy: VerificationPolicy = VerificationPolicy(),
        now: Date = now, keepAttestation: Bool = false
    ) -> CeremonyOutcome<VerifiedRegistration> {
        var trace = CeremonyTrace()
        let verifier = RegistrationVerifier(relyingParty: relyingParty, policy: policy)
        do {
            let verified = try verifier.verify(response, issued: issued, now: now, keepAttestation: keepAttestation, trace: &trace)
            return CeremonyOutcome(result: .success(verified), trace: trace)
        } catch {
            return CeremonyOutcome(result: .failure(error), trace: trace)
        }
    }

    /// Runs §7.2 directly.
    static func authenticate(
        _ response: AuthenticationResponse, issued: IssuedChallenge = authenticationChallenge(),
        record: CredentialRecord?, relyingParty: RelyingParty = relyingParty,
        policy: VerificationPolicy = VerificationPolicy(),
        now: Date = now
    ) -> CeremonyOutcome<VerifiedAuthentication> {
        var trace = CeremonyTrace()
        let verifier = AuthenticationVerifier(relyingParty: relyingParty, policy: policy)
        do {
            let verified = try verifier.verify(response, issued: issued, record: record, now: now, trace: &trace)
            return CeremonyOutcome(result: .success(verified), trace: trace)
        } catch {
            return CeremonyOutcome(result: .failure(error), trace: trace)
        }
    }
}
