import Foundation
import Testing

@testable import WebAuthnRP

/// The in-memory credential store: create-if-absent, lookups, update, capacity.
@Suite("Credential store")
struct CredentialStoreTests {
    static func record(_ id: UInt8, user: UInt8? = 1, signCount: UInt32 = 0) -> CredentialRecord {
        CredentialRecord(
            id: Array(repeating: id, count: 16), publicKey: [0xA1, 0x01, 0x02],
            signCount: signCount, userHandle: user.map { [$0] })
    }

    /// The store fault an error reports: `full` for a store at capacity, else the message; nil
    /// when it is not a ``WebAuthnError/Category/serverFault``.
    static func storeFault(_ error: any Error) -> String? {
        guard let error = error as? WebAuthnError, error.category == .serverFault else { return nil }
        return error.message.hasPrefix("full: ") ? "full" : error.message
    }

    @Test("create stores a new record and refuses a second with the same id, changing nothing")
    func createIfAbsent() async throws {
        let store = InMemoryCredentialStore()
        #expect(try await store.create(Self.record(1, signCount: 5)))
        var other = Self.record(1, user: 2, signCount: 99)
        other.transports = ["usb"]
        #expect(try await store.create(other) == false)
        let stored = try await store.credential(id: Self.record(1).id)
        #expect(stored?.signCount == 5)
        #expect(stored?.userHandle == [1])
        #expect(stored?.transports == [])
    }

    @Test("lookup by id finds exactly that record; unknown ids find nothing")
    func lookupById() async throws {
        let store = InMemoryCredentialStore()
        _ = try await store.create(Self.record(1))
        _ = try await store.create(Self.record(2))
        #expect(try await store.credential(id: Self.record(2).id) == Self.record(2))
        #expect(try await store.credential(id: Self.record(3).id) == nil)
        #expect(try await store.credential(id: []) == nil)
        // A prefix of an id is a different id.
        #expect(try await store.credential(id: Array(Self.record(1).id.dropLast())) == nil)
    }

    @Test("lookup by user handle returns every record of that user and no other")
    func lookupByUser() async throws {
        let store = InMemoryCredentialStore()
        _ = try await store.create(Self.record(1, user: 7))
        _ = try await store.create(Self.record(2, user: 7))
        _ = try await store.create(Self.record(3, user: 8))
        _ = try await store.create(Self.record(4, user: nil))
        let seven = try await store.credentials(userHandle: [7])
        #expect(Set(seven.map(\.id)) == [Self.record(1).id, Self.record(2).id])
        #expect(try await store.credentials(userHandle: [8]).map(\.id) == [Self.record(3).id])
        #expect(try await store.credentials(userHandle: [9]).isEmpty)
        #expect(try await store.credentials(userHandle: []).isEmpty)
    }

