import Foundation
import Testing
import WebAuthnReplay
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// A ceremony the service verified, written with `CeremonyRecording` and replayed by
/// `webauthn-replay`: the replay must reach the same verdict (and category), and `--explain`
/// must name the step that failed.
@Suite("Ceremony recording")
struct CeremonyRecordingTests {
    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    /// Writes the recording, replays it, and returns the one result, after checking that the
    /// replay met the recorded expectation and that the verdict is `expected`.
    @discardableResult
    func replay(
        _ recording: CeremonyRecording, expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CeremonyResult {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = temp.folder.appendingPathComponent("recorded.json").path
        try recording.document().write(to: URL(fileURLWithPath: path))
        let report = await Replayer.replay(paths: [path])
        #expect(report.fixtureErrors.isEmpty, "\(report.fixtureErrors)", sourceLocation: sourceLocation)
        let result = try #require(report.results.first, sourceLocation: sourceLocation)
        #expect(report.results.count == 1, sourceLocation: sourceLocation)
        #expect(result.expected == expected, sourceLocation: sourceLocation)
        #expect(result.actual == expected, sourceLocation: sourceLocation)
        #expect(result.passed, "\(result.mismatches) \(String(describing: result.error))", sourceLocation: sourceLocation)
        if case .rejected(let error) = recording.verdict {
            // Same category and the same failing step as on the server.
            #expect(result.error?.category == error.category, sourceLocation: sourceLocation)
            #expect(result.error?.step == error.step, sourceLocation: sourceLocation)
            // --explain names the failing step.
            let text = ReplayFormatter.text(report, explain: true)
            if let step = error.step {
                #expect(text.contains("FAILED   \(step):"), "\(text)", sourceLocation: sourceLocation)
            }
        }
        return result
    }

    func user(_ auth: TestAuthenticator) -> PublicKeyCredentialUserEntityJSON {
        PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(auth.userHandle), name: "alice@example.org", displayName: "Alice")
    }

    /// A service holding `records`, and a login begun at t0 (username-first when `userHandle`).
    func login(
        records: [CredentialRecord], userHandle: [UInt8]? = nil,
        userVerification: UserVerificationRequirement = .preferred
    ) async throws -> (RelyingPartyService, [UInt8]) {
        let service = RelyingPartyService(
            relyingParty: Self.relyingParty,
            credentials: InMemoryCredentialStore(records: records))
        let options = try await service.beginAuthentication(
            AuthenticationRequest(userHandle: userHandle, userVerification: userVerification), now: Self.t0
        ).options
        return (service, options.challenge.bytes)
    }

    func finishLogin(
        _ service: RelyingPartyService, _ json: AuthenticationResponseJSON, challenge: [UInt8],
        after seconds: TimeInterval = 2
    ) async throws -> RecordedCeremony<VerifiedAuthentication> {
        try await service.finishAuthenticationRecording(
            jsonData: json.jsonData(), challenge: .session(challenge),
            now: Self.t0.addingTimeInterval(seconds))
    }

    func category<V>(_ recorded: RecordedCeremony<V>) -> WebAuthnError.Category? {
        if case .failure(let error) = recorded.result { return error.category }
        return nil
    }

    // MARK: Accepted

