import FluentKit
import Foundation

/// A row of `passkey_sessions`: a signed-in browser, keyed by the SHA-256 of its cookie's
/// token, naming the passkey that signed it in (the row goes with that passkey).
final class SessionModel: Model, @unchecked Sendable {
    static let schema = "passkey_sessions"

    @ID(custom: "id", generatedBy: .user) var id: Data?
    @Field(key: "user_handle") var userHandle: Data
    @Field(key: "credential_id") var credentialId: Data
    @Field(key: "signed_in_at") var signedInAt: Date
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}
