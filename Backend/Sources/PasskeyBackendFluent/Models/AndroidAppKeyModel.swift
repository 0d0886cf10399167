import FluentKit
import Foundation

/// A row of `passkey_android_app_keys`: an attested Android Keystore key, its counter (moved only
/// by a compare and swap) and the package its attestation named.
final class AndroidAppKeyModel: Model, @unchecked Sendable {
    static let schema = "passkey_android_app_keys"

    @ID(custom: "key_id", generatedBy: .user) var id: Data?
    @Field(key: "public_key") var publicKey: Data
    @Field(key: "counter") var counter: Int64
    @Field(key: "package_name") var packageName: String
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "last_used_at") var lastUsedAt: Date?

    init() {}
}
