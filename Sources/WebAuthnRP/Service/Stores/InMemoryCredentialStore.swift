/// A bounded in-memory ``CredentialStore``, safe under concurrent use.
public final class InMemoryCredentialStore: CredentialStore {
    private let records: BoundedTable<CredentialRecord>
    /// The most records held.
    var capacity: Int { records.capacity }

    /// Creates a store.
    /// - Parameters:
    ///   - initial: records that exist from the start (the `records:` argument).
    ///   - capacity: the most records held (default 1,000,000).
    public init(records initial: [CredentialRecord] = [], capacity: Int = 1_000_000) {
        records = BoundedTable(initial.map { ($0.id, $0) }, capacity: capacity, store: "credential store", noun: "credentials are stored")
    }

    /// Stores a new record only if no record has its id.
    /// - Parameter record: the record.
    /// - Returns: false when a record with this id already exists (nothing is changed).
    /// - Throws: ``WebAuthnError`` `serverFault` (step `credential store`) when the store holds its capacity of records.
    public func create(_ record: CredentialRecord) async throws -> Bool {
        try records.insertIfAbsent(record, id: record.id)
    }

    /// The record with this credential id.
    /// - Parameter id: the credential id.
    /// - Returns: the record, or nil.
    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        records.value(id: id)
    }

    /// Every record of one user.
    /// - Parameter userHandle: the user handle.
    /// - Returns: the user's records, in no particular order.
    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        records.values { $0.userHandle == userHandle }
    }

    /// Stores the change's record when the stored one still has its expected counter (one
    /// lock: compare and swap).
    /// - Parameter change: the expected counter and the record to store.
    /// - Returns: false when no record has the id or its counter is no longer the expected one.
    public func update(_ change: CredentialUpdate) async throws -> Bool {
        records.replace(id: change.record.id, if: { $0.signCount == change.expectedSignCount }) { $0 = change.record }
    }

    /// Removes the record with this id (a passkey the user deleted, or an account closed).
    /// - Parameter id: the credential id.
    /// - Returns: the removed record, or nil when no record had the id.
    @discardableResult
    public func remove(id: [UInt8]) -> CredentialRecord? {
        records.remove(id: id)
    }
}
