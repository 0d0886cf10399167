public import Foundation

extension RelyingPartyService {
    /// ``finishRegistration(jsonData:sealedChallenge:key:replayStore:now:keepAttestation:)`` that
    /// also records the ceremony (see ``CeremonyRecording``). The opened challenge is recorded
    /// as issued; the token and the key are not. A token refused (tampered, expired, already
    /// used) is recorded as a challenge that was not outstanding, which replays as `challenge`.
    /// - Parameters:
    ///   - jsonData: the request body (`RegistrationResponseJSON`).
    ///   - sealedChallenge: the token the client sent back.
    ///   - key: the key that sealed it.
    ///   - replayStore: where answered tokens are recorded (shared by every node that opens them).
    ///   - now: the current time.
    /// - Returns: the verdict (a rejection is a `.failure`, not a throw) and its recording.
    /// - Throws: only storage failures (``RegistryError`` or the store's own error).
    public func finishRegistrationRecording(jsonData: Data, sealedChallenge: String, key: SealedChallengeKey,
                                            replayStore: any SealedChallengeReplayStore,
                                            now: Date) async throws -> RecordedCeremony<VerifiedRegistration> {
        let issued: IssuedChallenge
        do {
            issued = try key.open(sealedChallenge, now: now)
        } catch {
            return refusedToken(.registration, jsonData, error, now: now, parse: { try RegistrationResponseJSON(jsonData: $0) })
        }
        return try await finishRegistrationRecording(
            jsonData: jsonData, expectedChallenge: nil, now: now,
            challenges: OpenedSealedChallenge(issued, replayStore: replayStore, now: now))
    }

    /// ``finishAuthentication(jsonData:sealedChallenge:key:replayStore:now:)`` that also records
    /// the ceremony (see ``CeremonyRecording``). The opened challenge is recorded as issued; the
    /// token and the key are not. A token refused (tampered, expired, already used) is recorded
    /// as a challenge that was not outstanding, which replays as `challenge`.
    /// - Parameters:
    ///   - jsonData: the request body (`AuthenticationResponseJSON`).
    ///   - sealedChallenge: the token the client sent back.
    ///   - key: the key that sealed it.
    ///   - replayStore: where answered tokens are recorded (shared by every node that opens them).
    ///   - now: the current time.
    /// - Returns: the verdict (a rejection is a `.failure`, not a throw) and its recording.
    /// - Throws: only storage failures (``RegistryError`` or the store's own error).
    public func finishAuthenticationRecording(jsonData: Data, sealedChallenge: String, key: SealedChallengeKey,
                                              replayStore: any SealedChallengeReplayStore,
                                              now: Date) async throws -> RecordedCeremony<VerifiedAuthentication> {
        let issued: IssuedChallenge
        do {
            issued = try key.open(sealedChallenge, now: now)
        } catch {
            return refusedToken(.authentication, jsonData, error, now: now, parse: { try AuthenticationResponseJSON(jsonData: $0) })
        }
        return try await finishAuthenticationRecording(
            jsonData: jsonData, expectedChallenge: nil, now: now,
            challenges: OpenedSealedChallenge(issued, replayStore: replayStore, now: now))
    }

    /// A token that does not open: nothing was outstanding, so the recording issues nothing (`issue: false`).
    private func refusedToken<Verified, Response: Encodable>(_ kind: CeremonyKind, _ body: Data, _ error: WebAuthnError,
                                                            now: Date, parse: (Data) throws -> Response)
        -> RecordedCeremony<Verified> {
        let response: JSONValue
        do {
            response = Self.value(try parse(body))
        } catch {
            response = .string(String(decoding: body, as: UTF8.self))
        }
        let recording = CeremonyRecording(kind: kind, issued: nil, challenge: nil, response: response,
                                          credentialBefore: nil, relyingParty: relyingParty, policy: policy,
                                          receivedAt: now, verdict: .rejected(error))
        return RecordedCeremony(result: .failure(error), recording: recording)
    }
}
