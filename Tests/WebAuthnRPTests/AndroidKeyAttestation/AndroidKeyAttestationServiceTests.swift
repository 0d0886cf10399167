import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The Android key attestation service: challenges on the shared transport, stored keys, and
/// request assertions verified with the stored key, each counter accepted once.
@Suite("Android key attestation service")
struct AndroidKeyAttestationServiceTests {
    static let now = TestCertificates.now

    static func service(
        _ phone: TestAndroidDevice, challenges: ChallengeTransport = .stored(InMemoryChallengeStore()),
        keys: any AndroidAppKeyStore = InMemoryAndroidAppKeyStore()
    ) throws -> AndroidKeyAttestationService {
        AndroidKeyAttestationService(apps: [try phone.app], trustAnchors: [phone.root.certificate], challenges: challenges, keys: keys)
    }

    /// Registers `phone`'s key over a challenge the service issued, as the app does:
    /// `setAttestationChallenge(SHA-256(challenge text))`.
    @discardableResult
    static func register(_ phone: TestAndroidDevice, _ service: AndroidKeyAttestationService) async throws -> VerifiedAndroidKeyAttestation
    {
        let issued = try await service.issueChallenge(now: now)
        let chain = try phone.chain(phone.keyDescription(challenge: Digest.sha256.hash(Array(issued.challenge.utf8))))
        return try await service.verifyAttestation(certificateChain: chain, challenge: issued.challenge, now: now)
    }

