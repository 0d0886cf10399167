public import Foundation

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
