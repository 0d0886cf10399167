import Foundation
import Hummingbird
import HummingbirdAuth

/// Who a request speaks for, as the authentication middleware found it: a browser's session
/// cookie or an app's bearer access token.
struct Subject: Sendable {
    /// How the request proved it.
    enum Credential: Sendable {
        /// The web page's session cookie; `id` is the session row's key.
        case session(id: [UInt8])
        /// An app's access token: its `jti` and the refresh-token family (`sid`) it was issued in.
        case accessToken(jti: String, family: String)
    }

    var userHandle: [UInt8]
    /// The passkey whose assertion (or registration) signed this subject in.
    var credentialId: [UInt8]
    /// When that assertion happened: changing passkeys needs it to be recent.
    var signedInAt: Date
    var credential: Credential
}

/// The request context of every route: Hummingbird's core storage and the signed-in subject,
/// if any (set by ``AuthenticationMiddleware``).
struct AppRequestContext: AuthRequestContext, RequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: Subject?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
    }

    /// The signed-in subject, or 401.
    func requireSubject() throws -> Subject {
        guard let identity else { throw AppError.unauthorized }
        return identity
    }
}
