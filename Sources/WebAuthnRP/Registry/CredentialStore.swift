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
    private let records = Mutex([[UInt8]: CredentialRecord]())
    /// The most records held.
    public let capacity: Int

    /// Creates a store.
    /// - Parameters:
    ///   - records: records that exist from the start.
    ///   - capacity: the most records held (default 1,000,000).
    public init(records initial: [CredentialRecord] = [], capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
        records.withLock { dict in
            for record in initial { dict[record.id] = record }
        }
    }

    public func create(_ record: CredentialRecord) async throws -> Bool {
        try records.withLock { (dict: inout [[UInt8]: CredentialRecord]) throws(RegistryError) -> Bool in
            guard dict[record.id] == nil else { return false }
            guard dict.count < capacity else {
                throw RegistryError(.capacityExceeded, "\(capacity) credentials are stored")
            }
            dict[record.id] = record
            return true
        }
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        records.withLock { $0[id] }
    }

    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        records.withLock { dict in dict.values.filter { $0.userHandle == userHandle } }
    }

    public func update(_ record: CredentialRecord) async throws {
        records.withLock { dict in
            if dict[record.id] != nil { dict[record.id] = record }
        }
    }
}
