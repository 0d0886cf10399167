import FluentKit
import Foundation

/// A row of `passkey_app_attest_keys`: an attested App Attest key, its counter (moved only by a
/// compare and swap), environment and receipt.
final class AppAttestKeyModel: Model, @unchecked Sendable {
    static let schema = "passkey_app_attest_keys"

    @ID(custom: "key_id", generatedBy: .user) var id: Data?
    @Field(key: "public_key") var publicKey: Data
    @Field(key: "sign_count") var signCount: Int64
    @Field(key: "environment") var environment: String
    @Field(key: "receipt") var receipt: Data
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "last_used_at") var lastUsedAt: Date?

    init() {}
}
