import Foundation
import Logging
import NIOCore
import PasskeyBackend
import PostgresNIO
import Synchronization
import WebAuthnRP

/// The schema, brought up to date at start by versioned migrations: each runs once, in order,
/// in one transaction with the record of its version in `passkey_schema_versions`, serialized
/// across nodes that start together by a transaction-scoped advisory lock, so two nodes
/// migrating at the same instant neither fail nor race. A migration is never edited once
/// released; a change is a new version. (Version 1's statements are idempotent because they
/// also bring up the databases made before versions were recorded.)
package enum PostgresSchema {
    package static let lockKey: Int64 = 0x7061_7373_6b65_7973  // "passkeys"

    /// One step of the schema.
    package struct Migration: Sendable {
        package let version: Int
        package let statements: [PostgresQuery]
    }

    package static let migrations: [Migration] = [
        Migration(version: 1, statements: statements),
        Migration(version: 2, statements: PostgresAppAttestKeyStore.statements),
        // A name the user gives each passkey (nil: none given; the list shows the provider's).
        Migration(
            version: 3,
            statements: [
                "ALTER TABLE passkey_credentials ADD COLUMN IF NOT EXISTS name text CHECK (char_length(name) BETWEEN 1 AND 64)"
            ]),
        // The App Attest key a token family is bound to (nil: not bound).
        Migration(
            version: 4,
            statements: ["ALTER TABLE passkey_token_families ADD COLUMN IF NOT EXISTS app_attest_key_id bytea"]),
        // The folded name's unique index. Version 1's `passkey_users_username_key` is the name
        // PostgreSQL gives the UNIQUE constraint on `username`, so on a table version 1 created
        // its CREATE UNIQUE INDEX IF NOT EXISTS did nothing, and two sign-ups racing with one
        // name in two cases could both commit (found by the store contract's name check).
        Migration(
            version: 5,
            statements: ["CREATE UNIQUE INDEX IF NOT EXISTS passkey_users_username_key_unique ON passkey_users (username_key)"]),
        // Attested Android app keys, and the Android key a token family is bound to (nil: not bound).
        Migration(
            version: 6,
            statements: PostgresAndroidAppKeyStore.statements + [
                "ALTER TABLE passkey_token_families ADD COLUMN IF NOT EXISTS android_key_id bytea"
            ]),
    ]

    /// The newest version this node knows.
    package static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Version 1: the tables of the releases before versions were recorded.
    static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS passkey_users (
            user_handle bytea PRIMARY KEY CHECK (octet_length(user_handle) BETWEEN 1 AND 64),
            username    text  NOT NULL UNIQUE CHECK (char_length(username) BETWEEN 1 AND 64),
            created_at  timestamptz NOT NULL DEFAULT now())
        """,
        // The name as compared (Username: NFKC, case-folded), unique. Rows made before it get
        // PostgreSQL's lower(normalize(…)), which agrees with the server's folding on every name
        // without special foldings (ß, final sigma, …).
        "ALTER TABLE passkey_users ADD COLUMN IF NOT EXISTS username_key text",
        "UPDATE passkey_users SET username_key = lower(normalize(username, NFKC)) WHERE username_key IS NULL",
        "CREATE UNIQUE INDEX IF NOT EXISTS passkey_users_username_key ON passkey_users (username_key)",
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
        // CredentialRecord as registered; what a login changes (the counter, the backup state,
        // uvInitialized, prf_enabled) is kept in columns only, which the conditional UPDATE
        // compares and which are laid over `record` when it is read, so a login never
        // re-encodes or rewrites the record.
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
        // The transports a login's allowCredentials names, so its options read two columns
        // instead of decoding every record; filled from `record` for rows made before it existed.
        "ALTER TABLE passkey_credentials ADD COLUMN IF NOT EXISTS transports text[]",
        """
        UPDATE passkey_credentials
        SET transports = ARRAY(SELECT jsonb_array_elements_text(record::jsonb -> 'transports'))
        WHERE transports IS NULL
        """,
        // Server-side sessions: the cookie holds a random token, the row its SHA-256. A session
        // names the passkey that signed it in; deleting that passkey deletes its sessions.
        """
        CREATE TABLE IF NOT EXISTS passkey_sessions (
            id            bytea PRIMARY KEY CHECK (octet_length(id) = 32),
            user_handle   bytea NOT NULL,
            credential_id bytea NOT NULL REFERENCES passkey_credentials (id) ON DELETE CASCADE,
            signed_in_at  timestamptz NOT NULL,
            expires_at    timestamptz NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_sessions_user_handle ON passkey_sessions (user_handle)",
        "CREATE INDEX IF NOT EXISTS passkey_sessions_credential_id ON passkey_sessions (credential_id)",
        "CREATE INDEX IF NOT EXISTS passkey_sessions_expires_at ON passkey_sessions (expires_at)",
        // Sealed challenges already answered (CHALLENGE_MODE=sealed): one row per used token,
        // so single use holds across every node on this database and across restarts. A row is
        // useless once its token expired (the key refuses the token), and is swept then.
        """
        CREATE TABLE IF NOT EXISTS passkey_sealed_used (
            challenge  bytea PRIMARY KEY,
            expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_sealed_used_expires_at ON passkey_sealed_used (expires_at)",
        // An app's sign-ins (token families) and their refresh tokens, kept as SHA-256: a copy of
        // the table refreshes nothing. A family goes with the passkey that began it.
        """
        CREATE TABLE IF NOT EXISTS passkey_token_families (
            id            text  PRIMARY KEY,
            user_handle   bytea NOT NULL,
            credential_id bytea NOT NULL REFERENCES passkey_credentials ON DELETE CASCADE,
            auth_time     timestamptz NOT NULL,
            revoked_at    timestamptz)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_token_families_user_handle ON passkey_token_families (user_handle)",
        "CREATE INDEX IF NOT EXISTS passkey_token_families_credential_id ON passkey_token_families (credential_id)",
        """
        CREATE TABLE IF NOT EXISTS passkey_refresh_tokens (
            hash       bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
            family     text  NOT NULL REFERENCES passkey_token_families (id) ON DELETE CASCADE,
            expires_at timestamptz NOT NULL,
            used_at    timestamptz)
        """,
        "CREATE INDEX IF NOT EXISTS passkey_refresh_tokens_family ON passkey_refresh_tokens (family)",
        // The audience a family's tokens were issued for (TOKEN_AUDIENCE): a refresh for another
        // is refused. Families made before the column are bound at their next refresh.
        "ALTER TABLE passkey_token_families ADD COLUMN IF NOT EXISTS audience text",
        // The access tokens' ES256 keys, newest two published; sealed under SESSION_KEY.
        """
        CREATE TABLE IF NOT EXISTS passkey_signing_keys (
            kid        text  PRIMARY KEY,
            sealed_key bytea NOT NULL,
            created_at timestamptz NOT NULL)
        """,
    ]

    /// Applies the migrations the database has not had yet. A database newer than this node
    /// (another node was upgraded first) is left as it is: every migration only adds.
    package static func migrate(_ database: Database) async throws {
        try await database.migrating { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS passkey_schema_versions (
                        version    integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied = 0
                for try await version in try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM passkey_schema_versions", logger: logger
                ).decode(Int.self) {
                    applied = version
                }
                for migration in migrations where migration.version > applied {
                    for statement in migration.statements { try await connection.query(statement, logger: logger) }
                    try await connection.query(
                        "INSERT INTO passkey_schema_versions (version) VALUES (\(migration.version))", logger: logger)
                    logger.info("schema: version \(migration.version) applied")
                }
                if applied > currentVersion {
                    logger.warning("schema: the database is at version \(applied), newer than this node's \(currentVersion)")
                }
            }
        }
    }
}

