import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The App Attest service and key store: storing attested keys, finding them for assertions,
/// advancing counters atomically, and the caller's client-data check (Apple's step 6).
@Suite("App Attest service")
struct AppAttestServiceTests {
    typealias T = AppAttestVerifierTests

    static func service(keys: any AppAttestKeyStore = InMemoryAppAttestKeyStore()) -> AppAttestService {
        AppAttestService(app: T.app, environment: .production, trustAnchors: [T.authority.root.certificate], keys: keys)
    }

    /// Attests `phone`'s key over a challenge the service issued.
    @discardableResult
    static func attest(_ phone: TestAppAttestDevice, _ service: AppAttestService) async throws -> VerifiedAppAttestation {
        let issued = try await service.issueChallenge(now: T.now)
        return try await service.verifyAttestation(
            keyId: phone.keyId, attestation: try phone.attest(challenge: Array(issued.challenge.utf8)), challenge: issued.challenge,
            now: T.now)
    }

    @Test("attest stores the key with its receipt; a second attestation of the key id is credentialExists")
    func attestStores() async throws {
        let service = Self.service()
        let phone = try T.device("service phone")
        let verified = try await Self.attest(phone, service)
        let stored = try #require(try await service.keys.key(id: phone.keyId))
        #expect(stored == verified.key)
        #expect(stored.receipt == verified.key.receipt && !stored.receipt.isEmpty)
        await #expect(throws: WebAuthnError(.credentialExists, "")) { try await Self.attest(phone, service) }
    }

