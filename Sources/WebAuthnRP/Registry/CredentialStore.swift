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
    /// - Parameter record: the updated record.
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

    /// Replaces the record with the same id; does nothing when no record has it.
    /// - Parameter record: the updated record.
    public func update(_ record: CredentialRecord) async throws {
        let key = ByteKey(record.id)
        records.withLock { dict in
            // One lookup: replace only an existing record.
            if let index = dict.index(forKey: key) { dict.values[index] = record }
        }
    }
}
