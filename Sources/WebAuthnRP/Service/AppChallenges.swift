public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// A one-time challenge an app-integrity service issued, as the app receives it: from
/// ``AppAttestService/issueChallenge(now:)`` (App Attest) or
/// ``AndroidKeyAttestationService/issueChallenge(now:)`` (Android key attestation).
public struct AppAttestChallenge: Sendable, Hashable {
    /// The challenge text. The app sends it back unchanged with the attestation or assertion
    /// that answers it. App Attest hashes its UTF-8 bytes (SHA-256) into the `clientDataHash` of
    /// `attestKey`, or carries it in the client data of an assertion; an Android app passes
    /// SHA-256 of its UTF-8 bytes to `setAttestationChallenge`, or signs the text in a request
    /// assertion.
    public let challenge: String
    /// The last instant at which it is accepted.
    public let expiresAt: Date
}

/// The one-time challenges of an app-integrity service (App Attest, Android key attestation) on
/// the server's ``ChallengeTransport``: issued as a kind of their own and bound to the app, used
/// up first by the verification that names one, whatever its verdict. One implementation for
/// both services, so that both refuse the same challenges the same way.
struct AppChallenges: Sendable {
    /// How challenges travel from issue to the verification that answers them.
    let transport: ChallengeTransport
    /// Seconds an issued challenge stays answerable.
    let lifetime: TimeInterval
    /// The kind every challenge is issued as; a challenge of another kind is refused.
    let kind: CeremonyKind
    /// The first bytes of every stored challenge (then 32 random bytes): its kind is known before
    /// the store is asked, so another ceremony's challenge (32 random bytes, or another service's
    /// tag) is refused without being used up.
    let storedTag: [UInt8]
    /// What a challenge is bound to (its `rpId`): App Attest's App ID, the Android packages.
    let boundTo: String
    /// The service's name in steps and messages (`App Attest`).
    let service: String

    /// The longest stored challenge text read (base64url of an 8-byte tag and 32 bytes is 54).
    static let maximumStoredChallengeLength = 128

    /// Issues a one-time challenge: stored in the transport's ``ChallengeStore``, or sealed into
    /// the text itself. It answers one verification of this service until `now` plus the lifetime.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when the
    ///   random generator or sealing fails.
    func issue(now: Date) async throws -> AppAttestChallenge {
        let expiresAt = now.addingTimeInterval(lifetime)
        switch transport.mode {
        case .stored(let store):
            let issued = record(storedTag + (try SecureRandom.bytes(count: 32)), issuedAt: now, expiresAt: expiresAt)
            try await store.issue(issued, now: now)
            return AppAttestChallenge(challenge: Base64URL.encode(issued.challenge), expiresAt: expiresAt)
        case .sealed(let key, _):
            let issued = record(try SecureRandom.bytes(count: 32), issuedAt: now, expiresAt: expiresAt)
            return AppAttestChallenge(challenge: try key.seal(issued), expiresAt: expiresAt)
        }
    }

    /// A challenge of this service's kind, bound to what it serves.
    func record(_ bytes: [UInt8], issuedAt: Date, expiresAt: Date) -> IssuedChallenge {
        IssuedChallenge(challenge: bytes, kind: kind, rpId: boundTo, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// Uses up the challenge a verification answers, before anything else is checked and
    /// whatever the verdict: it must be one this service issued, unused, and answered within its
    /// lifetime. A challenge of another kind is refused before the store or the replay record is
    /// touched, so it stays usable for its own ceremony.
    /// - Parameters:
    ///   - text: the challenge as the app sent it back.
    ///   - now: the current time.
    ///   - trace: receives the step.
    /// - Returns: the refusal (`challenge`), nil when the challenge is good and now used.
    /// - Throws: only storage failures.
    func consume(_ text: String, now: Date, trace: inout CeremonyTrace) async throws -> WebAuthnError? {
        let step = "\(service) challenge", title = "the challenge was issued for \(service), is unused and has not expired"
        let consumed: Result<IssuedChallenge, WebAuthnError>
        switch transport.mode {
        case .stored(let store):
            guard text.utf8.count <= Self.maximumStoredChallengeLength, let bytes = try? Base64URL.decode(text),
                bytes.count > storedTag.count, bytes.starts(with: storedTag)
            else {
                return trace.fail(step, title, .challenge, "the challenge is not an \(service) challenge of this service")
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
            guard opened.kind == kind else {
                return trace.fail(step, title, .challenge, "the challenge was issued for \(opened.kind.rawValue), not \(service)")
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
                try CeremonyChecks.checkIssued(issued, kind: kind, now: now)
                guard issued.rpId == boundTo else {
                    throw WebAuthnError(.challenge, "the challenge was issued for the app \(issued.rpId), not \(boundTo)")
                }
            }
            return nil
        } catch {
            return error
        }
    }
}