    @Test("attest with the app's own clientDataHash stores the key; the wrong bytes store nothing")
    func attestWithClientDataHash() async throws {
        let service = Self.service()
        let phone = try T.device("request-hash phone")
        let request = Digest.sha256.hash(Array("{\"challenge\":\"c1\",\"user\":7}".utf8))
        let object = try phone.attest(clientDataHash: request)
        let first = try await service.issueChallenge(now: T.now)
        await #expect(throws: WebAuthnError(.attestation, "")) {
            try await service.verifyAttestation(
                keyId: phone.keyId, attestation: object, challenge: first.challenge, clientDataHash: Digest.sha256.hash(request),
                now: T.now)
        }
        #expect(try await service.keys.key(id: phone.keyId) == nil)
        let second = try await service.issueChallenge(now: T.now)
        let verified = try await service.verifyAttestation(
            keyId: phone.keyId, attestation: object, challenge: second.challenge, clientDataHash: request, now: T.now)
        #expect(try await service.keys.key(id: phone.keyId) == verified.key)
    }

    @Test("a rejected attestation stores nothing")
    func rejectedNotStored() async throws {
        let service = Self.service()
        let phone = try T.device("rejected phone")
        var options = TestAppAttestDevice.AttestationOptions()
        options.signCount = 3
        let issued = try await service.issueChallenge(now: T.now)
        await #expect(throws: WebAuthnError(.attestation, "")) {
            try await service.verifyAttestation(
                keyId: phone.keyId, attestation: try phone.attest(challenge: Array(issued.challenge.utf8), options),
                challenge: issued.challenge, now: T.now)
        }
        #expect(try await service.keys.key(id: phone.keyId) == nil)
    }

    @Test("assert finds the key, stores the new counter, and refuses a replay with signCount")
    func assertAdvances() async throws {
        let service = Self.service()
        var phone = try T.device("assert phone")
        try await Self.attest(phone, service)
        let body = Array("{\"order\":1}".utf8)
        let assertion = try phone.assert(clientData: body)
        let verified = try await service.verifyAssertion(
            keyId: phone.keyId, assertion: assertion, clientData: body, challenge: nil, now: T.now)
        #expect(verified.updatedKey.signCount == 1)
        #expect(try await service.keys.key(id: phone.keyId)?.signCount == 1)
        await #expect(throws: WebAuthnError(.signCount, "")) {
            try await service.verifyAssertion(keyId: phone.keyId, assertion: assertion, clientData: body, challenge: nil, now: T.now)
        }
    }

    @Test("an assertion for a key id never attested is unknownCredential")
    func unknownKey() async throws {
        var phone = try T.device("stranger")
        await #expect(throws: WebAuthnError(.unknownCredential, "")) {
            try await Self.service().verifyAssertion(
                keyId: phone.keyId, assertion: try phone.assert(clientData: [1]), clientData: [1], challenge: nil, now: T.now)
        }
    }

    @Test("the client-data check: a challenge prefix or exact bytes pass; anything else is challenge")
    func clientDataCheck() async throws {
        let service = Self.service()
        var phone = try T.device("check phone")
        try await Self.attest(phone, service)
        let challenge = [UInt8](repeating: 0x5a, count: 16)
        let clientData = challenge + Array("POST /v1/orders".utf8)
        _ = try await service.verifyAssertion(
            keyId: phone.keyId, assertion: try phone.assert(clientData: clientData), clientData: clientData,
            challenge: nil, check: .startsWith(challenge: challenge), now: T.now)
        _ = try await service.verifyAssertion(
            keyId: phone.keyId, assertion: try phone.assert(clientData: clientData), clientData: clientData,
            challenge: nil, check: .equals(clientData), now: T.now)
        let report = try await service.assertionReport(
            keyId: phone.keyId, assertion: try phone.assert(clientData: clientData),
            clientData: clientData, challenge: nil, check: .startsWith(challenge: [0x01] + challenge), now: T.now)
        guard case .failure(let error) = report.result else { Issue.record("accepted"); return }
        #expect(error.category == .challenge && error.step == "App Attest assertion step 6")
        #expect(!AppAttestClientDataCheck.startsWith(challenge: []).run(clientData))
        // a refused check leaves the counter where it was
        #expect(try await service.keys.key(id: phone.keyId)?.signCount == 2)
    }

    @Test("two assertions racing with the same stored counter: only one is accepted")
    func counterCompareAndSwap() async throws {
        let store = InMemoryAppAttestKeyStore()
        let key = AttestedAppKey(keyId: [1, 2, 3], publicKey: [4], signCount: 7, environment: .production)
        #expect(try await store.create(key))
        #expect(try await !store.create(key))
        #expect(try await store.updateSignCount(keyId: [1, 2, 3], from: 7, to: 8))
        #expect(try await !store.updateSignCount(keyId: [1, 2, 3], from: 7, to: 9))
        #expect(try await !store.updateSignCount(keyId: [9], from: 0, to: 1))
        #expect(try await store.key(id: [1, 2, 3])?.signCount == 8)
    }

    @Test("the in-memory store refuses keys beyond its capacity")
    func capacity() async throws {
        let store = InMemoryAppAttestKeyStore(capacity: 1)
        #expect(try await store.create(AttestedAppKey(keyId: [1], publicKey: [], signCount: 0, environment: .production)))
        await #expect(throws: WebAuthnError(.serverFault, "")) {
            try await store.create(AttestedAppKey(keyId: [2], publicKey: [], signCount: 0, environment: .production))
        }
    }

    @Test("the report's trace names every App Attest step of both ceremonies")
    func traces() async throws {
        let service = Self.service()
        var phone = try T.device("trace phone")
        let issued = try await service.issueChallenge(now: T.now)
        let attestation = try await service.attestationReport(
            keyId: phone.keyId, attestation: try phone.attest(challenge: Array(issued.challenge.utf8)), challenge: issued.challenge,
            clientDataHash: Digest.sha256.hash(Array(issued.challenge.utf8)), now: T.now)
        #expect((1...9).allSatisfy { n in attestation.trace.steps.contains { $0.step == "App Attest attestation step \(n)" } })
        #expect(attestation.trace.steps.first?.step == "App Attest challenge")
        let assertion = try await service.assertionReport(
            keyId: phone.keyId, assertion: try phone.assert(clientData: [3]), clientData: [3], challenge: nil, now: T.now)
        #expect((1...6).allSatisfy { n in assertion.trace.steps.contains { $0.step == "App Attest assertion step \(n)" } })
    }
}
