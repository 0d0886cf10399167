import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The Play Integrity service: keys read as the Play Console shows them, nonces on the shared
/// transport used up first and once, and request hashes that need no nonce.
@Suite("Play Integrity service")
struct PlayIntegrityServiceTests {
    static let now = TestCertificates.now

    static func service(
        _ play: TestPlayIntegrity, policy: PlayIntegrityPolicy = PlayIntegrityPolicy(),
        challenges: ChallengeTransport = .stored(InMemoryChallengeStore())
    ) throws -> PlayIntegrityService {
        try PlayIntegrityService(
            decryptionKey: play.decryptionKeyText, verificationKey: play.verificationKeyText, apps: [try play.app], policy: policy,
            challenges: challenges)
    }

    @Test("a token carrying an issued nonce is accepted once; the nonce is used up even by a refused token")
    func nonces() async throws {
        let play = try TestPlayIntegrity()
        let service = try Self.service(play)
        let issued = try await service.issueChallenge(now: Self.now)
        let token = try play.token(play.verdict(binding: .nonce(issued.challenge), at: Self.now))
        let verified = try await service.verify(token: token, binding: .nonce(issued.challenge), now: Self.now)
        #expect(verified.packageName == "com.example.app")
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(token: token, binding: .nonce(issued.challenge), now: Self.now)
        }

        // Refused for its device, the nonce is gone all the same.
        let second = try await service.issueChallenge(now: Self.now)
        let rooted = TestPlayIntegrity.setting(
            play.verdict(binding: .nonce(second.challenge), at: Self.now), "deviceIntegrity", "deviceRecognitionVerdict",
            to: ["MEETS_BASIC_INTEGRITY"])
        await #expect(throws: WebAuthnError(.attestation, "")) {
            try await service.verify(token: try play.token(rooted), binding: .nonce(second.challenge), now: Self.now)
        }
        let retry = try play.token(play.verdict(binding: .nonce(second.challenge), at: Self.now))
        let report = try await service.report(token: retry, binding: .nonce(second.challenge), now: Self.now)
        #expect(report.result.failure?.step == "Play Integrity challenge")

        // A nonce the service never issued, or one past its lifetime.
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(
                token: try play.token(play.verdict(binding: .nonce("bm90LWlzc3VlZA"), at: Self.now)), binding: .nonce("bm90LWlzc3VlZA"),
                now: Self.now)
        }
        let late = try await service.issueChallenge(now: Self.now)
        let later = Self.now.addingTimeInterval(301)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(
                token: try play.token(play.verdict(binding: .nonce(late.challenge), at: later)), binding: .nonce(late.challenge),
                now: later)
        }
    }

    @Test("sealed nonces answer once; another app-integrity service's challenge is refused by kind")
    func sealed() async throws {
        let play = try TestPlayIntegrity()
        let transport = ChallengeTransport.sealed(
            try SealedChallengeKey([UInt8](repeating: 9, count: 32)), replayStore: InMemorySealedChallengeReplayStore())
        let service = try Self.service(play, challenges: transport)
        let issued = try await service.issueChallenge(now: Self.now)
        let token = try play.token(play.verdict(binding: .nonce(issued.challenge), at: Self.now))
        _ = try await service.verify(token: token, binding: .nonce(issued.challenge), now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(token: token, binding: .nonce(issued.challenge), now: Self.now)
        }
        let android = AndroidKeyAttestationService(apps: [try play.app], challenges: transport)
        let other = try await android.issueChallenge(now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(
                token: try play.token(play.verdict(binding: .nonce(other.challenge), at: Self.now)), binding: .nonce(other.challenge),
                now: Self.now)
        }
    }

    @Test("a stored nonce of another service is refused without being used up")
    func storedKinds() async throws {
        let play = try TestPlayIntegrity()
        let store = InMemoryChallengeStore()
        let service = try Self.service(play, challenges: .stored(store))
        let android = AndroidKeyAttestationService(apps: [try play.app], challenges: .stored(store))
        let other = try await android.issueChallenge(now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(
                token: try play.token(play.verdict(binding: .nonce(other.challenge), at: Self.now)), binding: .nonce(other.challenge),
                now: Self.now)
        }
        let bytes = try Base64URL.decode(other.challenge)
        #expect(try await store.consume(bytes) != nil)
    }

    @Test("a request hash binds without a nonce, and can be verified again (the caller makes requests single use)")
    func requestHash() async throws {
        let play = try TestPlayIntegrity()
        let service = try Self.service(play)
        let hash = Base64URL.encode(Digest.sha256.hash(Array("POST /api/transfer {\"amount\":10}".utf8)))
        let token = try play.token(play.verdict(binding: .requestHash(hash), at: Self.now))
        _ = try await service.verify(token: token, binding: .requestHash(hash), now: Self.now)
        _ = try await service.verify(token: token, binding: .requestHash(hash), now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verify(token: token, binding: .requestHash(hash + "x"), now: Self.now)
        }
    }

    @Test("keys that are not the Play Console's forms are a configuration error")
    func keys() throws {
        let play = try TestPlayIntegrity()
        let app = try play.app
        let p384 = Data(try PrivateKey.derive(.p384, seed: "p384").publicKey.subjectPublicKeyInfoDER).base64EncodedString()
        for (decryption, verification) in [
            ("", play.verificationKeyText), (Data(play.decryptionKey.prefix(16)).base64EncodedString(), play.verificationKeyText),
            (Base64URL.encode(play.decryptionKey), play.verificationKeyText), (play.decryptionKeyText, ""),
            (play.decryptionKeyText, p384), (play.decryptionKeyText, play.decryptionKeyText),
        ] {
            #expect(throws: WebAuthnError(.configuration, "")) {
                try PlayIntegrityService(decryptionKey: decryption, verificationKey: verification, apps: [app])
            }
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
