public import Foundation
import Synchronization
import WebAuthnCoding

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

/// Outstanding challenges. Each is consumed exactly once, whatever the verdict.
///
/// A server may back this with its own database (one row per challenge, deleted
/// atomically on consume). Implementations must make `consume` atomic: two
/// concurrent calls for the same challenge may not both get it.
public protocol ChallengeStore: Sendable {
    /// Records a newly issued challenge.
    /// - Parameters:
    ///   - challenge: the issued challenge and its ceremony binding.
    ///   - now: the current time (for evicting expired entries).
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when it cannot be stored.
    func issue(_ challenge: IssuedChallenge, now: Date) async throws
    /// Removes and returns the outstanding challenge with these bytes, if any,
    /// expired or not (the caller reports expiry).
    /// - Parameter challenge: the challenge bytes.
    /// - Returns: the issued challenge, or nil when it was never issued or already consumed.
    func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge?
}

// The bounded in-memory implementations of the service's three store contracts
// (ChallengeStore, CredentialStore, SealedChallengeReplayStore): for tests, the replay tool and
// single-process deployments. A fleet backs the contracts with its database instead.

/// A bounded in-memory ``ChallengeStore``, safe under concurrent use.
///
/// Expired challenges are evicted as time passes: every `issue` first drops the entries whose
/// expiry is before `now` (a challenge is answerable through its `expiresAt` instant), oldest
/// first, at a cost proportional to what it drops (an expiry queue, no timer thread). When the store is still at capacity, issuing fails with
/// ``WebAuthnError/Category/serverFault`` (`full`) rather than growing without bound, so anonymous
/// callers cannot exhaust memory; limiting how fast one caller may ask for challenges is the
/// server's job (rate limiting per client address or account).
public final class InMemoryChallengeStore: ChallengeStore {
    private struct State {
        var outstanding: [ByteKey: IssuedChallenge] = [:]
        /// Every issued challenge by expiry (a binary min-heap). An entry whose challenge was
        /// consumed, or re-issued, stays until its time comes and is then skipped.
        var expiries: [(expiresAt: Date, key: ByteKey)] = []

        /// Drops what expired before `now`: a challenge is answerable through its `expiresAt`
        /// instant, so one expiring exactly at `now` stays.
        mutating func evict(through now: Date) {
            while let first = expiries.first, first.expiresAt < now {
                popFirst()
                if let held = outstanding[first.key], Self.queued(held.expiresAt) < now { outstanding[first.key] = nil }
            }
        }

        /// The time an expiry is queued under: a NaN expiry (no instant is before it, and it
        /// would break the heap's order) counts as long past.
        static func queued(_ expiresAt: Date) -> Date {
            expiresAt.timeIntervalSinceReferenceDate.isNaN ? .distantPast : expiresAt
        }

        mutating func push(_ expiresAt: Date, _ key: ByteKey) {
            expiries.append((Self.queued(expiresAt), key))
            var child = expiries.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard expiries[child].expiresAt < expiries[parent].expiresAt else { break }
                expiries.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popFirst() {
            guard let last = expiries.popLast(), !expiries.isEmpty else { return }
            expiries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < expiries.count, expiries[left].expiresAt < expiries[smallest].expiresAt { smallest = left }
                if right < expiries.count, expiries[right].expiresAt < expiries[smallest].expiresAt { smallest = right }
                guard smallest != parent else { return }
                expiries.swapAt(parent, smallest)
                parent = smallest
            }
        }

        /// Rebuilds the queue from what is outstanding, so consumed challenges cannot make it
        /// grow past twice the store's size.
        mutating func compact() {
            let live = outstanding.map { (expiresAt: $0.value.expiresAt, key: $0.key) }
            expiries = []
            expiries.reserveCapacity(live.count)
            for entry in live { push(entry.expiresAt, entry.key) }
        }
    }
    private let state = Mutex(State())
    /// The most challenges held at once.
    let capacity: Int

    /// Creates a store.
    /// - Parameter capacity: the most outstanding challenges held at once (default 100,000).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Records a newly issued challenge, first evicting the challenges that expired before `now`.
    /// - Parameters:
    ///   - challenge: the issued challenge and its ceremony binding.
    ///   - now: the current time.
    /// - Throws: ``WebAuthnError`` `serverFault` (step `challenge store`) when `capacity`
    ///   challenges are still outstanding, or when these bytes are outstanding.
    public func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        try state.withLock { (state: inout State) throws(WebAuthnError) in
            state.evict(through: now)
            guard state.outstanding.count < capacity else {
                throw WebAuthnError(.serverFault, step: "challenge store", "full: \(capacity) challenges are outstanding")
            }
            let key = ByteKey(challenge.challenge)
            guard state.outstanding[key] == nil else {
                throw WebAuthnError(.serverFault, step: "challenge store", "this challenge is already outstanding")
            }
            state.outstanding[key] = challenge
            if state.expiries.count >= 2 * capacity { state.compact() }
            state.push(challenge.expiresAt, key)
        }
    }

    /// Removes and returns the outstanding challenge with these bytes (atomic: one caller gets it).
    /// - Parameter challenge: the challenge bytes.
    /// - Returns: the issued challenge, or nil when it was never issued, already consumed or evicted.
    public func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        let key = ByteKey(challenge)
        return state.withLock { $0.outstanding.removeValue(forKey: key) }
    }

    /// How many entries the expiry queue holds (tests check it stays bounded).
    var queuedExpiries: Int { state.withLock { $0.expiries.count } }

    /// How many challenges are held (expired ones included until the next `issue` evicts them).
    var count: Int { state.withLock { $0.outstanding.count } }
}

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

