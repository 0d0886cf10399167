import FluentKit
import Foundation
import PasskeyBackend
import SQLKit

/// The fleet's signing keys on the Fluent database (`passkey_signing_keys`, private keys sealed
/// under a key derived from SESSION_KEY). A rotation takes the `signing_keys` row of
/// `passkey_store_locks` in its transaction and reads the keys again under it, so nodes that
/// decide to rotate at the same instant add one key between them.
final class FluentSigningKeyStore: SigningKeyStore {
    let database: FluentStoreDatabase
    /// How many of the newest rows are read to find two usable keys (rows sealed under a
    /// SESSION_KEY no longer in use are passed over).
    static let scanned = 16

    init(database: FluentStoreDatabase) { self.database = database }

    func keys(
        rotateAfter: TimeInterval, now: Date, usable: @escaping @Sendable (StoredSigningKey) -> Bool, make: @Sendable () -> StoredSigningKey
    ) async throws -> [StoredSigningKey] {
        let fresh = make()  // made outside the transaction; used only if the newest usable key is too old
        return try await database.transaction { database, sql in
            func newest() async throws -> [StoredSigningKey] {
                let rows = try await SigningKeyModel.query(on: database).sort(\.$createdAt, .descending).limit(Self.scanned).all()
                let keys = rows.compactMap { row in
                    row.id.map { StoredSigningKey(kid: $0, privateKey: Array(row.sealedKey), createdAt: row.createdAt) }
                }
                return Array(keys.filter(usable).prefix(2))
            }
            func stale(_ keys: [StoredSigningKey]) -> Bool {
                keys.first.map { now.timeIntervalSince($0.createdAt) >= rotateAfter } ?? true
            }
            var keys = try await newest()
            guard stale(keys) else { return keys }
            // Waits for a node rotating at the same time; it may have added a key meanwhile.
            try await sql.update(StoreLockModel.schema).set("name", to: StoreLockModel.signingKeys)
                .where("name", .equal, StoreLockModel.signingKeys).run()
            keys = try await newest()
            guard stale(keys) else { return keys }
            let row = SigningKeyModel()
            row.id = fresh.kid
            row.sealedKey = Data(fresh.privateKey)
            row.createdAt = now
            try await row.create(on: database)
            return [StoredSigningKey(kid: fresh.kid, privateKey: fresh.privateKey, createdAt: now)] + keys.prefix(1)
        }
    }
}
