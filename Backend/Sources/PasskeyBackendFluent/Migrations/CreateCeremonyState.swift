import FluentKit

/// What ceremonies leave between their requests: outstanding challenges, answered sealed
/// challenges, and the sessions a web page's ceremonies start (each goes with its passkey).
struct CreateCeremonyState: AsyncMigration {
    var name: String { "passkey-2-ceremony-state" }

    func prepare(on database: any Database) async throws {
        try await database.schema(ChallengeModel.schema)
            .field("challenge", .data, .identifier(auto: false))
            .field("issued", .string, .required)
            .field("expires_at", .datetime, .required)
            .create()
        try await PasskeyMigrations.index("passkey_challenges_expires_at", on: ChallengeModel.schema, "expires_at", in: database)
        try await database.schema(SealedMarkModel.schema)
            .field("challenge", .data, .identifier(auto: false))
            .field("expires_at", .datetime, .required)
            .create()
        try await PasskeyMigrations.index("passkey_sealed_used_expires_at", on: SealedMarkModel.schema, "expires_at", in: database)
        try await database.schema(SessionModel.schema)
            .field("id", .data, .identifier(auto: false))
            .field("user_handle", .data, .required)
            .field("credential_id", .data, .required, .references(CredentialModel.schema, "id", onDelete: .cascade))
            .field("signed_in_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .create()
        try await PasskeyMigrations.index("passkey_sessions_user_handle", on: SessionModel.schema, "user_handle", in: database)
        try await PasskeyMigrations.index("passkey_sessions_credential_id", on: SessionModel.schema, "credential_id", in: database)
        try await PasskeyMigrations.index("passkey_sessions_expires_at", on: SessionModel.schema, "expires_at", in: database)
    }

    func revert(on database: any Database) async throws {
        try await database.schema(SessionModel.schema).delete()
        try await database.schema(SealedMarkModel.schema).delete()
        try await database.schema(ChallengeModel.schema).delete()
    }
}
