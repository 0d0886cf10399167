import FluentKit
import Foundation

/// A row of `passkey_sealed_used`: a sealed challenge already answered, kept until the token
/// expires (the key refuses it from then on).
final class SealedMarkModel: Model, @unchecked Sendable {
    static let schema = "passkey_sealed_used"

    @ID(custom: "challenge", generatedBy: .user) var id: Data?
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}
