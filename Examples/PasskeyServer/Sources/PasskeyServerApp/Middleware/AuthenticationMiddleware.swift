import Foundation
import Hummingbird
import HummingbirdAuth
import WebAuthnRP

/// Finds the request's subject: an `Authorization: Bearer` access token (an app) or the
/// `pk_session` cookie (the web page). A bearer token that does not verify is refused at once
/// (401 with `WWW-Authenticate: Bearer error="invalid_token"`, RFC 6750 §3.1); a cookie that
/// names no live session simply signs nobody in.
struct AuthenticationMiddleware: AuthenticatorMiddleware {
    typealias Context = AppRequestContext
    let sessions: any SessionStore
    let tokens: TokenService

    func authenticate(request: Request, context: Context) async throws -> Subject? {
        if let bearer = request.headers.bearer {
            return try await tokens.subject(accessToken: bearer.token, now: Date())
        }
        if request.headers[.authorization] != nil {
            throw TokenService.invalidToken("Send the access token as Authorization: Bearer <token>.")
        }
        guard let token = SessionCookie.token(request) else { return nil }
        guard let session = try await sessions.session(id: SessionCookie.id(token), now: Date()) else { return nil }
        return Subject(
            userHandle: session.userHandle, credentialId: session.credentialId, signedInAt: session.signedInAt,
            credential: .session(id: session.id))
    }
}
