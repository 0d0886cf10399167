package import Foundation
import Synchronization
package import WebAuthnRP

/// A ``CeremonyObserver`` that keeps the last recording it received (for tests).
package final class KeptRecording: CeremonyObserver {
    private let kept = Mutex<CeremonyRecording?>(nil)

    package init() {}

    package func ceremonyFinished(_ recording: CeremonyRecording) async {
        kept.withLock { $0 = recording }
    }

    /// The last recording, if any.
    package var recording: CeremonyRecording? { kept.withLock { $0 } }
}

/// A verdict with its recording (tests read both).
package struct RecordedCeremony<Verified: Sendable>: Sendable {
    package let result: Result<Verified, WebAuthnError>
    package let recording: CeremonyRecording
}

/// Why a recorded finish produced no recording (a storage failure, or an observer never called).
package struct NoRecording: Error {}

extension RelyingPartyService {
    /// What a server that records ceremonies does with a body, through the one front door:
    /// decode it (an undecodable body goes to ``CeremonyRecording/init(unparsedBody:kind:error:challenge:service:receivedAt:)``),
    /// then finish with an observer.
    package func finishRegistrationRecording(
        jsonData: Data, challenge: CeremonyChallenge = .fromClientData,
        now: Date
    ) async throws -> RecordedCeremony<VerifiedRegistration> {
        try await finishRecording(
            jsonData: jsonData, kind: .registration, challenge: challenge, now: now,
            decode: RegistrationResponse.init(jsonData:),
            finish: { try await finishRegistration($0, challenge: challenge, now: now, observer: $1) })
    }

    /// ``finishRegistrationRecording(jsonData:challenge:now:)`` for an authentication.
    package func finishAuthenticationRecording(
        jsonData: Data, challenge: CeremonyChallenge = .fromClientData,
        now: Date
    ) async throws -> RecordedCeremony<VerifiedAuthentication> {
        try await finishRecording(
            jsonData: jsonData, kind: .authentication, challenge: challenge, now: now,
            decode: AuthenticationResponse.init(jsonData:),
            finish: { try await finishAuthentication($0, challenge: challenge, now: now, observer: $1) })
    }

    /// Decodes the body (recording an undecodable one as such), then finishes with a kept
    /// observer; both ceremonies take this one path.
    private func finishRecording<Response, Verified: Sendable>(
        jsonData: Data, kind: CeremonyKind, challenge: CeremonyChallenge, now: Date,
        decode: (Data) throws(WebAuthnError) -> Response,
        finish: (Response, KeptRecording) async throws -> Verified
    ) async throws -> RecordedCeremony<Verified> {
        let response: Response
        do { response = try decode(jsonData) } catch {
            return RecordedCeremony(
                result: .failure(error),
                recording: CeremonyRecording(
                    unparsedBody: jsonData, kind: kind, error: error, challenge: challenge, service: self, receivedAt: now))
        }
        let observer = KeptRecording()
        let result: Result<Verified, WebAuthnError>
        do {
            result = .success(try await finish(response, observer))
        } catch let error as WebAuthnError {
            result = .failure(error)
        }
        guard let recording = observer.recording else { throw NoRecording() }
        return RecordedCeremony(result: result, recording: recording)
    }
}
