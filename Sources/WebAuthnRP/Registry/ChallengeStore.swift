import Foundation
import Synchronization

/// Why a store refused an operation. Store failures are not ceremony verdicts: they
/// mean the server could not record state, and are reported as such.
public struct RegistryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category.
    public enum Code: String, Sendable, Hashable {
        /// The store is full (the in-memory stores have a capacity limit).
        case capacityExceeded
        /// The same challenge bytes are already outstanding.
        case duplicateChallenge
        /// The backing storage failed.
        case storage
    }
    /// The category.
    public let code: Code
    /// Details.
    public let message: String
    /// Creates an error.
    /// - Parameters:
    ///   - code: the category.
    ///   - message: details.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// `registry.<code>: <message>`.
    public var description: String { "registry.\(code.rawValue): \(message)" }
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
    /// - Throws: ``RegistryError`` when it cannot be stored.
    func issue(_ challenge: IssuedChallenge, now: Date) async throws
    /// Removes and returns the outstanding challenge with these bytes, if any,
    /// expired or not (the caller reports expiry).
    /// - Parameter challenge: the challenge bytes.
    /// - Returns: the issued challenge, or nil when it was never issued or already consumed.
    func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge?
}

/// A bounded in-memory ``ChallengeStore``, safe under concurrent use.
///
/// Expired challenges (those whose `expiresAt` is before the issue time) are evicted
/// when a new one is issued into a full store; when the store is
/// still at capacity, issuing fails with ``RegistryError/Code/capacityExceeded``
/// rather than growing without bound.
public final class InMemoryChallengeStore: ChallengeStore {
    private struct State {
        var outstanding: [ByteKey: IssuedChallenge] = [:]
    }
    private let state = Mutex(State())
    /// The most challenges held at once.
    public let capacity: Int

    /// Creates a store.
    /// - Parameter capacity: the most outstanding challenges held at once (default 100,000).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    public func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        try state.withLock { (state: inout State) throws(RegistryError) in
            if state.outstanding.count >= capacity {
                // A challenge is answerable through its expiresAt instant, so only later ones go (and a
                // NaN expiry, which no instant is before). Compared as Doubles: Date's `>=` holds for NaN.
                let instant = now.timeIntervalSinceReferenceDate
                state.outstanding = state.outstanding.filter { $0.value.expiresAt.timeIntervalSinceReferenceDate >= instant }
            }
            guard state.outstanding.count < capacity else {
                throw RegistryError(.capacityExceeded, "\(capacity) challenges are outstanding")
            }
            let key = ByteKey(challenge.challenge)
            guard state.outstanding[key] == nil else {
                throw RegistryError(.duplicateChallenge, "this challenge is already outstanding")
            }
            state.outstanding[key] = challenge
        }
    }

    public func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        let key = ByteKey(challenge)
        return state.withLock { $0.outstanding.removeValue(forKey: key) }
    }

    /// How many challenges are outstanding (expired ones included until evicted).
    public var count: Int { state.withLock { $0.outstanding.count } }
}
