import Foundation
import Logging
import PasskeyBackend
import PostgresNIO
import WebAuthnRP

/// Attested Android app keys in PostgreSQL (`passkey_android_app_keys`): one row per key id (the
/// primary key, so a key registered twice is the INSERT's conflict), with its public key, counter
/// and package. The counter moves only by a compare-and-swap UPDATE, so of one signed request
/// presented to two nodes at once, one is accepted and the other refused.
package final class PostgresAndroidAppKeyStore: AndroidAppKeyStore {
    package let database: Database

    package init(database: Database) { self.database = database }

    /// The table: part of the schema's migration 6 (``PostgresSchema``).
    package static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS passkey_android_app_keys (
            key_id       bytea  PRIMARY KEY CHECK (octet_length(key_id) = 32),
            public_key   bytea  NOT NULL CHECK (octet_length(public_key) = 65),
            counter      bigint NOT NULL CHECK (counter BETWEEN 0 AND 4294967295),
            package_name text   NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now(),
            last_used_at timestamptz)
        """
    ]

    package func create(_ key: AttestedAndroidKey) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                INSERT INTO passkey_android_app_keys (key_id, public_key, counter, package_name)
                VALUES (\(Data(key.keyId)), \(Data(key.publicKey)), \(Int64(key.counter)), \(key.packageName))
                ON CONFLICT (key_id) DO NOTHING RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }

    package func key(id keyId: [UInt8]) async throws -> AttestedAndroidKey? {
        let rows = try await database.run { connection, logger in
            try await connection.query(
                "SELECT public_key, counter, package_name FROM passkey_android_app_keys WHERE key_id = \(Data(keyId))",
                logger: logger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        let (publicKey, counter, packageName) = try row.decode((Data, Int64, String).self)
        guard let count = UInt32(exactly: counter) else {
            throw WebAuthnError(.serverFault, step: "Android key store", "passkey_android_app_keys row has counter \(counter)")
        }
        return AttestedAndroidKey(keyId: keyId, publicKey: Array(publicKey), counter: count, packageName: packageName)
    }

    package func updateCounter(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        try await database.run { connection, logger in
            try await connection.query(
                """
                UPDATE passkey_android_app_keys SET counter = \(Int64(newValue)), last_used_at = now()
                WHERE key_id = \(Data(keyId)) AND counter = \(Int64(expected))
                RETURNING 1
                """, logger: logger
            ).collect().count == 1
        }
    }
}
