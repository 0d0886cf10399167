public import Foundation

extension RelyingPartyService {
    /// ``finishRegistration(jsonData:sealedChallenge:key:replayCache:now:keepAttestation:)`` that
    /// also records the ceremony (see ``CeremonyRecording``). The opened challenge is recorded
    /// as issued; the token and the key are not. A token refused (tampered, expired, already
    /// used) is recorded as a challenge that was not outstanding, which replays as `challenge`.
    /// - Parameters:
    ///   - jsonData: the request body (`RegistrationResponseJSON`).
    ///   - sealedChallenge: the token the client sent back.
    ///   - key: the key that sealed it.
    ///   - replayCache: this node's cache of used tokens.
    ///   - now: the current time.
    /// - Returns: the verdict (a rejection is a `.failure`, not a throw) and its recording.
    /// - Throws: only storage failures (``RegistryError`` or the store's own error).
    public func finishRegistrationRecording(jsonData: Data, sealedChallenge: String, key: SealedChallengeKey,
                                            replayCache: SealedChallengeReplayCache,
                                            now: Date) async throws -> RecordedCeremony<VerifiedRegistration> {
        switch try await openSealed(sealedChallenge, key: key, replayCache: replayCache, now: now) {
        case .failure(let refusal):
            return refusedToken(.registration, jsonData, refusal, now: now,
                                parse: { try RegistrationResponseJSON(jsonData: $0) })
        case .success(let store):
            return try await finishRegistrationRecording(jsonData: jsonData, expectedChallenge: store.challenge, now: now,
                                                         challenges: store.store)
        }
    }

    /// ``finishAuthentication(jsonData:sealedChallenge:key:replayCache:now:)`` that also records
    /// the ceremony (see ``CeremonyRecording``). The opened challenge is recorded as issued; the
    /// token and the key are not. A token refused (tampered, expired, already used) is recorded
    /// as a challenge that was not outstanding, which replays as `challenge`.
    /// - Parameters:
    ///   - jsonData: the request body (`AuthenticationResponseJSON`).
    ///   - sealedChallenge: the token the client sent back.
    ///   - key: the key that sealed it.
    ///   - replayCache: this node's cache of used tokens.
    ///   - now: the current time.
    /// - Returns: the verdict (a rejection is a `.failure`, not a throw) and its recording.
    /// - Throws: only storage failures (``RegistryError`` or the store's own error).
    public func finishAuthenticationRecording(jsonData: Data, sealedChallenge: String, key: SealedChallengeKey,
                                              replayCache: SealedChallengeReplayCache,
                                              now: Date) async throws -> RecordedCeremony<VerifiedAuthentication> {
        switch try await openSealed(sealedChallenge, key: key, replayCache: replayCache, now: now) {
        case .failure(let refusal):
            return refusedToken(.authentication, jsonData, refusal, now: now,
                                parse: { try AuthenticationResponseJSON(jsonData: $0) })
        case .success(let store):
            return try await finishAuthenticationRecording(jsonData: jsonData, expectedChallenge: store.challenge, now: now,
                                                           challenges: store.store)
        }
    }

    /// Why a token was refused, and the challenge it named when it opened.
    private struct TokenRefusal: Error {
        let error: WebAuthnError
        let challenge: [UInt8]?
    }

    /// Opens the token and marks it used, as the unrecorded finish does; on success, a
    /// one-entry store holding the opened challenge, for the recording finish to consume.
    private func openSealed(_ token: String, key: SealedChallengeKey, replayCache: SealedChallengeReplayCache,
                            now: Date) async throws -> Result<(store: InMemoryChallengeStore, challenge: [UInt8]), TokenRefusal> {
        let issued: IssuedChallenge
        do {
            issued = try key.open(token, now: now)
        } catch {
            return .failure(TokenRefusal(error: error, challenge: nil))
        }
        do {
            try replayCache.use(issued, now: now)
        } catch let error as WebAuthnError {
            return .failure(TokenRefusal(error: error, challenge: issued.challenge))
        }
        let store = InMemoryChallengeStore(capacity: 1)
        try await store.issue(issued, now: now)
        return .success((store, issued.challenge))
    }

    /// A refused token: nothing was outstanding, so the recording issues nothing (`issue: false`).
    private func refusedToken<Verified, Response: Encodable>(_ kind: CeremonyKind, _ body: Data, _ refusal: TokenRefusal,
                                                            now: Date, parse: (Data) throws -> Response)
        -> RecordedCeremony<Verified> {
        let response: JSONValue
        do {
            response = Self.value(try parse(body))
        } catch {
            response = .string(String(decoding: body, as: UTF8.self))
        }
        let recording = CeremonyRecording(kind: kind, issued: nil, challenge: refusal.challenge, response: response,
                                          credentialBefore: nil, relyingParty: relyingParty, policy: policy,
                                          receivedAt: now, verdict: .rejected(refusal.error))
        return RecordedCeremony(result: .failure(refusal.error), recording: recording)
    }
}
