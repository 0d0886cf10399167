import Foundation
import Synchronization

/// Registered credentials. A server backs this with its database; the in-memory
/// implementation serves tests, the replay tool and small deployments.
public protocol CredentialStore: Sendable {
    /// Stores a new record only if no record has its id.
    /// - Parameter record: the record.
    /// - Returns: false when a record with this id already exists (nothing is changed).
    /// - Throws: ``RegistryError`` when storage fails.
    func create(_ record: CredentialRecord) async throws -> Bool
    /// The record with this credential id.
    /// - Parameter id: the credential id.
    /// - Returns: the record, or nil.
    func credential(id: [UInt8]) async throws -> CredentialRecord?
    /// Every record of one user.
    /// - Parameter userHandle: the user handle.
    /// - Returns: the user's records.
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord]
    /// Replaces the record with the same id (after a login).
    ///
    /// Two logins of one credential can be verified against the same stored record at once.
    /// Write with a conditional update that never moves `signCount` backwards (in SQL,
    /// `… WHERE id = $1 AND sign_count < $2`, the all-zero counter being its own case) and throw
    /// when it matches nothing, so the login that lost the race is refused instead of
    /// overwriting a later counter (<doc:Deploying>).
    /// - Parameter record: the updated record.
    /// - Throws: when storage fails or another login stored a later counter first.
    func update(_ record: CredentialRecord) async throws
}

/// A bounded in-memory ``CredentialStore``, safe under concurrent use.
public final class InMemoryCredentialStore: CredentialStore {
    private let records = Mutex([ByteKey: CredentialRecord]())
    /// The most records held.
    public let capacity: Int

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
    /// - Throws: ``RegistryError/Code/capacityExceeded`` when ``capacity`` records are stored.
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

    /// Replaces the record with the same id unless that would move its counter backwards;
    /// does nothing when no record has it.
    ///
    /// A login verified against a record that another login has since advanced carries a lower
    /// counter than the stored one; storing it would lose the later counter (and with it the
    /// clone detection of W3C WebAuthn L3 §7.2 step 22), so it is refused. An equal counter is
    /// stored: that is an all-zero counter, or a regression ``CounterPolicy/acceptAndFlag``
    /// accepted, whose record keeps the stored count.
    /// - Parameter record: the updated record.
    /// - Throws: ``RegistryError/Code/storage`` when the stored counter is above the record's.
    public func update(_ record: CredentialRecord) async throws {
        let key = ByteKey(record.id)
        try records.withLock { (dict: inout [ByteKey: CredentialRecord]) throws(RegistryError) in
            // One lookup: replace only an existing record.
            guard let index = dict.index(forKey: key) else { return }
            let stored = dict.values[index].signCount
            guard stored <= record.signCount else {
                throw RegistryError(.storage, "another login stored counter \(stored) first; this one has \(record.signCount)")
            }
            dict.values[index] = record
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
