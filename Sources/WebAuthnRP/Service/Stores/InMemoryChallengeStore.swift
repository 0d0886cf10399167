public import Foundation
import Synchronization

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
