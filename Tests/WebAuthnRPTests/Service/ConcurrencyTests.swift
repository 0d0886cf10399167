import Foundation
import Synchronization
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The registry under concurrent use through ``RelyingPartyService``: many ceremonies
/// at once get the right verdicts, a challenge answers exactly one response however
/// many race it, and a credential id is registered exactly once.
///
/// Responses are built before the tasks start, so the tasks race only the registry.
@Suite("Registry concurrency")
struct ConcurrencyTests {
    typealias F = CeremonyFixture
    static let now = F.now

    /// Distinct bytes for index `i` with a tag, for challenges, ids and user handles.
    static func bytes(_ tag: UInt8, _ i: Int, count: Int = 32) -> [UInt8] {
        [tag] + withUnsafeBytes(of: UInt32(i).bigEndian, Array.init) + Array(repeating: tag, count: count - 5)
    }

    static func authenticator(_ i: Int) throws -> TestAuthenticator {
        var authenticator = try TestAuthenticator(key: .es256, credentialId: bytes(0xC0, i))
        authenticator.userHandle = bytes(0x55, i, count: 16)
        return authenticator
    }

    static func registrationChallenge(_ bytes: [UInt8], user: [UInt8]) -> IssuedChallenge {
        F.registrationChallenge(bytes, userHandle: user)
    }

    /// What a task produced: the verdict's category, or nil when accepted.
    enum Verdict: Sendable, Equatable {
        case accepted
        case rejected(WebAuthnError.Category)
    }

    /// Runs `body` once per input, all concurrently, and collects the verdicts.
    static func race<Input: Sendable, T>(
        _ inputs: [Input],
        _ body: @escaping @Sendable (Input) async throws -> T
    ) async -> [Verdict] {
        await withTaskGroup(of: Verdict.self) { group in
            for input in inputs {
                group.addTask { await verdict { try await body(input) } }
            }
            var out: [Verdict] = []
            for await verdict in group { out.append(verdict) }
            return out
        }
    }

    static func verdict<T>(_ body: () async throws -> T) async -> Verdict {
        do {
            _ = try await body()
            return .accepted
        } catch let error as WebAuthnError {
            return .rejected(error.category)
        } catch {
            Issue.record("unexpected non-verdict error \(error)")
            return .rejected(.malformed)
        }
    }

    @Test("200 registrations and logins at once: every verdict is the expected one, and the records are right")
    func manyCeremonies() async throws {
        let challengeStore = InMemoryChallengeStore()
        let service = RelyingPartyService(relyingParty: F.relyingParty, challenges: .stored(challengeStore))
        let pairs = 100
        // Credentials 0..<100 are registered first (sequentially, the setup); credentials
        // 100..<200 register during the storm while 0..<100 log in.
        var existing: [TestAuthenticator] = []
        for i in 0..<pairs {
            let authenticator = try Self.authenticator(i)
            let challenge = Self.registrationChallenge(Self.bytes(0xA0, i), user: authenticator.userHandle)
            try await service.issue(challenge, now: Self.now)
            _ = try await service.finishRegistration(try authenticator.register(challenge: challenge.challenge), now: Self.now)
            existing.append(authenticator)
        }

        struct Job: Sendable {
            enum Kind: Sendable {
                case register(RegistrationResponse)
                case login(AuthenticationResponse)
            }
            var kind: Kind
            var expected: Verdict
        }
        var jobs: [Job] = []
        for i in 0..<pairs {
            // A new registration; every 7th comes from a foreign origin.
            let newcomer = try Self.authenticator(pairs + i)
            let regChallenge = Self.registrationChallenge(Self.bytes(0xA1, i), user: newcomer.userHandle)
            try await service.issue(regChallenge, now: Self.now)
            var regOptions = TestAuthenticator.RegistrationOptions()
            let foreign = i % 7 == 0
            if foreign { regOptions.clientData = { $0.origin = "https://evil.example" } }
            jobs.append(
                Job(
                    kind: .register(try newcomer.register(challenge: regChallenge.challenge, regOptions)),
                    expected: foreign ? .rejected(.origin) : .accepted))

            // A login of an existing credential; every 5th has a corrupted signature.
            let loginChallenge = F.authenticationChallenge(Self.bytes(0xB0, i))
            try await service.issue(loginChallenge, now: Self.now)
            var loginOptions = TestAuthenticator.AuthenticationOptions()
            let corrupt = i % 5 == 0
            if corrupt { loginOptions.signature = { $0[$0.count - 1] ^= 0x01 } }
            jobs.append(
                Job(
                    kind: .login(try existing[i].authenticate(challenge: loginChallenge.challenge, loginOptions)),
                    expected: corrupt ? .rejected(.signature) : .accepted))
        }
        jobs.shuffle()

        let results = await withTaskGroup(of: (Int, Verdict).self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask {
                    switch job.kind {
                    case .register(let response):
                        return (index, await Self.verdict { try await service.finishRegistration(response, now: Self.now) })
                    case .login(let response):
                        return (index, await Self.verdict { try await service.finishAuthentication(response, now: Self.now) })
                    }
                }
            }
            var out: [Int: Verdict] = [:]
            for await (index, verdict) in group { out[index] = verdict }
            return out
        }
        #expect(results.count == 2 * pairs)
        for (index, job) in jobs.enumerated() {
            #expect(results[index] == job.expected, "job \(index)")
        }

