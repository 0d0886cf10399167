import FluentKit
import Foundation

/// A row of `passkey_token_families`: one sign-in of an app, alive until `revoked_at` is set
/// (logout, revocation, reuse of a rotated token) or its passkey is deleted.
final class TokenFamilyModel: Model, @unchecked Sendable {
    static let schema = "passkey_token_families"

    @ID(custom: "id", generatedBy: .user) var id: String?
    @Field(key: "user_handle") var userHandle: Data
    @Field(key: "credential_id") var credentialId: Data
    @Field(key: "auth_time") var authTime: Date
    @OptionalField(key: "audience") var audience: String?
    @OptionalField(key: "app_attest_key_id") var appAttestKeyId: Data?
    @OptionalField(key: "android_key_id") var androidKeyId: Data?
    @OptionalField(key: "revoked_at") var revokedAt: Date?

    init() {}
}
