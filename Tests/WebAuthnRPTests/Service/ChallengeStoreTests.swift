import Foundation
import Testing

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The challenge store and the service's use of it: single use, expiry, ceremony
/// binding, capacity with eviction, duplicates.
@Suite("Challenge store")
struct ChallengeStoreTests {
    static let now = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01T00:00:00Z
    static let relyingParty = RelyingParty(id: "example.org", origins: ["https://example.org"])

    static func challenge(
        _ seed: UInt8, kind: CeremonyKind = .registration,
        expiresAt: Date = now.addingTimeInterval(300)
    ) -> IssuedChallenge {
        IssuedChallenge(
            challenge: Array(repeating: seed, count: 32), kind: kind, rpId: "example.org",
            userHandle: [1, 2, 3], offeredAlgorithms: [.es256], expiresAt: expiresAt)
    }

    /// The store fault an error reports: `full` for a store at capacity, else the message; nil
    /// when it is not a ``WebAuthnError/Category/serverFault``.
    static func storeFault(_ error: any Error) -> String? {
        guard let error = error as? WebAuthnError, error.category == .serverFault else { return nil }
        return error.message.hasPrefix("full: ") ? "full" : error.message
    }

    // MARK: Store

    @Test("consume returns an issued challenge exactly once")
    func singleUse() async throws {
        let store = InMemoryChallengeStore()
        let issued = Self.challenge(7)
        try await store.issue(issued, now: Self.now)
        #expect(store.count == 1)
        let first = try await store.consume(issued.challenge)
        #expect(first == issued)
        let second = try await store.consume(issued.challenge)
        #expect(second == nil)
        #expect(store.count == 0)
    }

    @Test("a challenge never issued is not consumable")
    func neverIssued() async throws {
        let store = InMemoryChallengeStore()
        try await store.issue(Self.challenge(1), now: Self.now)
        let other = try await store.consume(Array(repeating: 2, count: 32))
        #expect(other == nil)
        #expect(store.count == 1)
    }

    @Test("consume hands back an expired challenge so the caller can report expiry")
    func consumeReturnsExpired() async throws {
        let store = InMemoryChallengeStore()
        let issued = Self.challenge(3, expiresAt: Self.now.addingTimeInterval(1))
        try await store.issue(issued, now: Self.now)
        let consumed = try await store.consume(issued.challenge)
        #expect(consumed?.expiresAt == Self.now.addingTimeInterval(1))
    }

