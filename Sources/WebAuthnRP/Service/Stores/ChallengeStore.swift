public import Foundation

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
