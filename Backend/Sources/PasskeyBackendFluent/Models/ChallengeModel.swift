import FluentKit
import Foundation

/// A row of `passkey_challenges`: an outstanding challenge and the library's Codable
/// `IssuedChallenge`, stored whole; consumed by one `DELETE … RETURNING`.
final class ChallengeModel: Model, @unchecked Sendable {
    static let schema = "passkey_challenges"

    @ID(custom: "challenge", generatedBy: .user) var id: Data?
    @Field(key: "issued") var issued: String
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}