/// A bounded in-memory ``SealedChallengeReplayStore`` for one process, safe under concurrent use.
///
/// Single use holds within this process only: another node, or this one after a restart,
/// does not know what it recorded. A full store (every entry still unexpired) refuses with
/// ``WebAuthnError/Category/serverFault`` (`full`) rather than forgetting an entry, so it never lets a
/// replay through.
public final class InMemorySealedChallengeReplayStore: SealedChallengeReplayStore {
    private let used: BoundedTable<Date>
    /// The most unexpired challenges remembered at once.
    var capacity: Int { used.capacity }

    /// Creates a store.
    /// - Parameter capacity: the most unexpired challenges remembered (default 100,000).
    public init(capacity: Int = 100_000) {
        used = BoundedTable([], capacity: capacity, store: "sealed challenge replay store", noun: "sealed challenges are remembered")
    }

    /// Records a challenge as used; see ``SealedChallengeReplayStore/markUsed(_:expiresAt:now:)``.
    /// - Parameters:
    ///   - challenge: the challenge bytes.
    ///   - expiresAt: when the token expires.
    ///   - now: the current time (entries that expired before it are dropped first when full).
    /// - Returns: `false` when it was already used.
    /// - Throws: ``WebAuthnError`` `serverFault` (step `sealed challenge replay store`) when the
    ///   store is full of unexpired entries.
    public func markUsed(_ challenge: [UInt8], expiresAt: Date, now: Date) throws -> Bool {
        try used.insertIfAbsent(expiresAt, id: challenge, whenFullKeep: { !($0 < now) })
    }

    /// How many challenges are remembered.
    var count: Int { used.count }
}

/// The locked, bounded dictionary behind the in-memory credential, App Attest key and sealed
/// replay stores: insert-if-absent with a capacity, read, compare-and-swap, remove.
final class BoundedTable<Value: Sendable>: Sendable {
    private let entries: Mutex<[ByteKey: Value]>
    /// The most entries held.
    let capacity: Int
    /// The store a full table names in its `serverFault`, and what it holds.
    private let store: String, noun: String

    init(_ initial: [([UInt8], Value)], capacity: Int, store: String, noun: String) {
        self.capacity = max(1, capacity)
        self.store = store
        self.noun = noun
        entries = Mutex(Dictionary(initial.map { (ByteKey($0.0), $0.1) }, uniquingKeysWith: { _, last in last }))
    }

    /// Adds `value` under `id` unless the id is taken. A full table first drops the entries
    /// `whenFullKeep` rejects (expired ones), then refuses rather than forget an entry.
    /// - Returns: false when the id is taken (nothing changes).
    func insertIfAbsent(_ value: Value, id: [UInt8], whenFullKeep keep: ((Value) -> Bool)? = nil) throws(WebAuthnError) -> Bool {
        let key = ByteKey(id)
        return try entries.withLock { (table: inout [ByteKey: Value]) throws(WebAuthnError) -> Bool in
            guard table[key] == nil else { return false }
            if table.count >= capacity, let keep { table = table.filter { keep($0.value) } }
            guard table.count < capacity else {
                throw WebAuthnError(.serverFault, step: store, "full: \(capacity) \(noun)")
            }
            table[key] = value
            return true
        }
    }

    /// The value under `id`, or nil.
    func value(id: [UInt8]) -> Value? {
        let key = ByteKey(id)
        return entries.withLock { $0[key] }
    }

    /// Every value `include` accepts, in no particular order.
    func values(_ include: (Value) -> Bool) -> [Value] {
        entries.withLock { $0.values.filter(include) }
    }

    /// Changes the value under `id` only while `condition` holds for it, under one lock
    /// (compare and swap). - Returns: false when the id is absent or the condition fails.
    func replace(id: [UInt8], if condition: (Value) -> Bool, with change: (inout Value) -> Void) -> Bool {
        let key = ByteKey(id)
        return entries.withLock { table in
            guard let index = table.index(forKey: key), condition(table.values[index]) else { return false }
            change(&table.values[index])
            return true
        }
    }

    /// Removes and returns the value under `id`.
    func remove(id: [UInt8]) -> Value? {
        let key = ByteKey(id)
        return entries.withLock { $0.removeValue(forKey: key) }
    }

    /// How many entries are held.
    var count: Int { entries.withLock { $0.count } }
}
