import Foundation
import Logging
import PasskeyBackend
import PostgresNIO
import WebAuthnRP

/// Attested App Attest keys in PostgreSQL (`passkey_app_attest_keys`): one row per key id (the
/// primary key, so a key attested twice is the INSERT's conflict), with its public key, counter,
/// environment and receipt (kept for Apple's fraud-metric exchange). The counter moves only by
/// a compare-and-swap UPDATE, so of two nodes verifying assertions with one counter at once,
/// one stores it and the other is refused. Without a database the library's in-memory store
/// serves (one node).
package final class PostgresAppAttestKeyStore: AppAttestKeyStore {
    package let database: Database

    package init(database: Database) { self.database = database }

    /// The table: the schema's migration 2 (``PostgresSchema``).
    package static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS passkey_app_attest_keys (
            key_id       bytea  PRIMARY KEY CHECK (octet_length(key_id) = 32),
            public_key   bytea  NOT NULL,
            sign_count   bigint NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            environment  text   NOT NULL CHECK (environment IN ('production', 'development')),
            receipt      bytea  NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now(),
            last_used_at timestamptz)
        """
    ]

    package func create(_ key: AttestedAppKey) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                INSERT INTO passkey_app_attest_keys (key_id, public_key, sign_count, environment, receipt)
                VALUES (\(Data(key.keyId)), \(Data(key.publicKey)), \(Int64(key.signCount)), \(key.environment.rawValue),
                        \(Data(key.receipt)))
                ON CONFLICT (key_id) DO NOTHING RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func key(id keyId: [UInt8]) async throws -> AttestedAppKey? {
        let rows = try await database.run { connection, logger in
            try await connection.query(
                """
                SELECT public_key, sign_count, environment, receipt FROM passkey_app_attest_keys WHERE key_id = \(Data(keyId))
                """, logger: logger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        let (publicKey, signCount, environmentText, receipt) = try row.decode((Data, Int64, String, Data).self)
        guard let count = UInt32(exactly: signCount), let environment = AppAttestEnvironment(rawValue: environmentText) else {
            throw WebAuthnError(
                .serverFault, step: "App Attest key store",
                "passkey_app_attest_keys row has counter \(signCount), environment \(environmentText)")
        }
        return AttestedAppKey(
            keyId: keyId, publicKey: Array(publicKey), signCount: count, receipt: Array(receipt),
            environment: environment)
    }

    package func updateSignCount(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_app_attest_keys SET sign_count = \(Int64(newValue)), last_used_at = now()
                WHERE key_id = \(Data(keyId)) AND sign_count = \(Int64(expected))
                RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }
}
