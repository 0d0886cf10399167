public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// A one-time challenge ``AppAttestService/issueChallenge(now:)`` issued, as the app receives it.
public struct AppAttestChallenge: Sendable, Hashable {
    /// The challenge text. The app hashes its UTF-8 bytes (SHA-256) into the `clientDataHash` of
    /// `attestKey`, or carries it in the client data of an assertion, and sends it back unchanged
    /// with the attestation or assertion.
    public let challenge: String
    /// The last instant at which it is accepted.
    public let expiresAt: Date
}

extension AppAttestService {
    /// The first bytes of every stored App Attest challenge (then 32 random bytes): its kind is
    /// known before the store is asked, so a passkey ceremony's challenge (32 random bytes)
    /// presented to App Attest is refused without being used up.
    package static let storedChallengeTag = Array("appattst".utf8)
    /// The longest stored challenge text read (base64url of the tag and 32 bytes is 54).
    static let maximumStoredChallengeLength = 128

    /// Issues a one-time App Attest challenge on the service's ``ChallengeTransport``: stored in
    /// its ``ChallengeStore``, or sealed into the text itself. It answers one attestation or one
    /// assertion of this app until `now` plus the service's challenge lifetime, and never a
    /// passkey ceremony.
    /// - Parameter now: the current time.
    /// - Returns: the text to send to the app, and its expiry.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when the
    ///   random generator or sealing fails.
    public func issueChallenge(now: Date) async throws -> AppAttestChallenge {
        let expiresAt = now.addingTimeInterval(challengeLifetime)
        switch challenges.mode {
        case .stored(let store):
            let issued = issuedChallenge(Self.storedChallengeTag + (try SecureRandom.bytes(count: 32)), issuedAt: now, expiresAt: expiresAt)
            try await store.issue(issued, now: now)
            return AppAttestChallenge(challenge: Base64URL.encode(issued.challenge), expiresAt: expiresAt)
        case .sealed(let key, _):
            let issued = issuedChallenge(try SecureRandom.bytes(count: 32), issuedAt: now, expiresAt: expiresAt)
            return AppAttestChallenge(challenge: try key.seal(issued), expiresAt: expiresAt)
        }
    }

    /// An App Attest challenge bound to this service's app.
    package func issuedChallenge(_ bytes: [UInt8], issuedAt: Date, expiresAt: Date) -> IssuedChallenge {
        IssuedChallenge(challenge: bytes, kind: .appAttest, rpId: verifier.app.appID, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// Uses up the challenge an attestation or assertion answers, before anything else is
    /// checked and whatever the verdict: it must be one this service issued for App Attest and
    /// this app, unused, and answered within its lifetime. A challenge of another kind (a passkey
    /// ceremony's) is refused before the store or the replay record is touched, so it stays
    /// usable for its own ceremony.
    /// - Parameters:
    ///   - text: the challenge as the app sent it back.
    ///   - now: the current time.
    ///   - trace: receives the step.
    /// - Returns: the refusal (`challenge`), nil when the challenge is good and now used.
    /// - Throws: only storage failures.
    package func consumeChallenge(_ text: String, now: Date, trace: inout CeremonyTrace) async throws -> WebAuthnError? {
        let step = "App Attest challenge", title = "the challenge was issued for App Attest, is unused and has not expired"
        let consumed: Result<IssuedChallenge, WebAuthnError>
        switch challenges.mode {
        case .stored(let store):
            guard text.utf8.count <= Self.maximumStoredChallengeLength, let bytes = try? Base64URL.decode(text),
                bytes.count > Self.storedChallengeTag.count, bytes.starts(with: Self.storedChallengeTag)
            else {
                return trace.fail(step, title, .challenge, "the challenge is not an App Attest challenge of this service")
            }
            if let issued = try await store.consume(bytes) {
                consumed = .success(issued)
            } else {
                consumed = .failure(WebAuthnError(.challenge, "the challenge was not issued, or was already used"))
            }
        case .sealed(let key, let replayStore):
            let opened: IssuedChallenge
            do { opened = try key.open(text, now: now) } catch {
                return trace.fail(step, title, .challenge, error.message)
            }
            guard opened.kind == .appAttest else {
                return trace.fail(step, title, .challenge, "the challenge was issued for \(opened.kind.rawValue), not App Attest")
            }
            if try await replayStore.markUsed(opened.challenge, expiresAt: opened.expiresAt, now: now) {
                consumed = .success(opened)
            } else {
                consumed = .failure(WebAuthnError(.challenge, "the challenge was already used"))
            }
        }
        do throws(WebAuthnError) {
            try trace.check(step, title) { () throws(WebAuthnError) in
                let issued = try consumed.get()
                try CeremonyChecks.checkIssued(issued, kind: .appAttest, now: now)
                guard issued.rpId == verifier.app.appID else {
                    throw WebAuthnError(.challenge, "the challenge was issued for the app \(issued.rpId), not \(verifier.app.appID)")
                }
            }
            return nil
        } catch {
            return error
        }
    }
}