    static func assert(
        _ phone: TestAndroidDevice, _ service: AndroidKeyAttestationService, counter: UInt32, binding: String, consuming: Bool,
        body: [UInt8] = Array(#"{"amount":10}"#.utf8), signedBody: [UInt8]? = nil, key: PrivateKey? = nil
    ) async throws -> AttestedAndroidKey {
        let signature = try phone.sign(
            counter: counter, binding: binding, method: "POST", path: "/api/transfer?from=1", body: signedBody ?? body, key: key)
        return try await service.verifyAssertion(
            keyId: phone.keyId, counter: counter, signature: signature, binding: binding, consumingChallenge: consuming,
            method: "POST", path: "/api/transfer?from=1", body: body, now: now)
    }

    @Test("a key is registered once; a second attestation of it is credentialExists")
    func register() async throws {
        let phone = try TestAndroidDevice(seed: "service")
        let service = try Self.service(phone)
        let verified = try await Self.register(phone, service)
        #expect(try await service.keys.key(id: phone.keyId) == verified.key)
        await #expect(throws: WebAuthnError(.credentialExists, "")) { try await Self.register(phone, service) }
    }

    @Test("the attestation challenge is used up first, once, whatever the verdict; another kind's is refused")
    func challenges() async throws {
        let phone = try TestAndroidDevice(seed: "challenges")
        let store = InMemoryChallengeStore()
        let service = try Self.service(phone, challenges: .stored(store))
        let issued = try await service.issueChallenge(now: Self.now)
        let wrong = try phone.chain(phone.keyDescription(challenge: Digest.sha256.hash(Array("other".utf8))))
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verifyAttestation(certificateChain: wrong, challenge: issued.challenge, now: Self.now)
        }
        let right = try phone.chain(phone.keyDescription(challenge: Digest.sha256.hash(Array(issued.challenge.utf8))))
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verifyAttestation(certificateChain: right, challenge: issued.challenge, now: Self.now)
        }
        // An App Attest challenge on the same store answers no Android attestation, and stays usable.
        let appAttest = AppAttestService(
            app: AppleApp(teamId: "0352187391", bundleId: "com.example.app"), environment: .production, challenges: .stored(store))
        let apple = try await appAttest.issueChallenge(now: Self.now)
        let chain = try phone.chain(phone.keyDescription(challenge: Digest.sha256.hash(Array(apple.challenge.utf8))))
        do {
            _ = try await service.verifyAttestation(certificateChain: chain, challenge: apple.challenge, now: Self.now)
            Issue.record("an App Attest challenge was accepted")
        } catch let error as WebAuthnError {
            #expect(error.category == .challenge && error.step == "Android key attestation challenge")
        }
        var trace = CeremonyTrace()
        #expect(try await appAttest.consumeChallenge(apple.challenge, now: Self.now, trace: &trace) == nil)
        // Late: past the lifetime.
        let late = try await service.issueChallenge(now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.verifyAttestation(certificateChain: right, challenge: late.challenge, now: Self.now.addingTimeInterval(301))
        }
    }

    @Test("sealed challenges: an Android one answers once; an App Attest one is refused by kind")
    func sealed() async throws {
        let phone = try TestAndroidDevice(seed: "sealed")
        let key = try SealedChallengeKey([UInt8](repeating: 7, count: 32))
        let transport = ChallengeTransport.sealed(key, replayStore: InMemorySealedChallengeReplayStore())
        let service = try Self.service(phone, challenges: transport)
        _ = try await Self.register(phone, service)
        let issued = try await service.issueChallenge(now: Self.now)
        let signed = try await Self.assert(phone, service, counter: 1, binding: issued.challenge, consuming: true)
        #expect(signed.counter == 1)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await Self.assert(phone, service, counter: 2, binding: issued.challenge, consuming: true)
        }
        let appAttest = AppAttestService(
            app: AppleApp(teamId: "0352187391", bundleId: "com.example.app"), environment: .production, challenges: transport)
        let apple = try await appAttest.issueChallenge(now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await Self.assert(phone, service, counter: 3, binding: apple.challenge, consuming: true)
        }
    }

    @Test(
        "a signed request verifies with the stored key and advances the counter; a replay, a lower counter or an altered request is refused"
    )
    func assertions() async throws {
        let phone = try TestAndroidDevice(seed: "assertions")
        let service = try Self.service(phone)
        try await Self.register(phone, service)
        let token = "token-id-7f3a"
        #expect(try await Self.assert(phone, service, counter: 1, binding: token, consuming: false).counter == 1)
        #expect(try await service.keys.key(id: phone.keyId)?.counter == 1)
        // The same request again: its counter is not above the stored one.
        await #expect(throws: WebAuthnError(.signCount, "")) {
            try await Self.assert(phone, service, counter: 1, binding: token, consuming: false)
        }
        #expect(try await Self.assert(phone, service, counter: 5, binding: token, consuming: false).counter == 5)
        await #expect(throws: WebAuthnError(.signCount, "")) {
            try await Self.assert(phone, service, counter: 4, binding: token, consuming: false)
        }
        // The body, the key or the signature differs from what was signed.
        await #expect(throws: WebAuthnError(.signature, "")) {
            try await Self.assert(phone, service, counter: 6, binding: token, consuming: false, signedBody: Array(#"{"amount":1}"#.utf8))
        }
        await #expect(throws: WebAuthnError(.signature, "")) {
            try await Self.assert(
                phone, service, counter: 6, binding: token, consuming: false, key: try PrivateKey.derive(.p256, seed: "thief"))
        }
        let signature = try phone.sign(counter: 6, binding: token, method: "POST", path: "/api/transfer?from=1", body: [])
        for (method, path, binding) in [
            ("GET", "/api/transfer?from=1", token), ("POST", "/api/transfer?from=2", token), ("POST", "/api/transfer?from=1", "other"),
        ] {
            await #expect(throws: WebAuthnError(.signature, "")) {
                try await service.verifyAssertion(
                    keyId: phone.keyId, counter: 6, signature: signature, binding: binding, consumingChallenge: false, method: method,
                    path: path,
                    body: [], now: Self.now)
            }
        }
        await #expect(throws: WebAuthnError(.signature, "")) {
            try await service.verifyAssertion(
                keyId: phone.keyId, counter: 7, signature: signature, binding: token, consumingChallenge: false, method: "POST",
                path: "/api/transfer?from=1", body: [], now: Self.now)
        }
        #expect(try await service.keys.key(id: phone.keyId)?.counter == 5)
        let stranger = try TestAndroidDevice(seed: "never registered")
        await #expect(throws: WebAuthnError(.unknownCredential, "")) {
            try await Self.assert(stranger, service, counter: 1, binding: token, consuming: false)
        }
    }

    @Test("one signed request presented to two nodes sharing a key store is accepted once")
    func twoNodes() async throws {
        let phone = try TestAndroidDevice(seed: "two nodes")
        let keys = InMemoryAndroidAppKeyStore()
        let store = InMemoryChallengeStore()
        let first = try Self.service(phone, challenges: .stored(store), keys: keys)
        let second = try Self.service(phone, challenges: .stored(store), keys: keys)
        try await Self.register(phone, first)
        let results = await withTaskGroup(of: Bool.self) { group in
            for node in [first, second, first, second] {
                group.addTask { (try? await Self.assert(phone, node, counter: 1, binding: "token", consuming: false)) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
    }

    /// A key store where another node accepts a request between this node's read and its write.
    final class RacingStore: AndroidAppKeyStore {
        let inner = InMemoryAndroidAppKeyStore()
        func create(_ key: AttestedAndroidKey) async throws -> Bool { try await inner.create(key) }
        func key(id keyId: [UInt8]) async throws -> AttestedAndroidKey? {
            let read = try await inner.key(id: keyId)
            if let read { _ = try await inner.updateCounter(keyId: keyId, from: read.counter, to: read.counter + 1) }
            return read
        }
        func updateCounter(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
            try await inner.updateCounter(keyId: keyId, from: expected, to: newValue)
        }
    }

    @Test("a request whose counter another node advanced meanwhile is signCount at the key store (compare and swap)")
    func raceLost() async throws {
        let phone = try TestAndroidDevice(seed: "race lost")
        let store = RacingStore()
        let service = try Self.service(phone, keys: store)
        try await Self.register(phone, service)
        do {
            _ = try await Self.assert(phone, service, counter: 5, binding: "token", consuming: false)
            Issue.record("a request was accepted although the stored counter changed while it was verified")
        } catch let error as WebAuthnError {
            #expect(error.category == .signCount && error.step == "Android key store", "\(error)")
        }
        #expect(try await store.inner.key(id: phone.keyId)?.counter == 1)
    }

    @Test("the signed layout is the documented one, field by field")
    func layout() {
        let bytes = AndroidKeyAssertion.signedBytes(counter: 0x0102_0304, binding: "ab", method: "GET", path: "/", body: [])
        let expected: [UInt8] =
            Array("android-key-assertion/1".utf8) + [0, 1, 2, 3, 4] + [0, 0, 0, 2] + Array("ab".utf8) + [0, 0, 0, 3] + Array("GET".utf8)
            + [0, 0, 0, 1] + Array("/".utf8) + Digest.sha256.hash([])
        #expect(bytes == expected)
    }

    @Test("a key store that lost the race refuses the request (compare and swap)")
    func lostRace() async throws {
        let phone = try TestAndroidDevice(seed: "race")
        let keys = InMemoryAndroidAppKeyStore()
        let service = try Self.service(phone, keys: keys)
        let verified = try await Self.register(phone, service)
        #expect(try await keys.updateCounter(keyId: phone.keyId, from: 0, to: 3))
        #expect(try await keys.updateCounter(keyId: phone.keyId, from: 0, to: 4) == false)
        #expect(try await keys.updateCounter(keyId: [1, 2], from: 0, to: 4) == false)
        #expect(verified.key.counter == 0)
    }
}
