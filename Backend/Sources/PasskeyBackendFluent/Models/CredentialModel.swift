import FluentKit
import Foundation

/// A row of `passkey_credentials`: the library's Codable `CredentialRecord` as registered, and
/// in columns what a login changes (counter, backup state, uvInitialized, PRF), which the
/// compare and swap compares and writes and which are laid over the record when it is read.
final class CredentialModel: Model, @unchecked Sendable {
    static let schema = "passkey_credentials"

    @ID(custom: "id", generatedBy: .user) var id: Data?
    @Field(key: "user_handle") var userHandle: Data
    @Field(key: "sign_count") var signCount: Int64
    @Field(key: "backup_state") var backupState: Bool
    @Field(key: "uv_initialized") var uvInitialized: Bool
    @OptionalField(key: "prf_enabled") var prfEnabled: Bool?
    @Field(key: "record") var record: String
    @OptionalField(key: "name") var name: String?
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "last_used_at") var lastUsedAt: Date?

    init() {}
}
