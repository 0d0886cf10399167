import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import WebAuthnRP

/// Attested Android app keys on the Fluent database (`passkey_android_app_keys`): one row per
/// key id (a key registered twice is the insert's conflict). The counter moves only by a compare
/// and swap UPDATE, so of one signed request presented to two nodes at once, one is accepted.
final class FluentAndroidAppKeyStore: AndroidAppKeyStore {
    let database: FluentStoreDatabase

    init(database: FluentStoreDatabase) { self.database = database }

    func create(_ key: AttestedAndroidKey) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                INSERT INTO passkey_android_app_keys (key_id, public_key, counter, package_name, created_at)
                VALUES (\(bind: Data(key.keyId)), \(bind: Data(key.publicKey)), \(bind: Int64(key.counter)),
                        \(bind: key.packageName), \(bind: Date()))
                ON CONFLICT (key_id) DO NOTHING RETURNING key_id
                """
            ).all().count == 1
        }
    }

    func key(id keyId: [UInt8]) async throws -> AttestedAndroidKey? {
        let row = try await database.run { database, _ in try await AndroidAppKeyModel.find(Data(keyId), on: database) }
        guard let row else { return nil }
        guard let counter = UInt32(exactly: row.counter) else {
            throw WebAuthnError(.serverFault, step: "Android key store", "passkey_android_app_keys row has counter \(row.counter)")
        }
        return AttestedAndroidKey(keyId: keyId, publicKey: Array(row.publicKey), counter: counter, packageName: row.packageName)
    }

    func updateCounter(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_android_app_keys SET counter = \(bind: Int64(newValue)), last_used_at = \(bind: Date())
                WHERE key_id = \(bind: Data(keyId)) AND counter = \(bind: Int64(expected))
                RETURNING key_id
                """
            ).all().count == 1
        }
    }
}
