import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import WebAuthnRP

/// The schema, created at start. Idempotent (`IF NOT EXISTS` throughout) and serialized across
/// nodes that start together by a transaction-scoped advisory lock, so two nodes migrating at
/// the same instant neither fail nor race.
enum PostgresSchema {
    static let lockKey: Int64 = 0x7061_7373_6b65_7973   // "passkeys"

    static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS passkey_users (
            user_handle bytea PRIMARY KEY CHECK (octet_length(user_handle) BETWEEN 1 AND 64),
            username    text  NOT NULL UNIQUE CHECK (char_length(username) BETWEEN 1 AND 64),
            created_at  timestamptz NOT NULL DEFAULT now())
        """,
        // One row per outstanding challenge, keyed by its bytes; `issued` is the library's
        // Codable IssuedChallenge, stored whole. Consumed by DELETE … RETURNING.
        """
        CREATE TABLE IF NOT EXISTS passkey_challenges (
            challenge  bytea PRIMARY KEY,
            issued     text  NOT NULL,
            expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_challenges_expires_at ON passkey_challenges (expires_at)",
        // The credential id is the primary key: "not yet registered" (§7.1 step 27) is the
        // INSERT's conflict, never a read followed by a write. `record` is the library's Codable
        // CredentialRecord; the counter and flags a login changes are columns too, so the
        // conditional UPDATE can compare them.
        """
        CREATE TABLE IF NOT EXISTS passkey_credentials (
            id             bytea   PRIMARY KEY,
            user_handle    bytea   NOT NULL,
            sign_count     bigint  NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            backup_state   boolean NOT NULL,
            uv_initialized boolean NOT NULL,
            record         text    NOT NULL,
            created_at     timestamptz NOT NULL DEFAULT now(),
            last_used_at   timestamptz)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_credentials_user_handle ON passkey_credentials (user_handle)",
        // What the extensions said (also in `record`, as CredentialExtensionProperties): credProps
        // `rk` at registration, and whether PRF is enabled (registration's `prf.enabled`, or a
        // login that returned PRF results). NULL: the client did not say. Added to tables made
        // before these columns existed; the PRF output itself is never stored.
        "ALTER TABLE passkey_credentials ADD COLUMN IF NOT EXISTS discoverable boolean",
        "ALTER TABLE passkey_credentials ADD COLUMN IF NOT EXISTS prf_enabled boolean",
    ]

    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            for statement in statements { try await connection.query(statement, logger: logger) }
        }
    }
}

/// Outstanding challenges in PostgreSQL: any node may issue, any node may consume, and a
/// challenge is consumed exactly once across all of them (`DELETE … RETURNING` is atomic: of
/// two concurrent deletes of one row, one returns it and the other returns nothing).
final class PostgresChallengeStore: ChallengeStore {
    let client: PostgresClient
    let logger: Logger
    /// Issues since the last sweep of expired rows (swept every 256 issues per node).
    private let issues = Mutex(0)

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        let issued = String(decoding: try JSONEncoder().encode(challenge), as: UTF8.self)
        let inserted = try await storage {
            try await client.query("""
                INSERT INTO passkey_challenges (challenge, issued, expires_at)
                VALUES (\(Data(challenge.challenge)), \(issued), \(challenge.expiresAt))
                ON CONFLICT (challenge) DO NOTHING RETURNING 1
                """, logger: logger).collect().count
        }
        guard inserted == 1 else { throw RegistryError(.duplicateChallenge, "this challenge is already outstanding") }
        if issues.withLock({ count in count += 1; defer { if count >= 256 { count = 0 } }; return count >= 256 }) {
            // Expired challenges can no longer be answered; a sweep keeps the table small.
            _ = try? await client.query("DELETE FROM passkey_challenges WHERE expires_at < \(now)", logger: logger)
        }
    }

    func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        let rows = try await storage {
            try await client.query("DELETE FROM passkey_challenges WHERE challenge = \(Data(challenge)) RETURNING issued",
                                   logger: logger).collect()
        }
        guard let row = rows.first else { return nil }
        let text = try row.decode(String.self)
        return try JSONDecoder().decode(IssuedChallenge.self, from: Data(text.utf8))
    }
}

/// Credential records in PostgreSQL.
///
/// Concurrent logins: `update` is a conditional UPDATE (no row lock, no read-modify-write
/// across round trips). It writes only if the stored counter is still below the new one (or
/// both are zero, for authenticators without a counter); when two logins of one credential race,
/// the one whose counter is not ahead of what the other already stored matches no row and is
/// refused, so a counter can never move backwards and no accepted login's state is lost. The
/// backup state is written with the counter in the same statement.
final class PostgresCredentialStore: PasskeyCredentialStore {
    let client: PostgresClient
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func create(_ record: CredentialRecord) async throws -> Bool {
        guard let userHandle = record.userHandle else { throw RegistryError(.storage, "a record without a user handle") }
        let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        let inserted = try await storage {
            try await client.query("""
                INSERT INTO passkey_credentials (id, user_handle, sign_count, backup_state, uv_initialized, record,
                                                 discoverable, prf_enabled)
                VALUES (\(Data(record.id)), \(Data(userHandle)), \(Int64(record.signCount)), \(record.backupState),
                        \(record.uvInitialized), \(json), \(record.extensions.discoverable), \(record.extensions.prfEnabled))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, logger: logger).collect().count
        }
        return inserted == 1
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let rows = try await storage {
            try await client.query("""
                SELECT record, sign_count, backup_state, uv_initialized FROM passkey_credentials WHERE id = \(Data(id))
                """, logger: logger).collect()
        }
        return try rows.first.map(Self.record)
    }

    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        let rows = try await storage {
            try await client.query("""
                SELECT record, sign_count, backup_state, uv_initialized FROM passkey_credentials
                WHERE user_handle = \(Data(userHandle)) ORDER BY created_at
                """, logger: logger).collect()
        }
        return try rows.map(Self.record)
    }

    func update(_ record: CredentialRecord) async throws {
        let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        let newCount = Int64(record.signCount)
        let updated = try await storage {
            try await client.query("""
                UPDATE passkey_credentials
                SET sign_count = \(newCount), backup_state = \(record.backupState),
                    uv_initialized = \(record.uvInitialized), record = \(json), last_used_at = now(),
                    prf_enabled = \(record.extensions.prfEnabled)
                WHERE id = \(Data(record.id))
                  AND (sign_count < \(newCount) OR (sign_count = 0 AND \(newCount) = 0))
                RETURNING 1
                """, logger: logger).collect().count
        }
        guard updated == 1 else {
            throw ConcurrentUpdateError(description: "credential was deleted or another login stored counter ≥ \(newCount) first")
        }
    }

    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        try await storage {
            try await client.query("""
                DELETE FROM passkey_credentials WHERE id = \(Data(id)) AND user_handle = \(Data(userHandle)) RETURNING 1
                """, logger: logger).collect().count == 1
        }
    }

    func usage(userHandle: [UInt8]) async throws -> [ByteString: CredentialUsage] {
        let rows = try await storage {
            try await client.query("""
                SELECT id, created_at, last_used_at FROM passkey_credentials WHERE user_handle = \(Data(userHandle))
                """, logger: logger).collect()
        }
        var out: [ByteString: CredentialUsage] = [:]
        for row in rows {
            let (id, created, used) = try row.decode((ByteBuffer, Date, Date?).self)
            out[ByteString(Array(id.readableBytesView))] = CredentialUsage(createdAt: created, lastUsedAt: used)
        }
        return out
    }

    /// The stored record with the columns a login updates laid over it (the columns are what
    /// the conditional UPDATE compares, so they are the truth).
    static func record(_ row: PostgresRow) throws -> CredentialRecord {
        let (json, signCount, backupState, uvInitialized) = try row.decode((String, Int64, Bool, Bool).self)
        var record = try JSONDecoder().decode(CredentialRecord.self, from: Data(json.utf8))
        guard let count = UInt32(exactly: signCount) else { throw RegistryError(.storage, "sign_count out of range") }
        record.signCount = count
        record.backupState = backupState
        record.uvInitialized = uvInitialized
        return record
    }
}

/// Accounts in PostgreSQL; the username is unique by key.
final class PostgresAccountStore: AccountStore {
    let client: PostgresClient
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func userHandle(username: String) async throws -> [UInt8]? {
        let rows = try await storage {
            try await client.query("SELECT user_handle FROM passkey_users WHERE username = \(username)", logger: logger).collect()
        }
        return try rows.first.map { Array(try $0.decode(ByteBuffer.self).readableBytesView) }
    }

    func username(userHandle: [UInt8]) async throws -> String? {
        let rows = try await storage {
            try await client.query("SELECT username FROM passkey_users WHERE user_handle = \(Data(userHandle))", logger: logger).collect()
        }
        return try rows.first.map { try $0.decode(String.self) }
    }

    func create(username: String, userHandle: [UInt8]) async throws -> Bool {
        try await storage {
            try await client.query("""
                INSERT INTO passkey_users (user_handle, username) VALUES (\(Data(userHandle)), \(username))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger).collect().count == 1
        }
    }
}

/// Runs a database call; a database failure becomes the library's `RegistryError.storage`
/// (503, a client may retry) and is logged with its detail by the caller.
func storage<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as PSQLError {
        throw RegistryError(.storage, "database: \(String(reflecting: error))")
    }
}
