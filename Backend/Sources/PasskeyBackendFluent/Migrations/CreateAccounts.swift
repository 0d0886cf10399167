import FluentKit

/// Accounts and their passkeys. The credential id is the primary key, so "not yet registered"
/// (§7.1 step 27) is the insert's conflict; the folded username is unique, so a race for a name
/// is decided by the insert too.
struct CreateAccounts: AsyncMigration {
    var name: String { "passkey-1-accounts" }

    func prepare(on database: any Database) async throws {
        try await database.schema(AccountModel.schema)
            .field("user_handle", .data, .identifier(auto: false))
            .field("username", .string, .required)
            .field("username_key", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "username_key")
            .create()
        try await database.schema(CredentialModel.schema)
            .field("id", .data, .identifier(auto: false))
            .field("user_handle", .data, .required)
            .field("sign_count", .int64, .required)
            .field("backup_state", .bool, .required)
            .field("uv_initialized", .bool, .required)
            .field("prf_enabled", .bool)
            .field("record", .string, .required)
            .field("name", .string)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime)
            .create()
        try await PasskeyMigrations.index(
            "passkey_credentials_user_handle", on: CredentialModel.schema, "user_handle", in: database)
    }

    func revert(on database: any Database) async throws {
        try await database.schema(CredentialModel.schema).delete()
        try await database.schema(AccountModel.schema).delete()
    }
}
