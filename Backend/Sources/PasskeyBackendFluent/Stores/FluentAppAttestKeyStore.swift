import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import WebAuthnRP

/// Attested App Attest keys on the Fluent database (`passkey_app_attest_keys`): one row per key
/// id (a key attested twice is the insert's conflict). The counter moves only by a compare and
/// swap UPDATE, so of two assertions verified against one counter at once, one stores it and
/// the other is refused.
final class FluentAppAttestKeyStore: AppAttestKeyStore {
    let database: FluentStoreDatabase

    init(database: FluentStoreDatabase) { self.database = database }

    func create(_ key: AttestedAppKey) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                INSERT INTO passkey_app_attest_keys (key_id, public_key, sign_count, environment, receipt, created_at)
                VALUES (\(bind: Data(key.keyId)), \(bind: Data(key.publicKey)), \(bind: Int64(key.signCount)),
                        \(bind: key.environment.rawValue), \(bind: Data(key.receipt)), \(bind: Date()))
                ON CONFLICT (key_id) DO NOTHING RETURNING key_id
                """
            ).all().count == 1
        }
    }

    func key(id keyId: [UInt8]) async throws -> AttestedAppKey? {
        let row = try await database.run { database, _ in try await AppAttestKeyModel.find(Data(keyId), on: database) }
        guard let row else { return nil }
        guard let count = UInt32(exactly: row.signCount), let environment = AppAttestEnvironment(rawValue: row.environment) else {
            throw WebAuthnError(
                .serverFault, step: "App Attest key store",
                "passkey_app_attest_keys row has counter \(row.signCount), environment \(row.environment)")
        }
        return AttestedAppKey(
            keyId: keyId, publicKey: Array(row.publicKey), signCount: count, receipt: Array(row.receipt), environment: environment)
    }

    func updateSignCount(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_app_attest_keys SET sign_count = \(bind: Int64(newValue)), last_used_at = \(bind: Date())
                WHERE key_id = \(bind: Data(keyId)) AND sign_count = \(bind: Int64(expected))
                RETURNING key_id
                """
            ).all().count == 1
        }
    }
}
