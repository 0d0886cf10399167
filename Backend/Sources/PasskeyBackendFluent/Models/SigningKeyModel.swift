import FluentKit
import Foundation

/// A row of `passkey_signing_keys`: an ES256 key of the access tokens, sealed under SESSION_KEY.
final class SigningKeyModel: Model, @unchecked Sendable {
    static let schema = "passkey_signing_keys"

    @ID(custom: "kid", generatedBy: .user) var id: String?
    @Field(key: "sealed_key") var sealedKey: Data
    @Field(key: "created_at") var createdAt: Date

    init() {}
}