        // Records: accepted registrations are stored, rejected ones are not; accepted logins
        // moved the counter to 1, rejected ones left it at 0.
        for i in 0..<pairs {
            let newcomer = try await service.credentials.credential(id: Self.bytes(0xC0, pairs + i))
            #expect((newcomer != nil) == (i % 7 != 0), "registration \(i)")
            let old = try await service.credentials.credential(id: Self.bytes(0xC0, i))
            #expect(old?.signCount == (i % 5 == 0 ? 0 : 1), "login \(i)")
            #expect(old?.userHandle == Self.bytes(0x55, i, count: 16))
        }
        // Every challenge was consumed, whatever the verdict.
        #expect(challengeStore.count == 0)
    }

    /// A credential store whose lookups return the record as it was when `freeze` was called:
    /// every login then verifies against the same stored record, as logins that run at once do.
    final class FrozenReadStore: CredentialStore {
        let inner = InMemoryCredentialStore()
        private let frozen = Mutex<CredentialRecord?>(nil)

        func freeze(_ record: CredentialRecord?) { frozen.withLock { $0 = record } }
        func create(_ record: CredentialRecord) async throws -> Bool { try await inner.create(record) }
        func credential(id: [UInt8]) async throws -> CredentialRecord? {
            if let record = frozen.withLock({ $0 }), record.id == id { return record }
            return try await inner.credential(id: id)
        }
        func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] { try await inner.credentials(userHandle: userHandle) }
        func update(_ change: CredentialUpdate) async throws -> Bool { try await inner.update(change) }
    }

    @Test("two logins verified against one stored record: the first stored stays, the other is refused as signCount")
    func loginUpdateNotLost() async throws {
        let store = FrozenReadStore()
        let service = RelyingPartyService(relyingParty: F.relyingParty, credentials: store)
        var authenticator = try Self.authenticator(3)
        let regChallenge = Self.registrationChallenge(Self.bytes(0xA0, 3), user: authenticator.userHandle)
        try await service.issue(regChallenge, now: Self.now)
        _ = try await service.finishRegistration(try authenticator.register(challenge: regChallenge.challenge), now: Self.now)
        store.freeze(try await store.inner.credential(id: authenticator.credentialId))

        let first = F.authenticationChallenge(Self.bytes(0xB0, 31)), second = F.authenticationChallenge(Self.bytes(0xB0, 32))
        try await service.issue(first, now: Self.now)
        try await service.issue(second, now: Self.now)
        let earlier = try authenticator.authenticate(challenge: first.challenge)
        let later = try authenticator.authenticate(challenge: second.challenge)
        let stored = try await service.finishAuthentication(later, now: Self.now).updatedRecord.signCount
        #expect(stored > 0)
        // the earlier login verifies (its counter is above the frozen record's) but lost the
        // compare and swap: refused with signCount naming the store, and the later counter stays
        await #expect { try await service.finishAuthentication(earlier, now: Self.now) } throws: { error in
            let error = try #require(error as? WebAuthnError)
            return error.category == .signCount && error.step == "credential store update"
        }
        #expect(try await store.inner.credential(id: authenticator.credentialId)?.signCount == stored)
    }

    @Test("50 tasks racing one valid assertion: exactly one is accepted, the rest are rejected as challenge")
    func sameAssertionRaced() async throws {
        let service = RelyingPartyService(relyingParty: F.relyingParty)
        var authenticator = try Self.authenticator(1)
        let regChallenge = Self.registrationChallenge(Self.bytes(0xA0, 1), user: authenticator.userHandle)
        try await service.issue(regChallenge, now: Self.now)
        _ = try await service.finishRegistration(try authenticator.register(challenge: regChallenge.challenge), now: Self.now)

        let challenge = F.authenticationChallenge(Self.bytes(0xB0, 1))
        try await service.issue(challenge, now: Self.now)
        let response = try authenticator.authenticate(challenge: challenge.challenge)
        let verdicts = await Self.race(Array(0..<50)) { _ in try await service.finishAuthentication(response, now: Self.now) }
        #expect(verdicts.filter { $0 == .accepted }.count == 1)
        #expect(verdicts.filter { $0 == .rejected(.challenge) }.count == 49)
        #expect(try await service.credentials.credential(id: authenticator.credentialId)?.signCount == 1)
    }

    @Test("50 tasks racing one valid registration: exactly one is accepted, the rest are rejected as challenge")
    func sameRegistrationRaced() async throws {
        let service = RelyingPartyService(relyingParty: F.relyingParty)
        let authenticator = try Self.authenticator(2)
        let challenge = Self.registrationChallenge(Self.bytes(0xA0, 2), user: authenticator.userHandle)
        try await service.issue(challenge, now: Self.now)
        let response = try authenticator.register(challenge: challenge.challenge)
        let verdicts = await Self.race(Array(0..<50)) { _ in try await service.finishRegistration(response, now: Self.now) }
        #expect(verdicts.filter { $0 == .accepted }.count == 1)
        #expect(verdicts.filter { $0 == .rejected(.challenge) }.count == 49)
    }

    @Test("one credential registered concurrently under different challenges: one accepted, the others credentialExists")
    func sameCredentialTwice() async throws {
        // Repeated rounds so the two registrations really do overlap in some of them.
        for round in 0..<10 {
            let service = RelyingPartyService(relyingParty: F.relyingParty)
            let authenticator = try Self.authenticator(round)
            var responses: [RegistrationResponse] = []
            for attempt in 0..<2 {
                let challenge = Self.registrationChallenge(Self.bytes(0xA0 + UInt8(attempt), round), user: authenticator.userHandle)
                try await service.issue(challenge, now: Self.now)
                responses.append(try authenticator.register(challenge: challenge.challenge))
            }
            let verdicts = await Self.race(responses) { response in try await service.finishRegistration(response, now: Self.now) }
            #expect(verdicts.sorted { "\($0)" < "\($1)" } == [.accepted, .rejected(.credentialExists)], "round \(round)")
        }
    }

    @Test("twenty registrations of one credential at once: exactly one is stored")
    func sameCredentialManyTimes() async throws {
        let service = RelyingPartyService(relyingParty: F.relyingParty)
        let authenticator = try Self.authenticator(3)
        var responses: [RegistrationResponse] = []
        for attempt in 0..<20 {
            let challenge = Self.registrationChallenge(Self.bytes(0xA0, attempt), user: authenticator.userHandle)
            try await service.issue(challenge, now: Self.now)
            responses.append(try authenticator.register(challenge: challenge.challenge))
        }
        let verdicts = await Self.race(responses) { response in try await service.finishRegistration(response, now: Self.now) }
        #expect(verdicts.filter { $0 == .accepted }.count == 1)
        #expect(verdicts.filter { $0 == .rejected(.credentialExists) }.count == 19)
        #expect(try await service.credentials.credentials(userHandle: authenticator.userHandle).count == 1)
    }

    @Test("the challenge store under 100 concurrent consumers of one challenge hands it out once")
    func storeConsumeRace() async throws {
        let store = InMemoryChallengeStore()
        let challenge = F.authenticationChallenge(Self.bytes(0xB0, 9))
        try await store.issue(challenge, now: Self.now)
        let got = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask { ((try? await store.consume(challenge.challenge)) ?? nil) != nil }
            }
            var count = 0
            for await won in group where won { count += 1 }
            return count
        }
        #expect(got == 1)
    }

    @Test("concurrent issues into a bounded store never exceed its capacity")
    func storeIssueRace() async throws {
        let store = InMemoryChallengeStore(capacity: 40)
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<200 {
                group.addTask {
                    do {
                        try await store.issue(F.authenticationChallenge(Self.bytes(0xB1, i)), now: Self.now)
                        return true
                    } catch {
                        return false
                    }
                }
            }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        #expect(accepted == 40)
        #expect(store.count == 40)
    }
}