/// The connections and what every call needs: each call runs under `timeout` (``withDeadline``)
/// and a database failure or a passed deadline becomes the library's `WebAuthnError` `serverFault`
/// (503, a client may retry), logged with its detail by the caller.
package struct Database: Sendable {
    package let connections: ConnectionSet
    package let logger: Logger
    package let timeout: Duration

    @discardableResult
    package func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        let (connections, logger) = (connections, logger)
        do {
            return try await withDeadline(timeout) { try await connections.withConnection { try await body($0, logger) } }
        } catch let error as DeadlineExceeded {
            throw WebAuthnError(.serverFault, step: "database", "database call \(error)")
        } catch let error as PSQLError {
            throw WebAuthnError(.serverFault, step: "database", "database: \(String(reflecting: error))")
        } catch let error as PostgresTransactionError {
            if let outcome = error.closureError as? Rollback { throw outcome }
            throw WebAuthnError(.serverFault, step: "database", "database: \(String(reflecting: error))")
        } catch let error as ConnectionSet.Closed {
            throw WebAuthnError(.serverFault, step: "database", "database: \(error)")
        }
    }

    /// Runs a migration's `body` on a connection, waiting for a database that does not answer
    /// yet (it starts with this node, or restarts): a node that cannot reach it within a minute
    /// fails to start. A statement the database refuses fails at once.
    package func migrating(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void) async throws {
        let (connections, logger) = (connections, logger)
        try await withDeadline(.seconds(60)) {
            while true {
                do {
                    return try await connections.withConnection { try await body($0, logger) }
                } catch let error as PSQLError {
                    // Not reachable, or not accepting connections yet: again in a second.
                    logger.warning("schema: waiting for the database: \(String(reflecting: error))")
                    try await Task.sleep(for: .seconds(1))
                } catch let error as PostgresTransactionError where (error.closureError as? PSQLError)?.code != .server {
                    // The connection failed during the migration, which rolled back: again.
                    logger.warning("schema: waiting for the database: \(String(reflecting: error))")
                    try await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// Thrown inside a transaction to roll it back with an answer that is not a failure.
    package struct Rollback: Error { let outcome: CreateOutcome }
}

/// Outstanding challenges in PostgreSQL: any node may issue, any node may consume, and a
/// challenge is consumed exactly once across all of them (`DELETE … RETURNING` is atomic: of
/// two concurrent deletes of one row, one returns it and the other returns nothing).
package final class PostgresChallengeStore: ChallengeStore {
    package let database: Database
    /// Issues since the last sweep of expired rows (swept every 256 issues per node).
    private let issues = Mutex(0)

    package init(database: Database) { self.database = database }

    package func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        let issued = String(decoding: try JSONEncoder().encode(challenge), as: UTF8.self)
        let inserted = try await database.run { connection, logger in
            try await connection.execute(
                Statements.IssueChallenge(
                    challenge: Data(challenge.challenge), issued: issued,
                    expiresAt: challenge.expiresAt), logger: logger
            ).all().count
        }
        guard inserted == 1 else { throw WebAuthnError(.serverFault, step: "challenge store", "this challenge is already outstanding") }
        if everyNth(issues) {
            // Expired challenges can no longer be answered; a sweep keeps the table small.
            _ = try? await database.run { connection, logger in
                try await connection.query("DELETE FROM passkey_challenges WHERE expires_at < \(now)", logger: logger).collect().count
            }
        }
    }

    package func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.ConsumeChallenge(challenge: Data(challenge)), logger: logger).all()
        }
        guard let text = rows.first else { return nil }
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
package final class PostgresCredentialStore: PasskeyCredentialStore {
    package let database: Database
    /// Sessions and token families started by logins since the last sweep of expired ones
    /// (every 256 per node).
    private let signInSweeps = Mutex(0)

    package init(database: Database) { self.database = database }

    package func create(_ record: CredentialRecord) async throws -> Bool {
        try await create(record, newAccount: nil, cap: Int.max, starting: nil) == .created
    }

    /// One transaction: the new account's row (its unique name key decides a race for the
    /// name), or a lock on the existing account's row (so two concurrent additions count one
    /// after the other), the count against `cap`, the credential, and the sign-in it starts
    /// (if any). The answer waits for COMMIT's acknowledgement, which PostgreSQL sends once the
    /// commit is done.
    package func create(
        _ record: CredentialRecord, newAccount: Username?, cap: Int, starting signIn: PendingSignIn?
    ) async throws -> CreateOutcome {
        guard let userHandle = record.userHandle else {
            throw WebAuthnError(.serverFault, step: "database", "a record without a user handle")
        }
        let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        do {
            return try await database.run { connection, logger in
                try await connection.withTransaction(logger: logger) { connection in
                    if let newAccount {
                        let created = try await connection.query(
                            """
                            INSERT INTO passkey_users (user_handle, username, username_key)
                            VALUES (\(Data(userHandle)), \(newAccount.display), \(newAccount.key))
                            ON CONFLICT DO NOTHING RETURNING 1
                            """, logger: logger
                        ).collect().count
                        guard created == 1 else { throw Database.Rollback(outcome: .usernameTaken) }
                    } else {
                        let found = try await connection.query(
                            """
                            SELECT 1 FROM passkey_users WHERE user_handle = \(Data(userHandle)) FOR UPDATE
                            """, logger: logger
                        ).collect().count
                        guard found == 1 else { throw Database.Rollback(outcome: .accountGone) }
                    }
                    let count =
                        try await connection.query(
                            """
                            SELECT count(*) FROM passkey_credentials WHERE user_handle = \(Data(userHandle))
                            """, logger: logger
                        ).collect().first?.decode(Int64.self) ?? 0
                    guard count < cap else { throw Database.Rollback(outcome: .capReached) }
                    let inserted = try await connection.query(
                        """
                        INSERT INTO passkey_credentials (id, user_handle, sign_count, backup_state, uv_initialized, record,
                                                         discoverable, prf_enabled, transports)
                        VALUES (\(Data(record.id)), \(Data(userHandle)), \(Int64(record.signCount)), \(record.backupState),
                                \(record.uvInitialized), \(json), \(record.extensions.discoverable), \(record.extensions.prfEnabled),
                                \(record.transports))
                        ON CONFLICT (id) DO NOTHING RETURNING 1
                        """, logger: logger
                    ).collect().count
                    guard inserted == 1 else { throw Database.Rollback(outcome: .duplicateCredential) }
                    switch signIn {
                    case .session(let session)?:
                        try await connection.query(
                            """
                            INSERT INTO passkey_sessions (id, user_handle, credential_id, signed_in_at, expires_at)
                            VALUES (\(Data(session.id)), \(Data(userHandle)), \(Data(record.id)), \(session.signedInAt),
                                    \(session.expiresAt))
                            """, logger: logger)
                    case .tokenFamily(let family)?:
                        try await connection.query(
                            """
                            WITH f AS (
                                INSERT INTO passkey_token_families (id, user_handle, credential_id, auth_time, audience,
                                    app_attest_key_id, android_key_id)
                                VALUES (\(family.id), \(Data(userHandle)), \(Data(record.id)), \(family.authTime), \(family.audience),
                                        \(family.appKey?.appAttestKeyId.map { Data($0) }), \(family.appKey?.androidKeyId.map { Data($0) }))
                                RETURNING id)
                            INSERT INTO passkey_refresh_tokens (hash, family, expires_at)
                            SELECT \(Data(family.refreshTokenHash)), f.id, \(family.refreshTokenExpiresAt) FROM f
                            """, logger: logger)
                    case nil:
                        break
                    }
                    return CreateOutcome.created
                }
            }
        } catch let rollback as Database.Rollback {
            return rollback.outcome
        }
    }

    package func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.CredentialByID(id: Data(id)), logger: logger).all()
        }
        return try rows.first.map(Self.record)
    }

    package func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.CredentialsOfUser(userHandle: Data(userHandle)), logger: logger).all()
        }
        return try rows.map(Self.record)
    }

    package func count(userHandle: [UInt8]) async throws -> Int {
        let count = try await database.run { connection, logger in
            try await connection.query(
                "SELECT count(*) FROM passkey_credentials WHERE user_handle = \(Data(userHandle))",
                logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
        return Int(count)
    }

    /// The library's compare and swap (Deploying.md): one row changes only while `sign_count` is
    /// still the counter the login was verified against; none is a lost race (or a deleted
    /// credential), which the library refuses as `signCount`.
    package func update(_ change: CredentialUpdate) async throws -> Bool {
        let counter = Statements.CounterUpdate(change)
        let updated = try await database.run { connection, logger in
            try await connection.execute(Statements.UpdateCredential(counter: counter), logger: logger).all().count
        }
        return updated == 1
    }

    /// The same compare and swap, and the login's session row or token family (with its first
    /// refresh token) from the updated row, in one statement: no row matched, nothing started.
    package func update(_ change: CredentialUpdate, starting signIn: PendingSignIn) async throws -> Bool {
        let counter = Statements.CounterUpdate(change)
        let updated = try await database.run { connection, logger in
            switch signIn {
            case .session(let session):
                try await connection.execute(
                    Statements.UpdateCredentialStartingSession(counter: counter, session: session), logger: logger
                ).all().count
            case .tokenFamily(let family):
                try await connection.execute(
                    Statements.UpdateCredentialStartingTokenFamily(counter: counter, family: family), logger: logger
                ).all().count
            }
        }
        if everyNth(signInSweeps) {
            // The session and token stores sweep at their own creations; these are made here.
            switch signIn {
            case .session: await PostgresSessionStore.sweep(database)
            case .tokenFamily(let family): await PostgresRefreshTokenStore.sweep(database, now: family.authTime)
            }
        }
        return updated == 1
    }

    package func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        // The sessions this passkey signed in go with it (ON DELETE CASCADE).
        try await database.run { connection, logger in
            try await connection.query(
                """
                DELETE FROM passkey_credentials WHERE id = \(Data(id)) AND user_handle = \(Data(userHandle)) RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func rename(id: [UInt8], userHandle: [UInt8], name: PasskeyName?) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_credentials SET name = \(name?.text) WHERE id = \(Data(id)) AND user_handle = \(Data(userHandle))
                RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func page(userHandle: [UInt8], after: [UInt8]?, limit: Int) async throws -> [ListedPasskey] {
        let rows = try await database.run { connection, logger in
            try await connection.query(
                """
                SELECT record, sign_count, backup_state, uv_initialized, prf_enabled, created_at, last_used_at, name
                FROM passkey_credentials
                WHERE user_handle = \(Data(userHandle)) AND id > \(Data(after ?? []))
                ORDER BY id LIMIT \(Int64(limit))
                """, logger: logger
            ).collect()
        }
        return try rows.map { row in
            let (json, signCount, backupState, uv, prf, created, used, name) =
                try row.decode((String, Int64, Bool, Bool, Bool?, Date, Date?, String?).self)
            return ListedPasskey(
                record: try Self.record((json, signCount, backupState, uv, prf)),
                usage: CredentialUsage(createdAt: created, lastUsedAt: used), name: name)
        }
    }

    /// The stored record with the columns a login updates laid over it (a login writes only
    /// those columns: the counter, the backup state, uvInitialized and prf_enabled are all the
    /// library changes in a record at a login, AuthenticationVerifier's `updated`).
    static func record(_ row: Statements.CredentialRow) throws -> CredentialRecord {
        let (json, signCount, backupState, uvInitialized, prfEnabled) = row
        var record = try JSONDecoder().decode(CredentialRecord.self, from: Data(json.utf8))
        guard let count = UInt32(exactly: signCount) else { throw WebAuthnError(.serverFault, step: "database", "sign_count out of range") }
        record.signCount = count
        record.backupState = backupState
        record.uvInitialized = uvInitialized
        record.extensions.prfEnabled = prfEnabled
        return record
    }
}

/// Accounts in PostgreSQL; the folded username is unique by key.
package final class PostgresAccountStore: AccountStore {
    package let database: Database

    package init(database: Database) { self.database = database }

    package func userHandle(username: Username) async throws -> [UInt8]? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.UserHandleOfUsername(usernameKey: username.key), logger: logger).all()
        }
        return rows.first.map { Array($0.readableBytesView) }
    }

    /// One round trip for the account and its credentials (a login's options need both).
    package func loginLookup(
        username: Username
    ) async throws -> (userHandle: [UInt8], username: String, allowCredentials: [PublicKeyCredentialDescriptorJSON]?)? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.LoginLookup(usernameKey: username.key), logger: logger).all()
        }
        guard let (handle, name, _, _) = rows.first else { return nil }
        let allow = rows.compactMap { _, _, id, transports in
            id.map {
                PublicKeyCredentialDescriptorJSON(
                    id: Base64URLBytes(Array($0.readableBytesView)),
                    transports: (transports ?? []).map(AuthenticatorTransport.init(rawValue:)))
            }
        }
        return (Array(handle.readableBytesView), name, allow)
    }

    package func username(userHandle: [UInt8]) async throws -> String? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.UsernameOfUserHandle(userHandle: Data(userHandle)), logger: logger).all()
        }
        return rows.first
    }
}

/// The record of answered sealed challenges in PostgreSQL: `INSERT … ON CONFLICT DO NOTHING`
/// is the atomic insert-if-absent the library's contract asks for (of any number of concurrent
/// inserts of one challenge, on any node, exactly one inserts a row). Rows past their expiry
/// are swept every 256 marks per node.
package final class PostgresSealedChallengeReplayStore: SealedChallengeReplayStore {
    package let database: Database
    private let marks = Mutex(0)

    package init(database: Database) { self.database = database }

    package func markUsed(_ challenge: [UInt8], expiresAt: Date, now: Date) async throws -> Bool {
        let inserted = try await database.run { connection, logger in
            try await connection.execute(
                Statements.MarkSealedUsed(challenge: Data(challenge), expiresAt: expiresAt),
                logger: logger
            ).all().count
        }
        if everyNth(marks) {
            _ = try? await database.run { connection, logger in
                try await connection.query("DELETE FROM passkey_sealed_used WHERE expires_at < \(now)", logger: logger).collect().count
            }
        }
        return inserted == 1
    }
}

/// Sessions in PostgreSQL (``SessionStore``); expired rows are swept every 256 sign-ins per node.
package final class PostgresSessionStore: SessionStore {
    package let database: Database
    private let creations = Mutex(0)

    package init(database: Database) { self.database = database }

    package func create(_ session: Session) async throws {
        try await database.run { connection, logger in
            try await connection.query(
                """
                INSERT INTO passkey_sessions (id, user_handle, credential_id, signed_in_at, expires_at)
                VALUES (\(Data(session.id)), \(Data(session.userHandle)), \(Data(session.credentialId)),
                        \(session.signedInAt), \(session.expiresAt))
                """, logger: logger
            ).collect().count
        }
        if everyNth(creations) { await Self.sweep(database) }
    }

    /// Deletes expired sessions (best effort: a failure leaves them for the next sweep).
    package static func sweep(_ database: Database) async {
        _ = try? await database.run { connection, logger in
            try await connection.query("DELETE FROM passkey_sessions WHERE expires_at < now()", logger: logger).collect().count
        }
    }

    package func session(id: [UInt8], now: Date) async throws -> Session? {
        let rows = try await database.run { connection, logger in
            try await connection.execute(Statements.SessionByID(id: Data(id), now: now), logger: logger).all()
        }
        guard let (userHandle, credentialId, signedInAt, expiresAt) = rows.first else { return nil }
        return Session(
            id: id, userHandle: Array(userHandle.readableBytesView), credentialId: Array(credentialId.readableBytesView),
            signedInAt: signedInAt, expiresAt: expiresAt)
    }

    package func delete(id: [UInt8]) async throws {
        try await database.run { connection, logger in
            try await connection.query("DELETE FROM passkey_sessions WHERE id = \(Data(id))", logger: logger).collect().count
        }
    }

    package func deleteAll(userHandle: [UInt8]) async throws -> Int {
        try await database.run { connection, logger in
            try await connection.query(
                "DELETE FROM passkey_sessions WHERE user_handle = \(Data(userHandle)) RETURNING 1",
                logger: logger
            ).collect().count
        }
    }

    /// The foreign key's ON DELETE CASCADE already removed them, in the delete's own statement.
    package func credentialDeleted(_ id: [UInt8]) async throws {}
}

/// The statements of the login path, prepared once per connection (an unnamed query is parsed
/// and planned again by PostgreSQL each time; Docs/Performance.md, "The passkey server").
/// Registration and the account pages keep plain queries. Each has a fixed name: the default
/// is `String(reflecting:)` of the type, built again at every execution.
enum Statements {
    typealias CredentialRow = (String, Int64, Bool, Bool, Bool?)

    struct IssueChallenge: PostgresPreparedStatement {
        static let name = "passkey_issue_challenge"
        static let sql = """
            INSERT INTO passkey_challenges (challenge, issued, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (challenge) DO NOTHING RETURNING 1
            """
        var challenge: Data, issued: String, expiresAt: Date
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            try bindings.append(challenge); bindings.append(issued); bindings.append(expiresAt)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    struct ConsumeChallenge: PostgresPreparedStatement {
        static let name = "passkey_consume_challenge"
        static let sql = "DELETE FROM passkey_challenges WHERE challenge = $1 RETURNING issued"
        var challenge: Data
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            try bindings.append(challenge)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
    }

    struct CredentialByID: PostgresPreparedStatement {
        static let name = "passkey_credential_by_id"
        static let sql = "SELECT record, sign_count, backup_state, uv_initialized, prf_enabled FROM passkey_credentials WHERE id = $1"
        var id: Data
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            try bindings.append(id)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> CredentialRow { try row.decode(CredentialRow.self) }
    }

    struct CredentialsOfUser: PostgresPreparedStatement {
        static let name = "passkey_credentials_of_user"
        static let sql = """
            SELECT record, sign_count, backup_state, uv_initialized, prf_enabled FROM passkey_credentials
            WHERE user_handle = $1 ORDER BY created_at
            """
        var userHandle: Data
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            try bindings.append(userHandle)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> CredentialRow { try row.decode(CredentialRow.self) }
    }

    /// What a login's conditional update writes and the counter it expects: `$1` to `$6` of
    /// every statement below that updates a credential.
    struct CounterUpdate: Sendable {
        var id: Data, signCount: Int64, backupState: Bool, uvInitialized: Bool, prfEnabled: Bool?, expectedSignCount: Int64

        init(_ change: CredentialUpdate) {
            let record = change.record
            id = Data(record.id)
            signCount = Int64(record.signCount)
            backupState = record.backupState
            uvInitialized = record.uvInitialized
            prfEnabled = record.extensions.prfEnabled
            expectedSignCount = Int64(change.expectedSignCount)
        }

        func append(to bindings: inout PostgresBindings) throws {
            try bindings.append(id); bindings.append(signCount); bindings.append(backupState)
            bindings.append(uvInitialized); bindings.append(prfEnabled); bindings.append(expectedSignCount)
        }
    }

    /// The conditional update of a login, the head of every statement below: `updated` holds the
    /// row's id and user, or nothing when the counter did not match (a lost race).
    static let updatedCredential = """
        WITH updated AS (
            UPDATE passkey_credentials
            SET sign_count = $2, backup_state = $3, uv_initialized = $4, last_used_at = now(), prf_enabled = $5
            WHERE passkey_credentials.id = $1 AND passkey_credentials.sign_count = $6
            RETURNING id, user_handle)
        """

    /// The conditional update of a login (see ``PostgresCredentialStore``).
    struct UpdateCredential: PostgresPreparedStatement {
        static let name = "passkey_update_credential"
        static let sql =
            updatedCredential + """

                SELECT 1 FROM updated
                """
        var counter: CounterUpdate
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            try counter.append(to: &bindings)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    /// The conditional update of a login and, if it matched, the login's session (the web
    /// page's login).
    struct UpdateCredentialStartingSession: PostgresPreparedStatement {
        static let name = "passkey_update_credential_starting_session"
        static let sql =
            updatedCredential + """

                INSERT INTO passkey_sessions (id, user_handle, credential_id, signed_in_at, expires_at)
                SELECT $7, updated.user_handle, updated.id, $8, $9 FROM updated
                RETURNING 1
                """
        var counter: CounterUpdate, session: PendingSession
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            try counter.append(to: &bindings)
            try bindings.append(Data(session.id)); bindings.append(session.signedInAt); bindings.append(session.expiresAt)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    /// The conditional update of a login and, if it matched, the login's token family and its
    /// first refresh token (an app's login).
    struct UpdateCredentialStartingTokenFamily: PostgresPreparedStatement {
        static let name = "passkey_update_credential_starting_token_family"
        static let sql =
            updatedCredential + """
                ,
                family AS (
                    INSERT INTO passkey_token_families (id, user_handle, credential_id, auth_time, audience, app_attest_key_id,
                        android_key_id)
                    SELECT $7, updated.user_handle, updated.id, $8, $11, $12, $13 FROM updated
                    RETURNING id)
                INSERT INTO passkey_refresh_tokens (hash, family, expires_at)
                SELECT $9, family.id, $10 FROM family
                RETURNING 1
                """
        var counter: CounterUpdate, family: PendingTokenFamily
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 13)
            try counter.append(to: &bindings)
            bindings.append(family.id); bindings.append(family.authTime)
            try bindings.append(Data(family.refreshTokenHash)); bindings.append(family.refreshTokenExpiresAt)
            bindings.append(family.audience)
            try bindings.append(family.appKey?.appAttestKeyId.map { Data($0) })
            try bindings.append(family.appKey?.androidKeyId.map { Data($0) })
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    struct UserHandleOfUsername: PostgresPreparedStatement {
        static let name = "passkey_user_handle_of_username_key"
        static let sql = "SELECT user_handle FROM passkey_users WHERE username_key = $1"
        var usernameKey: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(usernameKey)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
    }

    /// The account and its credentials' ids and transports (none: one row with NULLs).
    struct LoginLookup: PostgresPreparedStatement {
        static let name = "passkey_login_lookup_by_key"
        static let sql = """
            SELECT u.user_handle, u.username, c.id, c.transports FROM passkey_users u
            LEFT JOIN passkey_credentials c ON c.user_handle = u.user_handle
            WHERE u.username_key = $1 ORDER BY c.created_at
            """
        var usernameKey: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(usernameKey)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> (ByteBuffer, String, ByteBuffer?, [String]?) {
            try row.decode((ByteBuffer, String, ByteBuffer?, [String]?).self)
        }
    }

    struct UsernameOfUserHandle: PostgresPreparedStatement {
        static let name = "passkey_username_of_user_handle"
        static let sql = "SELECT username FROM passkey_users WHERE user_handle = $1"
        var userHandle: Data
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            try bindings.append(userHandle)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
    }

    /// A sealed login's single-use mark (on the sealed login path instead of the challenge rows).
    struct MarkSealedUsed: PostgresPreparedStatement {
        static let name = "passkey_mark_sealed_used"
        static let sql = """
            INSERT INTO passkey_sealed_used (challenge, expires_at) VALUES ($1, $2)
            ON CONFLICT (challenge) DO NOTHING RETURNING 1
            """
        var challenge: Data, expiresAt: Date
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            try bindings.append(challenge); bindings.append(expiresAt)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    /// A session by its id (the token's SHA-256), if it has not expired: read on every signed-in request.
    struct SessionByID: PostgresPreparedStatement {
        static let name = "passkey_session_by_id"
        static let sql = """
            SELECT user_handle, credential_id, signed_in_at, expires_at FROM passkey_sessions
            WHERE id = $1 AND expires_at > $2
            """
        var id: Data, now: Date
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            try bindings.append(id); bindings.append(now)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> (ByteBuffer, ByteBuffer, Date, Date) {
            try row.decode((ByteBuffer, ByteBuffer, Date, Date).self)
        }
    }
}

extension AsyncThrowingMapSequence where Base == PostgresRowSequence {
    /// Every decoded row of a prepared statement's result.
    func all() async throws -> [Element] {
        var rows: [Element] = []
        for try await row in self { rows.append(row) }
        return rows
    }
}
