import Foundation
import Synchronization
import Testing
import WebAuthnTestSupport

@testable import WebAuthnRP

/// A `finish…` whose last write is the application's (`commit:`): the verified record reaches
/// the caller's own transaction instead of the service's store, with the same refusals (a taken
/// id is `credentialExists`, a lost compare and swap is `signCount`) and the same recording.
@Suite("The application commits a ceremony's last write")
struct ApplicationCommitTests {
    typealias F = CeremonyFixture
    static let now = F.now

    /// The application's own tables: credentials and what a ceremony starts with them (here a
    /// session name), written together under one lock, as one database transaction would.
    final class ApplicationDatabase: Sendable {
        struct Tables {
            var credentials: [[UInt8]: CredentialRecord] = [:]
            var sessions: [String] = []
        }
        let tables = Mutex(Tables())

        /// A registration's transaction: the credential (if its id is free) and a session.
        func register(_ record: CredentialRecord, session: String) -> Bool {
            tables.withLock { tables in
                guard tables.credentials[record.id] == nil else { return false }
                tables.credentials[record.id] = record
                tables.sessions.append(session)
                return true
            }
        }

        /// A login's transaction: the compare and swap on the counter, and a session.
        func login(_ change: CredentialUpdate, session: String) -> Bool {
            tables.withLock { tables in
                guard tables.credentials[change.record.id]?.signCount == change.expectedSignCount else { return false }
                tables.credentials[change.record.id] = change.record
                tables.sessions.append(session)
                return true
            }
        }
    }

    /// Keeps every recording it is handed.
    final class Recordings: CeremonyObserver {
        let kept = Mutex<[CeremonyRecording]>([])
        func ceremonyFinished(_ recording: CeremonyRecording) async { kept.withLock { $0.append(recording) } }
        var categories: [WebAuthnError.Category?] {
            kept.withLock { recordings in
                recordings.map { recording -> WebAuthnError.Category? in
                    if case .rejected(let error) = recording.verdict { return error.category }
                    return nil
                }
            }
        }
    }

    struct AccountError: Error, Equatable { let reason: String }

    /// A registered credential: the service (whose own store stays empty), the application's
    /// database holding the record, and the authenticator.
    static func registered() async throws -> (RelyingPartyService, ApplicationDatabase, TestAuthenticator) {
        let service = RelyingPartyService(relyingParty: F.relyingParty)
        let database = ApplicationDatabase()
        let authenticator = try TestAuthenticator(key: .es256)
        let challenge = F.registrationChallenge(Array(repeating: 0xA1, count: 32), userHandle: authenticator.userHandle)
        try await service.issue(challenge, now: now)
        _ = try await service.finishRegistration(
            try authenticator.register(challenge: challenge.challenge), now: now,
            commit: { database.register($0, session: "registration") })
        return (service, database, authenticator)
    }

    /// A registered credential ready to log in: a service that reads the record from its store
    /// (the application's table backs it here, so its own store is never written by a login),
    /// the application's database, the authenticator and the stored record.
    static func loginSetup() async throws -> (RelyingPartyService, ApplicationDatabase, TestAuthenticator, CredentialRecord) {
        let (_, database, authenticator) = try await registered()
        let record = try #require(database.tables.withLock { $0.credentials[authenticator.credentialId] })
        let service = RelyingPartyService(relyingParty: F.relyingParty, credentials: InMemoryCredentialStore(records: [record]))
        return (service, database, authenticator, record)
    }

    @Test("a registration's record is written by the application's commit, not the service's store")
    func registrationCommitted() async throws {
        let (service, database, authenticator) = try await Self.registered()
        let stored = database.tables.withLock { $0 }
        #expect(stored.credentials[authenticator.credentialId]?.publicKey.isEmpty == false)
        #expect(stored.sessions == ["registration"])
        #expect(try await service.credentials.credential(id: authenticator.credentialId) == nil)
    }

