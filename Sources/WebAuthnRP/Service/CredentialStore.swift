import Foundation
import Synchronization

/// Registered credentials. A server backs this with its database; the in-memory
/// implementation serves tests, the replay tool and small deployments.
public protocol CredentialStore: Sendable {
    /// Stores a new record only if no record has its id (insert if absent, one atomic step).
    ///
    /// A duplicate id is an answer, not a failure: return `false` (in SQL, `INSERT … ON CONFLICT
    /// (id) DO NOTHING` and a row count of 0). The service turns it into `credentialExists`
    /// (W3C WebAuthn L3 §7.1 step 27). Throw only when storage itself fails.
    /// - Parameter record: the record.
    /// - Returns: false when a record with this id already exists (nothing is changed).
    /// - Throws: ``RegistryError`` (or the store's own error) when storage fails.
    func create(_ record: CredentialRecord) async throws -> Bool
    /// The record with this credential id.
    /// - Parameter id: the credential id.
    /// - Returns: the record, or nil.
    func credential(id: [UInt8]) async throws -> CredentialRecord?
    /// Every record of one user.
    /// - Parameter userHandle: the user handle.
    /// - Returns: the user's records.
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord]
    /// Stores a login's record only if the stored counter is still the one the login was
    /// verified against (compare and swap).
    ///
    /// Two logins of one credential can be verified against the same stored record at once; the
    /// swap lets exactly one of them store its record. In SQL: `UPDATE … SET … WHERE id = $1 AND
    /// sign_count = $expected` and a check that one row changed (<doc:Deploying>). A lost race is
    /// an answer, not a failure: return `false`, and the service refuses that login with
    /// `signCount`. Throw only when storage itself fails.
    /// - Parameter change: the expected counter and the record to store.
    /// - Returns: false when the record is gone or its counter is no longer
    ///   ``CredentialUpdate/expectedSignCount`` (nothing is changed).
    /// - Throws: ``RegistryError`` (or the store's own error) when storage fails.
    func update(_ change: CredentialUpdate) async throws -> Bool
}

/// A login's change to a stored credential record: the record to store, and the counter the
/// stored record must still have (the one the login was verified against).
public struct CredentialUpdate: Sendable, Hashable {
    /// The stored record's `signCount` when the login was verified.
    public let expectedSignCount: UInt32
    /// The record to store: counter, backup state and `uvInitialized` as the login left them.
    /// Under ``CounterPolicy/acceptAndFlag`` a flagged login's counter is the stored one.
    public let record: CredentialRecord

    /// A change.
    /// - Parameters:
    ///   - expectedSignCount: the counter the stored record must still have.
    ///   - record: the record to store in its place.
    public init(expectedSignCount: UInt32, record: CredentialRecord) {
        self.expectedSignCount = expectedSignCount
        self.record = record
    }
}

/// A bounded in-memory ``CredentialStore``, safe under concurrent use.
public final class InMemoryCredentialStore: CredentialStore {
    private let records = Mutex([ByteKey: CredentialRecord]())
    /// The most records held.
    let capacity: Int

    /// Creates a store.
    /// - Parameters:
    ///   - initial: records that exist from the start (the `records:` argument).
    ///   - capacity: the most records held (default 1,000,000).
    public init(records initial: [CredentialRecord] = [], capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
        records.withLock { dict in
            for record in initial { dict[ByteKey(record.id)] = record }
        }
    }

    /// Stores a new record only if no record has its id.
    /// - Parameter record: the record.
    /// - Returns: false when a record with this id already exists (nothing is changed).
    /// - Throws: ``RegistryError/Code/capacityExceeded`` when the store holds its capacity of records.
    public func create(_ record: CredentialRecord) async throws -> Bool {
        let key = ByteKey(record.id)
        return try records.withLock { (dict: inout [ByteKey: CredentialRecord]) throws(RegistryError) -> Bool in
            guard dict[key] == nil else { return false }
            guard dict.count < capacity else {
                throw RegistryError(.capacityExceeded, "\(capacity) credentials are stored")
            }
            dict[key] = record
            return true
        }
    }

    /// The record with this credential id.
    /// - Parameter id: the credential id.
    /// - Returns: the record, or nil.
    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let key = ByteKey(id)
        return records.withLock { $0[key] }
    }

    /// Every record of one user.
    /// - Parameter userHandle: the user handle.
    /// - Returns: the user's records, in no particular order.
    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        records.withLock { dict in dict.values.filter { $0.userHandle == userHandle } }
    }

    /// Stores the change's record when the stored one still has its expected counter (one
    /// lock: compare and swap).
    /// - Parameter change: the expected counter and the record to store.
    /// - Returns: false when no record has the id or its counter is no longer the expected one.
    public func update(_ change: CredentialUpdate) async throws -> Bool {
        let key = ByteKey(change.record.id)
        return records.withLock { (dict: inout [ByteKey: CredentialRecord]) -> Bool in
            // One lookup: replace only an existing record whose counter is unchanged.
            guard let index = dict.index(forKey: key), dict.values[index].signCount == change.expectedSignCount else {
                return false
            }
            dict.values[index] = change.record
            return true
        }
    }

    /// Removes the record with this id (a passkey the user deleted, or an account closed).
    /// - Parameter id: the credential id.
    /// - Returns: the removed record, or nil when no record had the id.
    @discardableResult
    public func remove(id: [UInt8]) -> CredentialRecord? {
        let key = ByteKey(id)
        return records.withLock { $0.removeValue(forKey: key) }
    }
}
