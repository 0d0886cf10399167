import FluentKit
import Foundation

/// A row of `passkey_users`: an account, keyed by the random user handle its passkeys carry,
/// with its name as the user wrote it and as compared (``Username/key``, unique).
final class AccountModel: Model, @unchecked Sendable {
    static let schema = "passkey_users"

    @ID(custom: "user_handle", generatedBy: .user) var id: Data?
    @Field(key: "username") var username: String
    @Field(key: "username_key") var usernameKey: String
    @Field(key: "created_at") var createdAt: Date

    init() {}
}
