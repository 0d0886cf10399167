public import Foundation

/// Where the sealed challenges already answered are recorded, so that each token answers one
/// response. A sealed challenge carries its own state, so this record is the only thing that
/// stops a captured response (with its token) from being presented again before it expires:
/// a passkey whose `signCount` stays 0, as synced passkeys' does, gives the counter check
/// nothing to refuse.
///
/// Single use holds across exactly the nodes that share one store. Back it with the database
/// every node uses (one row per used challenge, primary key on the challenge bytes, purged after
/// `expiresAt`); ``InMemorySealedChallengeReplayStore`` is for a single process.
///
/// The service calls ``markUsed(_:expiresAt:now:)`` only once the response body has parsed and
/// its client data names the sealed challenge, so a client cannot use up a token, or fill the
/// store, with bodies that say nothing.
public protocol SealedChallengeReplayStore: Sendable {
    /// Records that a sealed challenge was answered.
    ///
    /// Must be atomic: of any number of concurrent calls for the same challenge, on any node
    /// that shares the store, exactly one returns `true` (`INSERT … ON CONFLICT DO NOTHING` and
    /// a check of the row count).
    /// - Parameters:
    ///   - challenge: the challenge bytes of the opened token.
    ///   - expiresAt: when the token expires; the record may be dropped after it (the key
    ///     refuses the token from then on).
    ///   - now: the current time.
    /// - Returns: `true` when this call recorded it, `false` when it was already recorded (a replay).
    /// - Throws: when the record cannot be read or written; the ceremony then fails without a verdict.
    func markUsed(_ challenge: [UInt8], expiresAt: Date, now: Date) async throws -> Bool
}