    @Test("an accepted registration replays as accepted")
    func acceptedRegistration() async throws {
        let auth = try TestAuthenticator(seed: "recording-register")
        let service = RelyingPartyService(relyingParty: Self.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let json = try auth.registerJSON(challenge: options.challenge.bytes)
        let recorded = try await service.finishRegistrationRecording(
            jsonData: json.jsonData(),
            challenge: .session(options.challenge.bytes),
            now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == nil)
        #expect(try await service.credentials.credential(id: auth.credentialId) != nil)
        try await replay(recorded.recording, expected: "accept")
    }

    @Test("an accepted login replays as accepted, from the record as it stood before")
    func acceptedLogin() async throws {
        var auth = try TestAuthenticator(seed: "recording-login")
        auth.signCount = 7
        let (service, challenge) = try await login(records: [auth.record(signCount: 7)], userHandle: auth.userHandle)
        let recorded = try await finishLogin(service, try auth.authenticateJSON(challenge: challenge), challenge: challenge)
        #expect(category(recorded) == nil)
        #expect(recorded.recording.credentialBefore?.signCount == 7)
        // The stored record moved on; the recording kept the one the ceremony started from.
        #expect(try await service.credentials.credential(id: auth.credentialId)?.signCount == 8)
        try await replay(recorded.recording, expected: "accept")
    }

    // MARK: Rejected

    @Test("a tampered signature replays as reject(signature)")
    func tamperedSignature() async throws {
        var auth = try TestAuthenticator(seed: "recording-signature")
        let (service, challenge) = try await login(records: [auth.record()])
        var options = TestAuthenticator.AuthenticationOptions()
        options.signature = { $0[$0.count - 1] ^= 0x01 }
        let recorded = try await finishLogin(
            service, try auth.authenticateJSON(challenge: challenge, options),
            challenge: challenge)
        #expect(category(recorded) == .signature)
        try await replay(recorded.recording, expected: "reject(signature)")
    }

    @Test("a login with a deleted passkey replays as reject(unknownCredential)")
    func deletedPasskey() async throws {
        var auth = try TestAuthenticator(seed: "recording-deleted")
        let (service, challenge) = try await login(records: [])
        let recorded = try await finishLogin(service, try auth.authenticateJSON(challenge: challenge), challenge: challenge)
        #expect(category(recorded) == .unknownCredential)
        #expect(recorded.recording.credentialBefore == nil)
        try await replay(recorded.recording, expected: "reject(unknownCredential)")
    }

    @Test("another user's passkey in a username-first login replays as reject(unknownCredential)")
    func otherUsersPasskey() async throws {
        var auth = try TestAuthenticator(seed: "recording-other-user")
        let (service, challenge) = try await login(records: [auth.record()], userHandle: Array("user-b".utf8))
        let recorded = try await finishLogin(service, try auth.authenticateJSON(challenge: challenge), challenge: challenge)
        #expect(category(recorded) == .unknownCredential)
        try await replay(recorded.recording, expected: "reject(unknownCredential)")
    }

    @Test("a wrong origin replays as reject(origin)")
    func wrongOrigin() async throws {
        var auth = try TestAuthenticator(seed: "recording-origin")
        let (service, challenge) = try await login(records: [auth.record()])
        var options = TestAuthenticator.AuthenticationOptions()
        options.clientData = { $0.origin = "https://example.org.evil.test" }
        let recorded = try await finishLogin(
            service, try auth.authenticateJSON(challenge: challenge, options),
            challenge: challenge)
        #expect(category(recorded) == .origin)
        try await replay(recorded.recording, expected: "reject(origin)")
    }

    @Test("a counter that went back replays as reject(signCount)")
    func counterRegression() async throws {
        var auth = try TestAuthenticator(seed: "recording-counter")
        let (service, challenge) = try await login(records: [auth.record(signCount: 40)])
        let recorded = try await finishLogin(
            service, try auth.authenticateJSON(challenge: challenge, .init(signCount: 12)),
            challenge: challenge)
        #expect(category(recorded) == .signCount)
        try await replay(recorded.recording, expected: "reject(signCount)")
    }

    @Test("UV required and not given replays as reject(userVerification)")
    func userVerificationRequired() async throws {
        var auth = try TestAuthenticator(seed: "recording-uv")
        let (service, challenge) = try await login(records: [auth.record()], userVerification: .required)
        let recorded = try await finishLogin(
            service, try auth.authenticateJSON(challenge: challenge, .init(flags: [.userPresent])),
            challenge: challenge)
        #expect(category(recorded) == .userVerification)
        try await replay(recorded.recording, expected: "reject(userVerification)")
    }

    @Test("a response after the challenge expired replays as reject(challenge)")
    func expiredChallenge() async throws {
        var auth = try TestAuthenticator(seed: "recording-expired")
        let (service, challenge) = try await login(records: [auth.record()])
        let recorded = try await finishLogin(
            service, try auth.authenticateJSON(challenge: challenge), challenge: challenge,
            after: service.policy.challengeLifetime + 1)
        #expect(category(recorded) == .challenge)
        try await replay(recorded.recording, expected: "reject(challenge)")
    }

    @Test("a response sent twice: the second replays as reject(challenge), the challenge not issued again")
    func replayedResponse() async throws {
        var auth = try TestAuthenticator(seed: "recording-twice")
        let (service, challenge) = try await login(records: [auth.record()])
        let json = try auth.authenticateJSON(challenge: challenge)
        let first = try await finishLogin(service, json, challenge: challenge)
        #expect(category(first) == nil)
        let second = try await finishLogin(service, json, challenge: challenge)
        #expect(category(second) == .challenge)
        #expect(second.recording.issued == nil)
        try await replay(second.recording, expected: "reject(challenge)")
    }

    @Test("a body that is not a response replays as reject(malformed)")
    func malformedBody() async throws {
        let (service, challenge) = try await login(records: [])
        let recorded = try await service.finishAuthenticationRecording(
            jsonData: Data(#"{"id": "AQID", "rawId": "#.utf8),
            challenge: .session(challenge), now: Self.t0)
        #expect(category(recorded) == .malformed)
        try await replay(recorded.recording, expected: "reject(malformed)")
    }

    @Test("registering a credential id already registered replays as reject(credentialExists)")
    func credentialExists() async throws {
        let auth = try TestAuthenticator(seed: "recording-exists")
        let service = RelyingPartyService(
            relyingParty: Self.relyingParty,
            credentials: InMemoryCredentialStore(records: [auth.record()]))
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let json = try auth.registerJSON(challenge: options.challenge.bytes)
        let recorded = try await service.finishRegistrationRecording(
            jsonData: json.jsonData(),
            challenge: .session(options.challenge.bytes),
            now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == .credentialExists)
        #expect(recorded.recording.credentialBefore?.id == auth.credentialId)
        try await replay(recorded.recording, expected: "reject(credentialExists)")
    }

    @Test("a registration with an algorithm the policy does not accept replays as reject(algorithm)")
    func algorithmNotAccepted() async throws {
        let auth = try TestAuthenticator(seed: "recording-algorithm")  // ES256
        let policy = VerificationPolicy(acceptedAlgorithms: [.edDSA])
        let service = RelyingPartyService(relyingParty: Self.relyingParty, policy: policy)
        // Issued by hand offering ES256, which this policy does not accept: the replay, which
        // accepts every algorithm, must still refuse it.
        let challenge = Array(repeating: UInt8(0x5A), count: 32)
        try await service.issue(
            IssuedChallenge(
                challenge: challenge, kind: .registration, rpId: "example.org",
                userHandle: auth.userHandle, offeredAlgorithms: [.es256],
                issuedAt: Self.t0, expiresAt: Self.t0.addingTimeInterval(300)), now: Self.t0)
        let json = try auth.registerJSON(challenge: challenge)
        let recorded = try await service.finishRegistrationRecording(
            jsonData: json.jsonData(), challenge: .session(challenge),
            now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == .algorithm)
        try await replay(recorded.recording, expected: "reject(algorithm)")
    }

    @Test("sealed challenges: a tampered signature replays as reject(signature), a reused token as reject(challenge)")
    func sealedChallenge() async throws {
        var auth = try TestAuthenticator(seed: "recording-sealed")
        let key = try SealedChallengeKey.generate()
        let cache = InMemorySealedChallengeReplayStore()
        let service = RelyingPartyService(
            relyingParty: Self.relyingParty, challenges: .sealed(key, replayStore: cache),
            credentials: InMemoryCredentialStore(records: [auth.record()]))
        let sealed = try await service.beginAuthentication(AuthenticationRequest(userHandle: auth.userHandle), now: Self.t0)
        var options = TestAuthenticator.AuthenticationOptions()
        options.signature = { $0[$0.count - 1] ^= 0x01 }
        let body = try auth.authenticateJSON(challenge: sealed.options.challenge.bytes, options).jsonData()
        let tampered = try await service.finishAuthenticationRecording(jsonData: body, challenge: sealed.challenge, now: Self.t0)
        #expect(category(tampered) == .signature)
        let text = String(decoding: try tampered.recording.document(), as: UTF8.self)
        guard case .sealed(let token) = sealed.challenge.source else { Issue.record("not sealed"); return }
        #expect(!text.contains(token))
        try await replay(tampered.recording, expected: "reject(signature)")

        let again = try await service.finishAuthenticationRecording(jsonData: body, challenge: sealed.challenge, now: Self.t0)
        #expect(category(again) == .challenge)
        #expect(again.recording.issued == nil)
        let result = try await replayVerdict(again.recording)
        #expect(result.actual == "reject(challenge)" && result.passed)
    }

    /// Replays a recording whose failing step the replay names differently (a refused sealed
    /// token is, to the replay, a challenge that is not outstanding): verdict and category only.
    func replayVerdict(_ recording: CeremonyRecording) async throws -> CeremonyResult {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = temp.folder.appendingPathComponent("recorded.json").path
        try recording.document().write(to: URL(fileURLWithPath: path))
        let report = await Replayer.replay(paths: [path])
        return try #require(report.results.first)
    }

    @Test("the document carries nothing but the ceremony: no user name, and notes for what it cannot express")
    func documentContents() async throws {
        let auth = try TestAuthenticator(seed: "recording-contents")
        let service = RelyingPartyService(
            relyingParty: RelyingParty(
                id: "example.org", origins: ["https://example.org"],
                allowSubdomains: true))
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let recorded = try await service.finishRegistrationRecording(
            jsonData: try auth.registerJSON(challenge: options.challenge.bytes).jsonData(),
            challenge: .session(options.challenge.bytes), now: Self.t0)
        let text = String(decoding: try recorded.recording.document(), as: UTF8.self)
        #expect(text.contains(#""format" : "webauthn-ceremonies/1""#))
        #expect(!text.contains("alice"))
        #expect(!text.contains("Alice"))
        #expect(text.contains("allowSubdomains"))
        #expect(!text.contains("AttestationFormatOptions"))
    }

    @Test("per-format attestation options other than the defaults are named in the notes, since the format cannot carry them")
    func formatOptionsNoted() async throws {
        let auth = try TestAuthenticator(seed: "recording-format-options")
        for formats in [AttestationFormatOptions(requireKnownTPMManufacturer: false), AttestationFormatOptions(compoundRequirement: .any)] {
            let service = RelyingPartyService(
                relyingParty: Self.relyingParty,
                policy: VerificationPolicy(attestation: AttestationPolicy(formats: formats)))
            let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
            let recorded = try await service.finishRegistrationRecording(
                jsonData: try auth.registerJSON(challenge: options.challenge.bytes).jsonData(),
                challenge: .session(options.challenge.bytes), now: Self.t0)
            #expect(recorded.recording.unrecordedSettings.contains { $0.contains("AttestationFormatOptions") })
        }
    }
}