    @Test("issuing the same challenge bytes twice is refused while the first is outstanding")
    func duplicateIssue() async throws {
        let store = InMemoryChallengeStore()
        try await store.issue(Self.challenge(9), now: Self.now)
        await #expect { try await store.issue(Self.challenge(9, kind: .authentication), now: Self.now) } throws: {
            Self.storeFault($0) == "this challenge is already outstanding"
        }
        // The original binding is kept, not replaced by the refused one.
        let kept = try await store.consume(Self.challenge(9).challenge)
        #expect(kept?.kind == .registration)
        // Once consumed, the same bytes may be issued again.
        try await store.issue(Self.challenge(9), now: Self.now)
        #expect(store.count == 1)
    }

    @Test("a full store with no expired entries refuses with capacityExceeded")
    func capacityExceeded() async throws {
        let store = InMemoryChallengeStore(capacity: 3)
        for seed in UInt8(1)...3 { try await store.issue(Self.challenge(seed), now: Self.now) }
        await #expect { try await store.issue(Self.challenge(4), now: Self.now) } throws: { error in
            guard let fault = error as? WebAuthnError else { return false }
            return Self.storeFault(fault) == "full" && fault.step == "challenge store" && fault.httpStatus == 503
        }
        #expect(store.count == 3)
        // Consuming one frees a slot.
        _ = try await store.consume(Self.challenge(2).challenge)
        try await store.issue(Self.challenge(4), now: Self.now)
        #expect(store.count == 3)
    }

    @Test("a full store evicts expired challenges before refusing")
    func evictsExpired() async throws {
        let store = InMemoryChallengeStore(capacity: 3)
        try await store.issue(Self.challenge(1, expiresAt: Self.now.addingTimeInterval(10)), now: Self.now)
        try await store.issue(Self.challenge(2, expiresAt: Self.now.addingTimeInterval(10)), now: Self.now)
        try await store.issue(Self.challenge(3, expiresAt: Self.now.addingTimeInterval(1_000)), now: Self.now)
        // At now + 20 the first two have expired: issuing evicts them.
        let later = Self.now.addingTimeInterval(20)
        try await store.issue(Self.challenge(4, expiresAt: later.addingTimeInterval(300)), now: later)
        #expect(store.count == 2)
        #expect(try await store.consume(Self.challenge(1).challenge) == nil)
        #expect(try await store.consume(Self.challenge(2).challenge) == nil)
        #expect(try await store.consume(Self.challenge(3).challenge) != nil)
        #expect(try await store.consume(Self.challenge(4).challenge) != nil)
    }

    @Test("a challenge is answerable through its expiry instant, so eviction waits until after it")
    func evictsAtBoundary() async throws {
        let store = InMemoryChallengeStore(capacity: 1)
        try await store.issue(Self.challenge(1, expiresAt: Self.now.addingTimeInterval(5)), now: Self.now)
        for offset in [4.0, 5.0] {
            await #expect { try await store.issue(Self.challenge(2), now: Self.now.addingTimeInterval(offset)) } throws: {
                Self.storeFault($0) == "full"
            }
        }
        try await store.issue(Self.challenge(2), now: Self.now.addingTimeInterval(5.001))
        #expect(store.count == 1)
    }

    @Test("a challenge with a NaN expiry is evicted at the next issue and does not stall the queue")
    func evictsNaNExpiry() async throws {
        let store = InMemoryChallengeStore(capacity: 2)
        try await store.issue(Self.challenge(1, expiresAt: Date(timeIntervalSinceReferenceDate: .nan)), now: Self.now)
        try await store.issue(Self.challenge(2, expiresAt: Self.now.addingTimeInterval(5)), now: Self.now)
        // Both slots are taken until the NaN one goes; later the second expires normally too.
        try await store.issue(Self.challenge(3, expiresAt: Self.now.addingTimeInterval(100)), now: Self.now.addingTimeInterval(1))
        #expect(try await store.consume(Self.challenge(1).challenge) == nil)
        try await store.issue(Self.challenge(4, expiresAt: Self.now.addingTimeInterval(100)), now: Self.now.addingTimeInterval(6))
        #expect(try await store.consume(Self.challenge(2).challenge) == nil)
        #expect(store.count == 2)
    }

    @Test("capacity is at least one")
    func capacityFloor() async throws {
        #expect(InMemoryChallengeStore(capacity: 0).capacity == 1)
        #expect(InMemoryChallengeStore(capacity: -5).capacity == 1)
        #expect(InMemoryChallengeStore().capacity == 100_000)
    }

    @Test("memory stays bounded: many issues over time never exceed capacity")
    func boundedUnderChurn() async throws {
        let store = InMemoryChallengeStore(capacity: 64)
        var refused = 0
        for step in 0..<5_000 {
            let time = Self.now.addingTimeInterval(Double(step))
            var bytes = withUnsafeBytes(of: UInt32(step).bigEndian, Array.init)
            bytes += Array(repeating: 0xAB, count: 28)
            let issued = IssuedChallenge(
                challenge: bytes, kind: .authentication, rpId: "example.org",
                expiresAt: time.addingTimeInterval(100))
            do {
                try await store.issue(issued, now: time)
            } catch let error where Self.storeFault(error) == "full" {
                refused += 1
            }
            #expect(store.count <= 64)
        }
        // 100 s lifetime, one issue per second, capacity 64: the store fills, then refuses
        // until entries expire; it never grows past its capacity.
        #expect(refused > 0)
        #expect(store.count == 64)
    }

    // MARK: Through the service

    static func service(store: InMemoryChallengeStore = InMemoryChallengeStore()) -> RelyingPartyService {
        RelyingPartyService(relyingParty: relyingParty, challenges: .stored(store))
    }

    /// A registration response whose client data does not even parse: the checks that
    /// come before parsing (challenge binding, expiry) decide these verdicts.
    static func junkRegistration() -> RegistrationResponse {
        RegistrationResponse(id: "AQID", rawId: [1, 2, 3], clientDataJSON: Array("not json".utf8), attestationObject: [0xA0])
    }

    static func junkAuthentication() -> AuthenticationResponse {
        AuthenticationResponse(
            id: "AQID", rawId: [1, 2, 3], clientDataJSON: Array("not json".utf8),
            authenticatorData: [], signature: [], userHandle: nil)
    }

    @Test("an expired challenge is rejected by the service as category challenge, and consumed")
    func serviceReportsExpiry() async throws {
        let store = InMemoryChallengeStore()
        let service = Self.service(store: store)
        let issued = Self.challenge(5, expiresAt: Self.now.addingTimeInterval(300))
        try await service.issue(issued, now: Self.now)
        let report = try await service.finishRegistrationReport(
            Self.junkRegistration(), challenge: .session(issued.challenge),
            now: Self.now.addingTimeInterval(300.001))
        guard case .failure(let error) = report.result else {
            Issue.record("an expired challenge was accepted")
            return
        }
        #expect(error.category == .challenge)
        #expect(error.message.contains("expired"))
        #expect(store.count == 0)
        // Answering again finds nothing outstanding: still `challenge`, now "not issued or already used".
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.finishRegistration(Self.junkRegistration(), challenge: .session(issued.challenge), now: Self.now)
        }
    }

    @Test("a challenge at its expiry instant passes the challenge step")
    func serviceBeforeExpiry() async throws {
        let service = Self.service()
        let issued = Self.challenge(6, expiresAt: Self.now.addingTimeInterval(300))
        try await service.issue(issued, now: Self.now)
        // The junk client data then fails to parse: malformed, not challenge.
        await #expect(throws: WebAuthnError(.malformed, "")) {
            try await service.finishRegistration(
                Self.junkRegistration(), challenge: .session(issued.challenge),
                now: Self.now.addingTimeInterval(300))
        }
    }

    @Test("a challenge issued for registration answered by an authentication is rejected as challenge")
    func registrationChallengeInAuthentication() async throws {
        let store = InMemoryChallengeStore()
        let service = Self.service(store: store)
        let issued = Self.challenge(11, kind: .registration)
        try await service.issue(issued, now: Self.now)
        let report = try await service.finishAuthenticationReport(
            Self.junkAuthentication(), challenge: .session(issued.challenge),
            now: Self.now)
        guard case .failure(let error) = report.result else {
            Issue.record("a registration challenge was accepted for an authentication")
            return
        }
        #expect(error.category == .challenge)
        #expect(error.message.contains("registration"))
        #expect(store.count == 0)  // consumed all the same
    }

    @Test("a challenge issued for authentication answered by a registration is rejected as challenge")
    func authenticationChallengeInRegistration() async throws {
        let service = Self.service()
        let issued = Self.challenge(12, kind: .authentication)
        try await service.issue(issued, now: Self.now)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            try await service.finishRegistration(Self.junkRegistration(), challenge: .session(issued.challenge), now: Self.now)
        }
    }

    @Test("a challenge that was never issued is rejected as challenge")
    func serviceNeverIssued() async throws {
        let service = Self.service()
        let report = try await service.finishAuthenticationReport(
            Self.junkAuthentication(),
            challenge: .session(Array(repeating: 1, count: 32)), now: Self.now)
        guard case .failure(let error) = report.result else {
            Issue.record("an unissued challenge was accepted")
            return
        }
        #expect(error.category == .challenge)
        #expect(report.trace.steps.first?.step == "consume")
    }

    @Test("without a session challenge, unparsable client data is malformed and consumes nothing")
    func serviceNoSessionChallenge() async throws {
        let store = InMemoryChallengeStore()
        let service = Self.service(store: store)
        try await service.issue(Self.challenge(13), now: Self.now)
        await #expect(throws: WebAuthnError(.malformed, "")) {
            try await service.finishRegistration(Self.junkRegistration(), now: Self.now)
        }
        #expect(store.count == 1)
    }

    @Test("the service passes store refusals through as serverFault")
    func serviceCapacity() async throws {
        let service = Self.service(store: InMemoryChallengeStore(capacity: 1))
        try await service.issue(Self.challenge(1), now: Self.now)
        await #expect { try await service.issue(Self.challenge(2), now: Self.now) } throws: {
            Self.storeFault($0) == "full"
        }
    }
}
