public import Foundation

extension AppAttestService {
    /// The first bytes of every stored App Attest challenge (then 32 random bytes): its kind is
    /// known before the store is asked, so a passkey ceremony's challenge (32 random bytes)
    /// presented to App Attest is refused without being used up.
    package static let storedChallengeTag = Array("appattst".utf8)

    /// The service's challenges: App Attest's kind and tag, bound to its app.
    var appChallenges: AppChallenges {
        AppChallenges(
            transport: challenges, lifetime: challengeLifetime, kind: .appAttest, storedTag: Self.storedChallengeTag,
            boundTo: verifier.app.appID, service: "App Attest")
    }

    /// Issues a one-time App Attest challenge on the service's ``ChallengeTransport``: stored in
    /// its ``ChallengeStore``, or sealed into the text itself. It answers one attestation or one
    /// assertion of this app until `now` plus the service's challenge lifetime, and never a
    /// passkey ceremony.
    /// - Parameter now: the current time.
    /// - Returns: the text to send to the app, and its expiry.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when the
    ///   random generator or sealing fails.
    public func issueChallenge(now: Date) async throws -> AppAttestChallenge {
        try await appChallenges.issue(now: now)
    }

    /// An App Attest challenge bound to this service's app.
    package func issuedChallenge(_ bytes: [UInt8], issuedAt: Date, expiresAt: Date) -> IssuedChallenge {
        appChallenges.record(bytes, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// Uses up the challenge an attestation or assertion answers (``AppChallenges/consume(_:now:trace:)``):
    /// one this service issued for App Attest and this app, unused, within its lifetime.
    /// - Parameters:
    ///   - text: the challenge as the app sent it back.
    ///   - now: the current time.
    ///   - trace: receives the step.
    /// - Returns: the refusal (`challenge`), nil when the challenge is good and now used.
    /// - Throws: only storage failures.
    package func consumeChallenge(_ text: String, now: Date, trace: inout CeremonyTrace) async throws -> WebAuthnError? {
        try await appChallenges.consume(text, now: now, trace: &trace)
    }
}
