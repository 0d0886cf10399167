import Foundation
import Hummingbird
import HummingbirdAuth
import PasskeyBackend

/// Finds the request's signed-in `Subject` and puts it in the context's `identity`: an
/// `Authorization: Bearer` access token (an app) or the `pk_session` cookie (the web page). A
/// bearer token that does not verify is refused at once (401 with
/// `WWW-Authenticate: Bearer error="invalid_token"`, RFC 6750 §3.1); a cookie that names no live
/// session simply signs nobody in. The passkey routes use it; add it to the groups of the
/// application's own routes that need the user.
public struct PasskeyAuthenticator: AuthenticatorMiddleware {
    /// The context it fills.
    public typealias Context = PasskeyRequestContext
    let passkeys: Passkeys

    /// An authenticator for `passkeys`' sessions and access tokens.
    ///
    /// - Parameter passkeys: The backend that issued them.
    public init(_ passkeys: Passkeys) { self.passkeys = passkeys }

    /// The request's subject, or nil when it carries none.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    /// - Returns: The subject of a valid access token or a live session cookie.
    /// - Throws: 401 for a bearer token that does not verify; 503 when the store fails.
    public func authenticate(request: Request, context: Context) async throws -> Subject? {
        try await passkeys.subject(authorization: request.headers[.authorization], sessionCookie: context.cookies(of: request).session)
    }

    /// Reads the request's cookies once (the route reads its ceremony cookie from the context),
    /// then sets the subject.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The route's response.
    /// - Throws: As ``authenticate(request:context:)``, or the route's error.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.passkeyCookies = request.passkeyCookies
        context.identity = try await authenticate(request: request, context: context)
        return try await next(request, context)
    }
}
