import FluentKit

/// Attested App Attest keys: one row per key id (a key attested twice is the insert's conflict).
struct CreateAppAttestKeys: AsyncMigration {
    var name: String { "passkey-4-app-attest-keys" }

    func prepare(on database: any Database) async throws {
        try await database.schema(AppAttestKeyModel.schema)
            .field("key_id", .data, .identifier(auto: false))
            .field("public_key", .data, .required)
            .field("sign_count", .int64, .required)
            .field("environment", .string, .required)
            .field("receipt", .data, .required)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(AppAttestKeyModel.schema).delete()
    }
}
