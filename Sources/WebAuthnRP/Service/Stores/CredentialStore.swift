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
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when storage fails.
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
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when storage fails.
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
