import Foundation
import Hummingbird
import HummingbirdAuth
import PasskeyBackend

/// The request context of the passkey routes (and of an application's own routes beside them):
/// Hummingbird's core storage and the signed-in `Subject`, if any, which the
/// passkey authenticator sets from a session cookie or a bearer access token.
public struct PasskeyRequestContext: AuthRequestContext, RequestContext {
    /// Hummingbird's storage for the request.
    public var coreContext: CoreRequestContextStorage
    /// The signed-in subject, or nil.
    public var identity: Subject?
    /// The app key (App Attest or Android) whose assertion over this request verified (set by
    /// the route's app-integrity guard), which a sign-in's token family is bound to.
    package var appKey: AppKey?
    /// The backend's cookies, read once by ``PasskeyAuthenticator`` (nil on a route without it).
    package var passkeyCookies: RequestCookies?

    /// A context for a request the application received.
    ///
    /// - Parameter source: What Hummingbird knows of the request's channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
    }

    /// Request bodies are read by the library's strict JSON reader first (``StrictJSONRequestDecoder``).
    public var requestDecoder: StrictJSONRequestDecoder { StrictJSONRequestDecoder() }

    /// The request's backend cookies: as the authenticator read them, else read now.
    package func cookies(of request: Request) -> RequestCookies { passkeyCookies ?? request.passkeyCookies }

    /// The signed-in subject, or 401.
    package func requireSubject() throws -> Subject {
        guard let identity else { throw AppError.unauthorized }
        return identity
    }
}
