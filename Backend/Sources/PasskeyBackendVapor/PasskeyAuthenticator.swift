import PasskeyBackend
import Vapor

/// The signed-in passkey user, as Vapor's authentication knows it: `req.auth.get(Subject.self)`
/// on a route behind ``PasskeyAuthenticator``.
extension Subject: Authenticatable {}

/// Finds the request's signed-in `Subject` and logs it in (`req.auth`): an
/// `Authorization: Bearer` access token (an app) or the `pk_session` cookie (the web page). A
/// bearer token that does not verify is refused at once (401 with
/// `WWW-Authenticate: Bearer error="invalid_token"`, RFC 6750 §3.1); a cookie that names no live
/// session simply signs nobody in. The passkey routes use it; add it to the groups of the
/// application's own routes that need the user.
public struct PasskeyAuthenticator: AsyncRequestAuthenticator {
    let passkeys: Passkeys

    /// An authenticator for `passkeys`' sessions and access tokens.
    ///
    /// - Parameter passkeys: The backend that issued them.
    public init(_ passkeys: Passkeys) { self.passkeys = passkeys }

    /// Logs in the subject of a valid access token or a live session cookie, if any.
    ///
    /// - Parameter request: The request.
    /// - Throws: 401 for a bearer token that does not verify; 503 when the store fails.
    public func authenticate(request: Request) async throws {
        guard !request.auth.has(Subject.self) else { return }
        let subject = try await passkeys.subject(
            authorization: request.headers.first(name: .authorization), sessionCookie: request.passkeyCookies.session)
        if let subject { request.auth.login(subject) }
    }
}