    @Test("update replaces the record with the same id")
    func update() async throws {
        let store = InMemoryCredentialStore()
        _ = try await store.create(Self.record(1))
        var updated = Self.record(1, signCount: 42)
        updated.backupState = true
        updated.uvInitialized = true
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 0, record: updated)))
        let stored = try await store.credential(id: updated.id)
        #expect(stored?.signCount == 42)
        #expect(stored?.backupState == true)
        #expect(stored?.uvInitialized == true)
    }

    @Test("update is a compare and swap on signCount: a changed counter is a lost race, false, and changes nothing")
    func updateCompareAndSwap() async throws {
        let store = InMemoryCredentialStore()
        _ = try await store.create(Self.record(1, signCount: 12))
        var stale = Self.record(1, signCount: 13)
        stale.backupState = true
        // another login moved the counter from 11 to 12 first: this one, verified against 11, lost
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 11, record: stale)) == false)
        let kept = try await store.credential(id: stale.id)
        #expect(kept?.signCount == 12 && kept?.backupState == false)
        // the same counter (all-zero, or a flagged regression keeping the stored count) and a higher one are stored
        var same = Self.record(1, signCount: 12)
        same.uvInitialized = true
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 12, record: same)))
        #expect(try await store.credential(id: same.id)?.uvInitialized == true)
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 12, record: Self.record(1, signCount: 13))))
        #expect(try await store.credential(id: same.id)?.signCount == 13)
    }

    @Test("remove takes out exactly that record, which can then be created again with any counter")
    func remove() async throws {
        let store = InMemoryCredentialStore()
        _ = try await store.create(Self.record(1, signCount: 12))
        _ = try await store.create(Self.record(2))
        #expect(store.remove(id: Self.record(1).id)?.signCount == 12)
        #expect(store.remove(id: Self.record(1).id) == nil)
        #expect(try await store.credential(id: Self.record(1).id) == nil)
        #expect(try await store.credential(id: Self.record(2).id) != nil)
        #expect(try await store.create(Self.record(1, signCount: 0)))
    }

    @Test("update of an unknown id does not create a record")
    func updateUnknown() async throws {
        let store = InMemoryCredentialStore()
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 0, record: Self.record(5))) == false)
        #expect(try await store.credential(id: Self.record(5).id) == nil)
        // And create still works for it afterwards.
        #expect(try await store.create(Self.record(5)))
    }

    @Test("initial records are present from the start and block creation of the same id")
    func initialRecords() async throws {
        let store = InMemoryCredentialStore(records: [Self.record(1), Self.record(2, user: 3)])
        #expect(try await store.credential(id: Self.record(2).id)?.userHandle == [3])
        #expect(try await store.create(Self.record(1)) == false)
    }

    @Test("a full store refuses new records with capacityExceeded but still reports duplicates as false")
    func capacity() async throws {
        let store = InMemoryCredentialStore(capacity: 2)
        #expect(try await store.create(Self.record(1)))
        #expect(try await store.create(Self.record(2)))
        await #expect { _ = try await store.create(Self.record(3)) } throws: { Self.storeFault($0) == "full" }
        #expect(try await store.credential(id: Self.record(3).id) == nil)
        #expect(try await store.create(Self.record(1)) == false)
        // Updates of existing records still work at capacity.
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 0, record: Self.record(1, signCount: 3))))
        #expect(try await store.credential(id: Self.record(1).id)?.signCount == 3)
    }

    @Test("capacity is at least one")
    func capacityFloor() {
        #expect(InMemoryCredentialStore(capacity: 0).capacity == 1)
        #expect(InMemoryCredentialStore().capacity == 1_000_000)
    }

    @Test("concurrent creates of one id: exactly one wins")
    func concurrentCreate() async throws {
        let store = InMemoryCredentialStore()
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for user in 0..<100 {
                group.addTask { try await store.create(Self.record(1, user: UInt8(user))) }
            }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(wins == 1)
    }

    @Test("memory stays bounded: many concurrent creates never exceed capacity")
    func boundedConcurrentCreates() async throws {
        let store = InMemoryCredentialStore(capacity: 50)
        let outcomes = await withTaskGroup(of: Bool?.self) { group in
            for id in 0..<200 {
                group.addTask {
                    let record = CredentialRecord(
                        id: withUnsafeBytes(of: UInt32(id), Array.init), publicKey: [0xA0],
                        signCount: 0, userHandle: [1])
                    do { return try await store.create(record) } catch { return nil }
                }
            }
            var out: [Bool?] = []
            for await outcome in group { out.append(outcome) }
            return out
        }
        #expect(outcomes.filter { $0 == true }.count == 50)
        #expect(outcomes.filter { $0 == nil }.count == 150)
        #expect(try await store.credentials(userHandle: [1]).count == 50)
    }

    @Test("records survive a Codable round trip")
    func recordCodable() throws {
        var record = Self.record(9, signCount: 17)
        record.attestationType = .basic
        record.transports = ["usb", "nfc"]
        let data = try JSONEncoder().encode(record)
        #expect(try JSONDecoder().decode(CredentialRecord.self, from: data) == record)
    }
}
