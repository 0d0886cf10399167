import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import Synchronization
import WebAuthnRP

/// Outstanding challenges on the Fluent database: any node issues, any node consumes, and a
/// challenge is consumed exactly once across all of them (`DELETE … RETURNING` is one atomic
/// statement on PostgreSQL and on SQLite: of two concurrent deletes of one row, one returns it).
final class FluentChallengeStore: ChallengeStore {
    let database: FluentStoreDatabase
    /// Issues since the last sweep of expired rows (swept every 256 issues per node).
    private let issues = Mutex(0)

    init(database: FluentStoreDatabase) { self.database = database }

    func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        let issued = String(decoding: try JSONEncoder().encode(challenge), as: UTF8.self)
        let inserted = try await database.run { _, sql in
            try await sql.raw(
                """
                INSERT INTO passkey_challenges (challenge, issued, expires_at)
                VALUES (\(bind: Data(challenge.challenge)), \(bind: issued), \(bind: challenge.expiresAt))
                ON CONFLICT (challenge) DO NOTHING RETURNING challenge
                """
            ).all().count
        }
        guard inserted == 1 else { throw WebAuthnError(.serverFault, step: "challenge store", "this challenge is already outstanding") }
        if everyNth(issues) {
            // Expired challenges can no longer be answered; a sweep keeps the table small.
            _ = try? await database.run { database, _ in
                try await ChallengeModel.query(on: database).filter(\.$expiresAt < now).delete()
            }
        }
    }

    func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        let issued = try await database.run { _, sql in
            try await sql.raw("DELETE FROM passkey_challenges WHERE challenge = \(bind: Data(challenge)) RETURNING issued")
                .first(decodingColumn: "issued", as: String.self)
        }
        guard let issued else { return nil }
        return try JSONDecoder().decode(IssuedChallenge.self, from: Data(issued.utf8))
    }
}

/// Answered sealed challenges on the Fluent database: `INSERT … ON CONFLICT DO NOTHING` is the
/// atomic insert-if-absent the library's contract asks for (of any number of concurrent marks
/// of one challenge, on any node, exactly one inserts a row). Expired rows are swept every 256
/// marks per node.
final class FluentSealedChallengeReplayStore: SealedChallengeReplayStore {
    let database: FluentStoreDatabase
    private let marks = Mutex(0)

    init(database: FluentStoreDatabase) { self.database = database }

    func markUsed(_ challenge: [UInt8], expiresAt: Date, now: Date) async throws -> Bool {
        let inserted = try await database.run { _, sql in
            try await sql.raw(
                """
                INSERT INTO passkey_sealed_used (challenge, expires_at) VALUES (\(bind: Data(challenge)), \(bind: expiresAt))
                ON CONFLICT (challenge) DO NOTHING RETURNING challenge
                """
            ).all().count
        }
        if everyNth(marks) {
            _ = try? await database.run { database, _ in
                try await SealedMarkModel.query(on: database).filter(\.$expiresAt < now).delete()
            }
        }
        return inserted == 1
    }
}

/// True once every 256 calls (a sweep of expired rows piggy-backs on the 256th).
func everyNth(_ counter: borrowing Mutex<Int>) -> Bool {
    counter.withLock { count in
        count += 1
        guard count >= 256 else { return false }
        count = 0
        return true
    }
}
