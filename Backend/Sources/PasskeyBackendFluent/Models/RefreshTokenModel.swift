import FluentKit
import Foundation

/// A row of `passkey_refresh_tokens`: the SHA-256 of a refresh token, its family, and when it
/// was first rotated (nil: unspent).
final class RefreshTokenModel: Model, @unchecked Sendable {
    static let schema = "passkey_refresh_tokens"

    @ID(custom: "hash", generatedBy: .user) var id: Data?
    @Field(key: "family") var family: String
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?

    init() {}
}
