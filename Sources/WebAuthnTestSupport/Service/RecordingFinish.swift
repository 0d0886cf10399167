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
        jsonData: Data, challenge: CeremonyChallenge = .fromClientData, now: Date
    ) async throws -> RecordedCeremony<VerifiedRegistration> {
        try await finishRecording(RegistrationResponse.self, .registration, jsonData: jsonData, challenge: challenge, now: now)
    }

    /// ``finishRegistrationRecording(jsonData:challenge:now:)`` for an authentication.
    package func finishAuthenticationRecording(
        jsonData: Data, challenge: CeremonyChallenge = .fromClientData, now: Date
    ) async throws -> RecordedCeremony<VerifiedAuthentication> {
        try await finishRecording(AuthenticationResponse.self, .authentication, jsonData: jsonData, challenge: challenge, now: now)
    }

    /// Decodes the body (recording an undecodable one as such), then finishes with a kept
    /// observer; both ceremonies take this one path.
    private func finishRecording<Response: RecordableResponse>(
        _: Response.Type, _ kind: CeremonyKind, jsonData: Data, challenge: CeremonyChallenge, now: Date
    ) async throws -> RecordedCeremony<Response.Verified> {
        let response: Response
        do { response = try Response(jsonData: jsonData) } catch {
            return RecordedCeremony(
                result: .failure(error),
                recording: CeremonyRecording(
                    unparsedBody: jsonData, kind: kind, error: error, challenge: challenge, service: self, receivedAt: now))
        }
        let observer = KeptRecording()
        let result: Result<Response.Verified, WebAuthnError>
        do {
            result = .success(try await response.finish(on: self, challenge: challenge, now: now, observer: observer))
        } catch let error as WebAuthnError {
            result = .failure(error)
        }
        guard let recording = observer.recording else { throw NoRecording() }
        return RecordedCeremony(result: result, recording: recording)
    }
}

/// A response the recording finish takes: its decoder and the service's finish for it.
private protocol RecordableResponse {
    associatedtype Verified: Sendable
    init(jsonData: Data) throws(WebAuthnError)
    func finish(on service: RelyingPartyService, challenge: CeremonyChallenge, now: Date, observer: KeptRecording) async throws -> Verified
}

extension RegistrationResponse: RecordableResponse {
    fileprivate func finish(
        on service: RelyingPartyService, challenge: CeremonyChallenge, now: Date, observer: KeptRecording
    ) async throws -> VerifiedRegistration {
        try await service.finishRegistration(self, challenge: challenge, now: now, observer: observer)
    }
}

extension AuthenticationResponse: RecordableResponse {
    fileprivate func finish(
        on service: RelyingPartyService, challenge: CeremonyChallenge, now: Date, observer: KeptRecording
    ) async throws -> VerifiedAuthentication {
        try await service.finishAuthentication(self, challenge: challenge, now: now, observer: observer)
    }
}
