import Foundation

/// Who a request speaks for, as an adapter's authenticator found it: a browser's session
/// cookie or an app's bearer access token. An application's own routes read it to know the
/// signed-in user.
public struct Subject: Sendable {
    /// How the request proved it.
    public enum Credential: Sendable {
        /// The web page's session cookie; `id` is the session row's key.
        case session(id: [UInt8])
        /// An app's access token: its `jti` and the refresh-token family (`sid`) it was issued in.
        case accessToken(jti: String, family: String)
    }

    /// The account's user handle (the WebAuthn `user.id`).
    public var userHandle: [UInt8]
    /// The passkey whose assertion (or registration) signed this subject in.
    public var credentialId: [UInt8]
    /// When that assertion happened: changing passkeys needs it to be recent.
    public var signedInAt: Date
    /// How the request proved it.
    public var credential: Credential

    package init(userHandle: [UInt8], credentialId: [UInt8], signedInAt: Date, credential: Credential) {
        self.userHandle = userHandle
        self.credentialId = credentialId
        self.signedInAt = signedInAt
        self.credential = credential
    }
}
