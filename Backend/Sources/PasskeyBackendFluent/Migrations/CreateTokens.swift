import FluentKit

/// An app's sign-ins (token families, each going with its passkey), their refresh tokens
/// (SHA-256 only), the access tokens' signing keys, and the lock row their rotation takes.
struct CreateTokens: AsyncMigration {
    var name: String { "passkey-3-tokens" }

    func prepare(on database: any Database) async throws {
        try await database.schema(TokenFamilyModel.schema)
            .field("id", .string, .identifier(auto: false))
            .field("user_handle", .data, .required)
            .field("credential_id", .data, .required, .references(CredentialModel.schema, "id", onDelete: .cascade))
            .field("auth_time", .datetime, .required)
            .field("audience", .string)
            .field("app_attest_key_id", .data)
            .field("revoked_at", .datetime)
            .create()
        try await PasskeyMigrations.index(
            "passkey_token_families_user_handle", on: TokenFamilyModel.schema, "user_handle", in: database)
        try await PasskeyMigrations.index(
            "passkey_token_families_credential_id", on: TokenFamilyModel.schema, "credential_id", in: database)
        try await database.schema(RefreshTokenModel.schema)
            .field("hash", .data, .identifier(auto: false))
            .field("family", .string, .required, .references(TokenFamilyModel.schema, "id", onDelete: .cascade))
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .create()
        try await PasskeyMigrations.index("passkey_refresh_tokens_family", on: RefreshTokenModel.schema, "family", in: database)
        try await database.schema(SigningKeyModel.schema)
            .field("kid", .string, .identifier(auto: false))
            .field("sealed_key", .data, .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema(StoreLockModel.schema)
            .field("name", .string, .identifier(auto: false))
            .create()
        try await StoreLockModel(name: StoreLockModel.signingKeys).create(on: database)
    }

    func revert(on database: any Database) async throws {
        try await database.schema(StoreLockModel.schema).delete()
        try await database.schema(SigningKeyModel.schema).delete()
        try await database.schema(RefreshTokenModel.schema).delete()
        try await database.schema(TokenFamilyModel.schema).delete()
    }
}
