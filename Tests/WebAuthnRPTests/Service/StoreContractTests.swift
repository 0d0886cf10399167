import Foundation
import Synchronization
import Testing
import WebAuthnTestSupport

@testable import WebAuthnRP

/// The store contracts as Deploying.md documents them, held by a store written from that
/// documentation alone: a table keyed by credential id, `INSERT … ON CONFLICT (id) DO NOTHING`
/// returning whether a row went in, and `UPDATE … WHERE id = $1 AND sign_count = $2` returning
/// whether a row changed.
@Suite("Store contracts (a store written from Deploying.md)")
struct StoreContractTests {
    let now = CeremonyFixture.now

    /// One row per credential; each method is the one documented statement.
    final class DocumentedSQLStore: CredentialStore {
        private let table = Mutex([[UInt8]: (signCount: UInt32, record: CredentialRecord)]())
        /// Stands for a concurrent login that commits between this login's read and its update.
        let concurrentLoginAfterRead = Mutex(false)

        init(_ records: [CredentialRecord] = []) {
            table.withLock { for record in records { $0[record.id] = (record.signCount, record) } }
        }

        // INSERT INTO credentials … ON CONFLICT (id) DO NOTHING RETURNING 1
        func create(_ record: CredentialRecord) async throws -> Bool {
            table.withLock { rows in
                guard rows[record.id] == nil else { return false }
                rows[record.id] = (record.signCount, record)
                return true
            }
        }

        // SELECT record FROM credentials WHERE id = $1
        func credential(id: [UInt8]) async throws -> CredentialRecord? {
            let row = table.withLock { $0[id]?.record }
            if concurrentLoginAfterRead.withLock({ $0 }) {
                table.withLock { rows in
                    rows[id]?.signCount += 1; rows[id]?.record.signCount += 1
                }
            }
            return row
        }

        // SELECT record FROM credentials WHERE user_handle = $1
        func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
            table.withLock { $0.values.map(\.record).filter { $0.userHandle == userHandle } }
        }

        // UPDATE credentials SET sign_count = $3, … WHERE id = $1 AND sign_count = $2
        func update(_ change: CredentialUpdate) async throws -> Bool {
            table.withLock { rows in
                guard let row = rows[change.record.id], row.signCount == change.expectedSignCount else { return false }
                rows[change.record.id] = (change.record.signCount, change.record)
                return true
            }
        }
    }

    func login(_ service: RelyingPartyService, _ authenticator: inout TestAuthenticator) async throws -> VerifiedAuthentication {
        let start = try await service.beginAuthentication(now: now)
        let response = try authenticator.authenticate(challenge: start.options.challenge.bytes)
        return try await service.finishAuthentication(response, challenge: start.challenge, now: now)
    }

    @Test("acceptAndFlag: a counter regression is accepted, flagged and stored by the documented update")
    func acceptAndFlagStored() async throws {
        var authenticator = try TestAuthenticator(key: .es256)
        authenticator.signCount = 3  // below the stored 40: a regression
        let store = DocumentedSQLStore([authenticator.record(signCount: 40)])
        let policy = VerificationPolicy(counter: .acceptAndFlag)
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, policy: policy, credentials: store)
        let verified = try await login(service, &authenticator)
        #expect(verified.counterRegressed)
        let stored = try #require(try await store.credential(id: authenticator.credentialId))
        #expect(stored.signCount == 40)  // the stored count is kept
        #expect(stored.uvInitialized == verified.updatedRecord.uvInitialized)
        #expect(stored == verified.updatedRecord)  // the login's record went in
        // And the next flagged login goes through the same way.
        #expect(try await login(service, &authenticator).counterRegressed)
    }

    @Test("a login whose stored counter moved after its read is refused as signCount at the store's step")
    func lostRaceRefused() async throws {
        var authenticator = try TestAuthenticator(key: .es256)
        authenticator.signCount = 10
        let store = DocumentedSQLStore([authenticator.record(signCount: 5)])
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, credentials: store)
        store.concurrentLoginAfterRead.withLock { $0 = true }
        await #expect { _ = try await login(service, &authenticator) } throws: { error in
            let error = try #require(error as? WebAuthnError)
            return error.category == .signCount && error.step == "credential store update"
        }
        store.concurrentLoginAfterRead.withLock { $0 = false }
        // The concurrent login's counter stayed (5 + 1 by the stand-in), not this one's.
        #expect(try await store.credential(id: authenticator.credentialId)?.signCount == 6)
        #expect(try await login(service, &authenticator).updatedRecord.signCount > 6)
    }

    @Test("a duplicate credential id is create's false, refused as credentialExists at §7.1 step 27")
    func duplicateIdRefused() async throws {
        let authenticator = try TestAuthenticator(key: .es256)
        let store = DocumentedSQLStore([authenticator.record(signCount: 7)])
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, credentials: store)
        let start = try await service.beginRegistration(
            RegistrationRequest(
                user: PublicKeyCredentialUserEntityJSON(
                    id: Base64URLBytes(authenticator.userHandle), name: "ada", displayName: "Ada"), excludeExistingCredentials: false),
            now: now)
        let response = try authenticator.register(challenge: start.options.challenge.bytes)
        await #expect { _ = try await service.finishRegistration(response, challenge: start.challenge, now: now) } throws: { error in
            let error = try #require(error as? WebAuthnError)
            return error.category == .credentialExists && error.step == "§7.1 step 27"
        }
        #expect(try await store.credential(id: authenticator.credentialId)?.signCount == 7)  // unchanged
    }

    @Test("the in-memory store keeps the documented contracts: create's false, update's compare and swap")
    func inMemorySameContract() async throws {
        let record = CredentialRecord(id: [1, 2, 3], publicKey: [0xA0], signCount: 12, userHandle: [9])
        for store in [InMemoryCredentialStore(records: [record]) as any CredentialStore, DocumentedSQLStore([record])] {
            #expect(try await store.create(record) == false)
            var next = record
            next.signCount = 13
            #expect(try await store.update(CredentialUpdate(expectedSignCount: 11, record: next)) == false)
            #expect(try await store.credential(id: record.id)?.signCount == 12)
            #expect(try await store.update(CredentialUpdate(expectedSignCount: 12, record: next)))
            #expect(try await store.credential(id: record.id)?.signCount == 13)
            next.id = [4]
            #expect(try await store.update(CredentialUpdate(expectedSignCount: 13, record: next)) == false)
            #expect(try await store.credential(id: [4]) == nil)
        }
    }
}
