public import Foundation
import WebAuthnCoding

// The service's side of recording: what a finish hands its observer, and the recording of a
// body that never became a response. It lives with the service (Registry), which Recording
// sits below.

extension CeremonyRecording {
    /// The recording of a body that did not decode as a response: the error a response's
    /// `init(jsonData:)` threw (`malformed`), for the caller to pass to its
    /// ``CeremonyObserver``. Nothing was consumed; the body is kept as text (its secrets
    /// zeroed), which replays as `malformed` like the original.
    /// - Parameters:
    ///   - body: the request body as received.
    ///   - kind: the ceremony it was posted to.
    ///   - error: what the decoding threw.
    ///   - challenge: what the server kept from `begin…` (a session's challenge is recorded).
    ///   - service: the service the body was meant for (its relying party and policy are recorded).
    ///   - receivedAt: when the body was received.
    public init(
        unparsedBody body: Data, kind: CeremonyKind, error: WebAuthnError, challenge: CeremonyChallenge,
        service: RelyingPartyService, receivedAt: Date
    ) {
        var expected: [UInt8]?
        if case .session(let bytes) = challenge.source { expected = bytes }
        // As text (invalid UTF-8 replaced): the replay finds a response that does not decode.
        self.init(
            kind: kind, issued: nil, challenge: expected, response: .string(String(decoding: body, as: UTF8.self)),
            credentialBefore: nil, relyingParty: service.relyingParty, policy: service.policy,
            receivedAt: receivedAt, verdict: .rejected(error))
    }
}

/// What a finish learned on its way, for its observer's recording.
struct CeremonyFacts {
    /// The session's challenge, when the finish was given one.
    var expected: [UInt8]?
    /// The challenge consumed (nil when it was not outstanding).
    var issued: IssuedChallenge?
    /// A sealed token that did not open: nothing was outstanding.
    var tokenRefused = false
    /// The record an authentication found, or a refused registration collided with.
    var found: CredentialRecord?
}

extension RelyingPartyService {
    /// The recording a finish hands its observer: what it consumed and found, and the verdict.
    func recording(
        _ kind: CeremonyKind, _ facts: CeremonyFacts, response: JSONValue, clientDataJSON: ArraySlice<UInt8>,
        now: Date, result: Result<Void, WebAuthnError>
    ) -> CeremonyRecording {
        // A token that did not open: nothing was outstanding, so nothing is recorded as issued.
        let challenge =
            facts.tokenRefused
            ? nil
            : facts.expected ?? facts.issued?.challenge ?? (try? CollectedClientData(jsonBytes: clientDataJSON).decodedChallenge())
        let verdict: CeremonyRecording.Verdict
        switch result {
        case .success: verdict = .accepted
        case .failure(let error): verdict = .rejected(error)
        }
        return CeremonyRecording(
            kind: kind, issued: facts.issued, challenge: challenge, response: response,
            credentialBefore: facts.found, relyingParty: relyingParty, policy: policy,
            receivedAt: now, verdict: verdict)
    }
}
