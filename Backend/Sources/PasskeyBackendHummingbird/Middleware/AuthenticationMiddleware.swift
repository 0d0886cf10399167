import Foundation
import Hummingbird
import HummingbirdAuth
import PasskeyBackend

/// Finds the request's subject: an `Authorization: Bearer` access token (an app) or the
/// `pk_session` cookie (the web page). A bearer token that does not verify is refused at once
/// (401 with `WWW-Authenticate: Bearer error="invalid_token"`, RFC 6750 §3.1); a cookie that
/// names no live session simply signs nobody in.
struct AuthenticationMiddleware: AuthenticatorMiddleware {
    typealias Context = PasskeyRequestContext
    let passkeys: Passkeys

    func authenticate(request: Request, context: Context) async throws -> Subject? {
        try await passkeys.subject(
            bearer: request.headers.bearer?.token, otherAuthorization: request.headers[.authorization] != nil,
            sessionCookie: request.cookies[SessionToken.cookieName]?.value)
    }
}
