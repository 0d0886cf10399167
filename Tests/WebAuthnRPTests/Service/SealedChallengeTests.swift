import Foundation
import Testing
@_spi(Testing) import WebAuthnCrypto
import WebAuthnTestSupport

@testable import WebAuthnRP

/// Sealed challenges: the issued state carried by the client, encrypted and authenticated under
/// a server key, with expiry and a replay store that makes each token single use.
@Suite("Sealed challenges")
struct SealedChallengeTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    func isChallengeError(_ error: any Error) -> Bool { (error as? WebAuthnError)?.category == .challenge }

    @Test("a sealed challenge opens to exactly what was issued, through its expiry instant and not after")
    func roundTripAndExpiry() throws {
        let key = try SealedChallengeKey.generate()
        let issued = IssuedChallenge(
            challenge: Array(repeating: 7, count: 32), kind: .authentication, rpId: "example.org",
            userHandle: Array("user-a".utf8), allowCredentials: [[1, 2, 3]],
            userVerification: .required, issuedAt: now, expiresAt: now.addingTimeInterval(300))
        let token = try key.seal(issued)
        #expect(try key.open(token, now: now) == issued)
        #expect(try key.open(token, now: now.addingTimeInterval(300)) == issued)
        #expect(throws: WebAuthnError(.challenge, "")) { try key.open(token, now: now.addingTimeInterval(300.001)) }
        #expect(try key.seal(issued) != token)  // a fresh nonce every time
    }

    @Test("a flipped bit, a cut, another key, another version, junk and an oversized token are refused as challenge")
    func tamper() throws {
        let key = try SealedChallengeKey.generate()
        let issued = IssuedChallenge(
            challenge: Array(repeating: 9, count: 32), kind: .registration, rpId: "example.org",
            userHandle: Array("user-a".utf8), offeredAlgorithms: [.es256], expiresAt: now.addingTimeInterval(300))
        let token = try key.seal(issued)
        let bytes = try Base64URLBytes(base64URL: token, member: "token").bytes
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0x20
            #expect(throws: WebAuthnError(.challenge, "")) { try key.open(Base64URLBytes(flipped).base64URL, now: now) }
        }
        for length in [0, 1, 13, 28, bytes.count - 1] {
            #expect(throws: WebAuthnError(.challenge, "")) { try key.open(Base64URLBytes(Array(bytes.prefix(length))).base64URL, now: now) }
        }
        #expect(throws: WebAuthnError(.challenge, "")) { try SealedChallengeKey.generate().open(token, now: now) }
        #expect(throws: WebAuthnError(.challenge, "")) { try key.open("not base64url!", now: now) }
        #expect(throws: WebAuthnError(.challenge, "")) {
            try key.open(String(repeating: "A", count: SealedChallengeKey.maximumTokenLength + 1), now: now)
        }
        #expect(throws: CryptoError(.malformedKey, "")) { try SealedChallengeKey(Array(repeating: 1, count: 16)) }
    }

    @Test("register and log in with sealed challenges and no challenge store; each token answers once per replay store")
    func serviceFlow() async throws {
        let key = try SealedChallengeKey.generate()
        let used = InMemorySealedChallengeReplayStore()
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, challenges: .sealed(key, replayStore: used))
        var authenticator = try TestAuthenticator(key: .es256)

        let registration = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        #expect(service.challengeStore == nil)  // nothing stored: the client carries the state
        let created = try TestAuthenticator.json(try authenticator.register(challenge: registration.options.challenge.bytes)).jsonData()
        let registered = try await service.finishRegistration(
            RegistrationResponse(jsonData: created), challenge: registration.challenge, now: now)
        #expect(registered.record.userHandle == Array("user-a".utf8))
        #expect(try await service.credentials.credential(id: authenticator.credentialId) != nil)

        let login = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-a".utf8)), now: now)
        #expect(login.options.allowCredentials?.map(\.id.bytes) == [authenticator.credentialId])
        let asserted = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        let verified = try await service.finishAuthentication(
            AuthenticationResponse(jsonData: asserted), challenge: login.challenge, now: now.addingTimeInterval(1))
        #expect(verified.updatedRecord.signCount == 1)
        #expect(used.count == 2)

        // The same token and response again: refused by the store, before any verification.
        await #expect {
            try await service.finishAuthentication(AuthenticationResponse(jsonData: asserted), challenge: login.challenge, now: now)
        } throws: { isChallengeError($0) }
        // A response to one sealed challenge presented with another token: the client data's challenge differs.
        let other = try await service.beginAuthentication(AuthenticationRequest(), now: now)
        let wrong = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        await #expect {
            try await service.finishAuthentication(AuthenticationResponse(jsonData: wrong), challenge: other.challenge, now: now)
        } throws: { isChallengeError($0) }
        // A sealed service finishes only with its token: the client data's challenge is not enough.
        let third = try await service.beginAuthentication(AuthenticationRequest(), now: now)
        let plain = try TestAuthenticator.json(try authenticator.authenticate(challenge: third.options.challenge.bytes)).jsonData()
        await #expect { try await service.finishAuthentication(AuthenticationResponse(jsonData: plain), now: now) } throws: {
            isChallengeError($0)
        }
        // Expired: refused even where the store never saw it.
        let forgetful = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            challenges: .sealed(key, replayStore: InMemorySealedChallengeReplayStore()),
            credentials: service.credentials)
        await #expect {
            try await forgetful.finishAuthentication(
                AuthenticationResponse(jsonData: plain), challenge: third.challenge,
                now: now.addingTimeInterval(301))
        } throws: { isChallengeError($0) }
    }

    @Test("a body that does not parse, or answers another challenge, does not use up the token or fill the store")
    func cheapChecksComeFirst() async throws {
        let key = try SealedChallengeKey.generate()
        let used = InMemorySealedChallengeReplayStore(capacity: 1)
        var authenticator = try TestAuthenticator(key: .es256)
        let service = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty, challenges: .sealed(key, replayStore: used),
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        let login = try await service.beginAuthentication(AuthenticationRequest(), now: now)
        for junk in ["{}", "[]", "not json", #"{"id":"AA","rawId":"AA","type":"public-key","response":{}}"#] {
            await #expect {
                try await service.finishAuthentication(
                    AuthenticationResponse(jsonData: Data(junk.utf8)), challenge: login.challenge, now: now)
            } throws: { ($0 as? WebAuthnError)?.category == .malformed }
            let recorded = try await service.finishAuthenticationRecording(jsonData: Data(junk.utf8), challenge: login.challenge, now: now)
            #expect((try? recorded.result.get()) == nil)
        }
        let elsewhere = try TestAuthenticator.json(try authenticator.authenticate(challenge: Array(repeating: 7, count: 32))).jsonData()
        await #expect {
            try await service.finishAuthentication(AuthenticationResponse(jsonData: elsewhere), challenge: login.challenge, now: now)
        } throws: { isChallengeError($0) }
        #expect(used.count == 0)
        let asserted = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        _ = try await service.finishAuthentication(AuthenticationResponse(jsonData: asserted), challenge: login.challenge, now: now)
        #expect(used.count == 1)
    }

    @Test("nodes that share a replay store accept a captured signCount-0 login once: in turn, 50 at once, after a restart")
    func sharedStoreAcrossNodes() async throws {
        let key = try SealedChallengeKey.generate()
        let used = InMemorySealedChallengeReplayStore()  // stands for the one database table
        var authenticator = try TestAuthenticator(key: .es256)
        authenticator.counterStep = 0  // a synced passkey: signCount stays 0
        let credentials = InMemoryCredentialStore(records: [authenticator.record()])
        func node() -> RelyingPartyService {
            RelyingPartyService(
                relyingParty: CeremonyFixture.relyingParty, challenges: .sealed(key, replayStore: used),
                credentials: credentials)
        }
        let first = node(), second = node()
        let login = try await first.beginAuthentication(AuthenticationRequest(), now: now)
        let asserted = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        func present(_ service: RelyingPartyService) async -> Bool {
            (try? await service.finishAuthentication(AuthenticationResponse(jsonData: asserted), challenge: login.challenge, now: now))
                != nil
        }
        #expect(await present(first))
        #expect(await present(second) == false)
        #expect(await present(node()) == false)  // a node started after the login
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 { group.addTask { await present(index.isMultiple(of: 2) ? first : second) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 0)

        // 50 copies of a fresh login at once, across both nodes: exactly one is accepted.
        let next = try await second.beginAuthentication(AuthenticationRequest(), now: now)
        let body = try TestAuthenticator.json(try authenticator.authenticate(challenge: next.options.challenge.bytes)).jsonData()
        let raced = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    (try? await (index.isMultiple(of: 2) ? first : second).finishAuthentication(
                        AuthenticationResponse(jsonData: body), challenge: next.challenge, now: now)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(raced == 1)
        #expect(try await credentials.credential(id: authenticator.credentialId)?.signCount == 0)
    }

    @Test("the in-memory replay store refuses a second use, forgets expired entries when full, never an unexpired one")
    func inMemoryReplayStore() throws {
        let store = InMemorySealedChallengeReplayStore(capacity: 2)
        let later = now.addingTimeInterval(10), muchLater = now.addingTimeInterval(100)
        #expect(try store.markUsed([1], expiresAt: later, now: now))
        #expect(try store.markUsed([1], expiresAt: later, now: now) == false)
        #expect(try store.markUsed([2], expiresAt: muchLater, now: now))
        #expect { try store.markUsed([3], expiresAt: muchLater, now: now) } throws: {
            ($0 as? WebAuthnError)?.step == "sealed challenge replay store"
        }
        #expect(try store.markUsed([3], expiresAt: muchLater, now: now.addingTimeInterval(11)))  // 1 expired and is dropped
        #expect(store.count == 2)
        #expect(try store.markUsed([2], expiresAt: muchLater, now: now.addingTimeInterval(11)) == false)
    }
}
