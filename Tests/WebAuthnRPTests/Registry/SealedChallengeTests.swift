import Foundation
import Testing
@_spi(Testing) import WebAuthnCrypto
@testable import WebAuthnRP
import WebAuthnTestSupport

/// Sealed challenges: the issued state carried by the client, encrypted and authenticated under
/// a server key, with expiry and a per-node replay cache.
@Suite("Sealed challenges")
struct SealedChallengeTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    func isChallengeError(_ error: any Error) -> Bool { (error as? WebAuthnError)?.category == .challenge }

    @Test("a sealed challenge opens to exactly what was issued, through its expiry instant and not after")
    func roundTripAndExpiry() throws {
        let key = try SealedChallengeKey.generate()
        let issued = IssuedChallenge(challenge: Array(repeating: 7, count: 32), kind: .authentication, rpId: "example.org",
                                     userHandle: Array("user-a".utf8), allowCredentials: [[1, 2, 3]],
                                     userVerification: .required, issuedAt: now, expiresAt: now.addingTimeInterval(300))
        let token = try key.seal(issued)
        #expect(try key.open(token, now: now) == issued)
        #expect(try key.open(token, now: now.addingTimeInterval(300)) == issued)
        #expect(throws: WebAuthnError(.challenge, "")) { try key.open(token, now: now.addingTimeInterval(300.001)) }
        #expect(try key.seal(issued) != token)   // a fresh nonce every time
    }

    @Test("a flipped bit, a cut, another key, another version, junk and an oversized token are refused as challenge")
    func tamper() throws {
        let key = try SealedChallengeKey.generate()
        let issued = IssuedChallenge(challenge: Array(repeating: 9, count: 32), kind: .registration, rpId: "example.org",
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

    @Test("register and log in with sealed challenges and no challenge store; each token answers once per replay cache")
    func serviceFlow() async throws {
        let key = try SealedChallengeKey.generate()
        let cache = SealedChallengeReplayCache()
        let challenges = InMemoryChallengeStore()
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, challenges: challenges)
        var authenticator = try TestAuthenticator(key: .es256)

        let registration = try await service.beginRegistration(RegistrationRequest(user: user), sealingWith: key, now: now)
        #expect(challenges.count == 0)   // nothing stored: the client carries the state
        let created = try TestAuthenticator.json(try authenticator.register(challenge: registration.options.challenge.bytes)).jsonData()
        let registered = try await service.finishRegistration(jsonData: created, sealedChallenge: registration.sealedChallenge,
                                                              key: key, replayCache: cache, now: now)
        #expect(registered.record.userHandle == Array("user-a".utf8))
        #expect(try await service.credentials.credential(id: authenticator.credentialId) != nil)

        let login = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-a".utf8)),
                                                          sealingWith: key, now: now)
        #expect(login.options.allowCredentials?.map(\.id.bytes) == [authenticator.credentialId])
        let asserted = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        let verified = try await service.finishAuthentication(jsonData: asserted, sealedChallenge: login.sealedChallenge,
                                                              key: key, replayCache: cache, now: now.addingTimeInterval(1))
        #expect(verified.updatedRecord.signCount == 1)
        #expect(cache.count == 2)

        // The same token and response again: refused by the cache, before any verification.
        await #expect { try await service.finishAuthentication(jsonData: asserted, sealedChallenge: login.sealedChallenge,
                                                                key: key, replayCache: cache, now: now) } throws: { isChallengeError($0) }
        // A response to one sealed challenge presented with another token: the client data's challenge differs.
        let other = try await service.beginAuthentication(AuthenticationRequest(), sealingWith: key, now: now)
        let wrong = try TestAuthenticator.json(try authenticator.authenticate(challenge: login.options.challenge.bytes)).jsonData()
        await #expect { try await service.finishAuthentication(jsonData: wrong, sealedChallenge: other.sealedChallenge,
                                                                key: key, replayCache: cache, now: now) } throws: { isChallengeError($0) }
        // A sealed challenge is not a stored one: the plain finish does not know it.
        let third = try await service.beginAuthentication(AuthenticationRequest(), sealingWith: key, now: now)
        let plain = try TestAuthenticator.json(try authenticator.authenticate(challenge: third.options.challenge.bytes)).jsonData()
        await #expect { try await service.finishAuthentication(jsonData: plain, now: now) } throws: { isChallengeError($0) }
        // Expired: refused even on a node whose cache never saw it.
        await #expect { try await service.finishAuthentication(jsonData: plain, sealedChallenge: third.sealedChallenge, key: key,
                                                                replayCache: SealedChallengeReplayCache(),
                                                                now: now.addingTimeInterval(301)) } throws: { isChallengeError($0) }
    }

    @Test("the replay cache refuses a second use, forgets expired entries when full, and never forgets an unexpired one")
    func replayCache() throws {
        let cache = SealedChallengeReplayCache(capacity: 2)
        func issued(_ byte: UInt8, _ lifetime: TimeInterval) -> IssuedChallenge {
            IssuedChallenge(challenge: [byte], kind: .authentication, rpId: "example.org", expiresAt: now.addingTimeInterval(lifetime))
        }
        try cache.use(issued(1, 10), now: now)
        #expect(throws: WebAuthnError(.challenge, "")) { try cache.use(issued(1, 10), now: now) }
        try cache.use(issued(2, 100), now: now)
        #expect { try cache.use(issued(3, 100), now: now) } throws: { ($0 as? RegistryError)?.code == .capacityExceeded }
        try cache.use(issued(3, 100), now: now.addingTimeInterval(11))   // 1 expired and is dropped
        #expect(cache.count == 2)
        #expect(throws: WebAuthnError(.challenge, "")) { try cache.use(issued(2, 100), now: now.addingTimeInterval(11)) }
    }
}