    @Test("a commit that finds the id taken refuses the registration as credentialExists, and the observer sees it")
    func registrationIdTaken() async throws {
        let (service, database, authenticator) = try await Self.registered()
        let challenge = F.registrationChallenge(Array(repeating: 0xA2, count: 32), userHandle: authenticator.userHandle)
        try await service.issue(challenge, now: Self.now)
        let recordings = Recordings()
        await #expect { () async throws in
            _ = try await service.finishRegistration(
                try authenticator.register(challenge: challenge.challenge), now: Self.now, observer: recordings,
                commit: { database.register($0, session: "second") })
        } throws: { error in
            (error as? WebAuthnError)?.category == .credentialExists && (error as? WebAuthnError)?.step == "§7.1 step 27"
        }
        #expect(recordings.categories == [.credentialExists])
        #expect(database.tables.withLock { $0.sessions } == ["registration"])
    }

    @Test("what the application's commit throws (an account refusal) ends the finish as it is")
    func registrationCommitThrows() async throws {
        let service = RelyingPartyService(relyingParty: F.relyingParty)
        let authenticator = try TestAuthenticator(key: .es256)
        let challenge = F.registrationChallenge(Array(repeating: 0xA3, count: 32), userHandle: authenticator.userHandle)
        try await service.issue(challenge, now: Self.now)
        await #expect(throws: AccountError(reason: "cap reached")) {
            _ = try await service.finishRegistration(
                try authenticator.register(challenge: challenge.challenge), now: Self.now,
                commit: { _ in throw AccountError(reason: "cap reached") })
        }
        #expect(try await service.credentials.credential(id: authenticator.credentialId) == nil)
    }

    @Test("a login's compare and swap is the application's: it receives the counter verified against and the new record")
    func loginCommitted() async throws {
        let (service, database, registeredAuthenticator, record) = try await Self.loginSetup()
        var authenticator = registeredAuthenticator
        let challenge = F.authenticationChallenge(Array(repeating: 0xB1, count: 32))
        try await service.issue(challenge, now: Self.now)
        let handed = Mutex<CredentialUpdate?>(nil)
        let verified = try await service.finishAuthentication(
            try authenticator.authenticate(challenge: challenge.challenge), now: Self.now,
            commit: { change in
                handed.withLock { $0 = change }
                return database.login(change, session: "login")
            })
        let change = try #require(handed.withLock { $0 })
        #expect(change.expectedSignCount == record.signCount)
        #expect(change.record == verified.updatedRecord)
        #expect(database.tables.withLock { $0.credentials[authenticator.credentialId]?.signCount } == verified.updatedRecord.signCount)
        #expect(database.tables.withLock { $0.sessions } == ["registration", "login"])
        // The service's own store was not written.
        #expect(try await service.credentials.credential(id: authenticator.credentialId) == record)
    }

    @Test("a commit that loses the compare and swap refuses the login as signCount, and the observer sees it")
    func loginLostRace() async throws {
        let (service, database, registeredAuthenticator, _) = try await Self.loginSetup()
        var authenticator = registeredAuthenticator
        let first = F.authenticationChallenge(Array(repeating: 0xB2, count: 32))
        let second = F.authenticationChallenge(Array(repeating: 0xB3, count: 32))
        try await service.issue(first, now: Self.now)
        try await service.issue(second, now: Self.now)
        let earlier = try authenticator.authenticate(challenge: first.challenge)
        let later = try authenticator.authenticate(challenge: second.challenge)
        // Both are verified against the same stored record (the service's store is not
        // written); the application's table takes the later one first.
        let recordings = Recordings()
        _ = try await service.finishAuthentication(
            later, now: Self.now, observer: recordings, commit: { database.login($0, session: "later") })
        await #expect { () async throws in
            _ = try await service.finishAuthentication(
                earlier, now: Self.now, observer: recordings, commit: { database.login($0, session: "earlier") })
        } throws: { error in
            (error as? WebAuthnError)?.category == .signCount && (error as? WebAuthnError)?.step == "credential store update"
        }
        #expect(recordings.categories == [nil, .signCount])
        #expect(database.tables.withLock { $0.sessions } == ["registration", "later"])
    }
}
