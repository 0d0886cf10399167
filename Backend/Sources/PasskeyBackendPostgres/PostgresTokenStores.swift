import Foundation
import Logging
import PasskeyBackend
import PostgresNIO
import Synchronization
import WebAuthnRP

/// Refresh tokens in PostgreSQL: `passkey_token_families` (one row per sign-in of an app; it
/// goes with its passkey, ON DELETE CASCADE) and `passkey_refresh_tokens` (the SHA-256 of each
/// token, `used_at` once rotated). A rotation is one statement holding the token's row lock, in
/// an explicit transaction that commits after the new access token is signed, so of two nodes
/// presenting one token at once, one rotates it and the other sees it spent (and revokes the
/// family: a copy of the token is in someone else's hands).
package final class PostgresRefreshTokenStore: RefreshTokenStore {
    package let database: Database
    /// Sign-ins since the last sweep of expired rows (swept every 256 per node).
    private let creations = Mutex(0)

    package init(database: Database) { self.database = database }

    package func create(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, now: Date) async throws {
        // One statement (atomic on its own): the family and its first token, one round trip
        // instead of a transaction's four.
        try await database.run { connection, logger in
            try await connection.query(
                """
                WITH f AS (
                    INSERT INTO passkey_token_families (id, user_handle, credential_id, auth_time, audience, app_attest_key_id,
                        android_key_id)
                    VALUES (\(family.id), \(Data(family.userHandle)), \(Data(family.credentialId)), \(family.authTime),
                            \(family.audience), \(family.appKey?.appAttestKeyId.map { Data($0) }),
                            \(family.appKey?.androidKeyId.map { Data($0) }))
                    RETURNING id)
                INSERT INTO passkey_refresh_tokens (hash, family, expires_at) SELECT \(Data(tokenHash)), f.id, \(expiresAt) FROM f
                """, logger: logger
            ).collect().count
        }
        if everyNth(creations) { await Self.sweep(database, now: now) }
    }

    /// Deletes expired refresh tokens and the families left without one (best effort). An
    /// expired token refreshes nothing; a family without a live token has no live access token
    /// either (each refresh token outlives the access tokens issued with it).
    package static func sweep(_ database: Database, now: Date) async {
        _ = try? await database.run { connection, logger in
            _ = try await connection.query("DELETE FROM passkey_refresh_tokens WHERE expires_at < \(now)", logger: logger).collect()
            _ = try await connection.query(
                """
                DELETE FROM passkey_token_families f
                WHERE NOT EXISTS (SELECT 1 FROM passkey_refresh_tokens t WHERE t.family = f.id)
                """, logger: logger
            ).collect()
        }
    }

    package func rotate(
        tokenHash: [UInt8], newHash: [UInt8], newExpiresAt: Date, audience: String, appKey: AppKey?,
        reuseInterval: TimeInterval, now: Date,
        issue: @escaping @Sendable (TokenFamily) async throws -> Void
    ) async throws -> RefreshOutcome {
        // A spent token first used at or after this instant is within the reuse interval (none
        // when the interval is 0: then every second presentation is a reuse, whatever the clocks).
        let graceSince: Date? = reuseInterval > 0 ? now.addingTimeInterval(-reuseInterval) : nil
        // One statement, in an explicit transaction: `t` locks the token's row (a second node
        // presenting the same token waits here, then reads it spent); `spend` and `fresh` rotate a
        // live, unspent, unexpired token of this audience (a family stored before audiences were
        // is bound to this one by `bind`), and `grace` lets a token spent within the reuse
        // interval rotate again (its first use's time stays); `reuse` ends the family of a token
        // spent before it. The family comes back with it, the access token is signed for it,
        // and only then does the transaction commit: a failure until COMMIT's acknowledgement
        // rolls the rotation back, and the answer waits for that acknowledgement (PostgreSQL
        // sends it once the commit is done; an implicit transaction's statement completes before
        // its commit).
        return try await database.run { connection, logger in
            try await connection.withTransaction(logger: logger) { connection -> RefreshOutcome in
                let rows = try await connection.query(
                    """
                    WITH t AS (
                        SELECT t.hash, t.family, t.used_at IS NOT NULL AS used, t.expires_at > \(now) AS current,
                            coalesce(t.used_at >= \(graceSince), false) AS grace,
                            ((f.app_attest_key_id IS NULL OR f.app_attest_key_id = \(appKey?.appAttestKeyId.map { Data($0) }))
                                AND (f.android_key_id IS NULL OR f.android_key_id = \(appKey?.androidKeyId.map { Data($0) }))) IS TRUE
                                AS keyed,
                            f.revoked_at IS NULL AS alive, coalesce(f.audience, \(audience)) = \(audience) AS ours,
                            f.user_handle, f.credential_id, f.auth_time, f.app_attest_key_id, f.android_key_id
                        FROM passkey_refresh_tokens t JOIN passkey_token_families f ON f.id = t.family
                        WHERE t.hash = \(Data(tokenHash)) FOR UPDATE OF t),
                    spend AS (
                        UPDATE passkey_refresh_tokens r SET used_at = \(now) FROM t
                        WHERE r.hash = t.hash AND t.alive AND t.ours AND t.keyed AND NOT t.used AND t.current RETURNING r.family),
                    again AS (
                        SELECT t.family FROM t WHERE t.alive AND t.ours AND t.keyed AND t.used AND t.grace AND t.current),
                    fresh AS (
                        INSERT INTO passkey_refresh_tokens (hash, family, expires_at)
                        SELECT \(Data(newHash)), family, \(newExpiresAt) FROM (SELECT family FROM spend UNION ALL SELECT family FROM again) s
                        RETURNING family),
                    bind AS (
                        UPDATE passkey_token_families f SET audience = \(audience) FROM spend
                        WHERE f.id = spend.family AND f.audience IS NULL RETURNING f.id),
                    reuse AS (
                        UPDATE passkey_token_families f SET revoked_at = \(now) FROM t
                        WHERE f.id = t.family AND t.alive AND t.ours AND t.keyed AND t.used AND NOT t.grace RETURNING f.id)
                    SELECT t.family, t.used AND NOT t.grace, t.current, t.alive, t.ours, t.keyed, t.user_handle, t.credential_id,
                        t.auth_time, t.app_attest_key_id, t.android_key_id,
                        (SELECT count(*) FROM fresh) + (SELECT count(*) FROM reuse) + (SELECT count(*) FROM bind)
                    FROM t
                    """, logger: logger
                ).collect()
                guard let row = rows.first else { return .invalid }
                let (family, used, current, alive, ours, keyed, userHandle, credentialId, authTime, appAttestKeyId, androidKeyId, _) =
                    try row.decode((String, Bool, Bool, Bool, Bool, Bool, Data, Data, Date, Data?, Data?, Int64).self)
                guard alive, ours else { return .invalid }
                // Bound to an app key the request was not asserted by: nothing changed.
                guard keyed else { return .wrongKey }
                // Reuse of a rotated token: the whole family has ended, whoever holds its newest token.
                if used { return .reused }
                guard current else { return .invalid }
                let rotated = TokenFamily(
                    id: family, userHandle: Array(userHandle), credentialId: Array(credentialId), authTime: authTime,
                    audience: audience,
                    appKey: AppKey(appAttestKeyId: appAttestKeyId.map(Array.init), androidKeyId: androidKeyId.map(Array.init)))
                try await issue(rotated)
                return .rotated(rotated)
            }
        }
    }

    package func family(id: String, now: Date) async throws -> TokenFamily? {
        let rows = try await database.run { connection, logger in
            try await connection.query(
                """
                SELECT user_handle, credential_id, auth_time, audience, app_attest_key_id, android_key_id
                FROM passkey_token_families WHERE id = \(id) AND revoked_at IS NULL
                """, logger: logger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        let (userHandle, credentialId, authTime, audience, appAttestKeyId, androidKeyId) = try row.decode(
            (Data, Data, Date, String?, Data?, Data?).self)
        // The key binding too, as every store answers it (the contract's family is the whole row).
        return TokenFamily(
            id: id, userHandle: Array(userHandle), credentialId: Array(credentialId), authTime: authTime, audience: audience,
            appKey: AppKey(appAttestKeyId: appAttestKeyId.map(Array.init), androidKeyId: androidKeyId.map(Array.init)))
    }

    package func isStored(tokenHash: [UInt8]) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                "SELECT 1 FROM passkey_refresh_tokens WHERE hash = \(Data(tokenHash))", logger: logger
            ).collect().count == 1
        }
    }

    package func revoke(tokenHash: [UInt8], now: Date) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_token_families SET revoked_at = \(now)
                WHERE revoked_at IS NULL AND id = (SELECT family FROM passkey_refresh_tokens WHERE hash = \(Data(tokenHash)))
                RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func revoke(familyID: String, now: Date) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_token_families SET revoked_at = \(now) WHERE id = \(familyID) AND revoked_at IS NULL RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func revokeAll(userHandle: [UInt8], now: Date) async throws -> Int {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_token_families SET revoked_at = \(now)
                WHERE user_handle = \(Data(userHandle)) AND revoked_at IS NULL RETURNING 1
                """, logger: logger
            ).collect().count
        }
    }

    /// The families go with their passkey's row (ON DELETE CASCADE): nothing to do here.
    package func credentialDeleted(_ id: [UInt8]) async throws {}
}

/// The fleet's signing keys in PostgreSQL (`passkey_signing_keys`, private keys sealed under a
/// key derived from SESSION_KEY). Rotation runs under a transaction-scoped advisory lock, so
/// nodes deciding at the same instant add one key between them.
package final class PostgresSigningKeyStore: SigningKeyStore {
    package let database: Database
    package static let lockKey: Int64 = 0x7061_7373_6b65_6b79  // "passkeky"

    package init(database: Database) { self.database = database }

    package func keys(
        rotateAfter: TimeInterval, now: Date, usable: @escaping @Sendable (StoredSigningKey) -> Bool, make: @Sendable () -> StoredSigningKey
    ) async throws -> [StoredSigningKey] {
        let fresh = make()  // made outside the transaction; used only if the newest usable key is too old
        return try await database.run { connection, logger in
            try await connection.withTransaction(logger: logger) { connection -> [StoredSigningKey] in
                // The newest usable keys: a key sealed under another SESSION_KEY is passed over.
                func newest() async throws -> [StoredSigningKey] {
                    let rows = try await connection.query(
                        """
                        SELECT kid, sealed_key, created_at FROM passkey_signing_keys ORDER BY created_at DESC LIMIT \(Self.scanned)
                        """, logger: logger
                    ).collect()
                    let keys = try rows.map { row in
                        let (kid, sealed, created) = try row.decode((String, Data, Date).self)
                        return StoredSigningKey(kid: kid, privateKey: Array(sealed), createdAt: created)
                    }
                    return Array(keys.filter(usable).prefix(2))
                }
                var keys = try await newest()
                if keys.first.map({ now.timeIntervalSince($0.createdAt) >= rotateAfter }) ?? true {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                    // Another node may have rotated while this one waited for the lock.
                    keys = try await newest()
                    if keys.first.map({ now.timeIntervalSince($0.createdAt) >= rotateAfter }) ?? true {
                        try await connection.query(
                            """
                            INSERT INTO passkey_signing_keys (kid, sealed_key, created_at)
                            VALUES (\(fresh.kid), \(Data(fresh.privateKey)), \(now))
                            """, logger: logger)
                        keys = [fresh] + keys.prefix(1)
                    }
                }
                return keys
            }
        }
    }

    /// How many of the newest rows are read to find two usable keys (rows of a SESSION_KEY no
    /// longer in use are passed over; the newest usable ones come first once a node rotated).
    package static let scanned: Int64 = 16
}
