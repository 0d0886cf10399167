import FluentKit

/// Attested Android app keys (one row per key id: a key registered twice is the insert's
/// conflict), and the Android key a token family is bound to.
struct CreateAndroidAppKeys: AsyncMigration {
    var name: String { "passkey-5-android-app-keys" }

    func prepare(on database: any Database) async throws {
        try await database.schema(AndroidAppKeyModel.schema)
            .field("key_id", .data, .identifier(auto: false))
            .field("public_key", .data, .required)
            .field("counter", .int64, .required)
            .field("package_name", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime)
            .create()
        try await database.schema(TokenFamilyModel.schema).field("android_key_id", .data).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(TokenFamilyModel.schema).deleteField("android_key_id").update()
        try await database.schema(AndroidAppKeyModel.schema).delete()
    }
}
