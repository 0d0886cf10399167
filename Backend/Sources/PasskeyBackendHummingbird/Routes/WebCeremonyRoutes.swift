import Foundation
import Hummingbird
import PasskeyBackend
import WebAuthnRP

/// The web page's ceremonies: `/api/register/options|verify`, `/api/login/options|verify` and
/// `/api/token/login/verify`. What the server must remember between options and verification
/// travels in a signed cookie (one per ceremony kind); a successful login or first registration
/// starts a session, whose cookie replaces the one the request came with.
struct WebCeremonyRoutes: Sendable {
    let passkeys: Passkeys
    let cookies: CookieRules
    var ceremonies: PasskeyCeremonies { passkeys.ceremonies }

    /// Guarded when App Attest or Android key attestation is on: an app adding a passkey with its bearer token, and the
    /// login that answers tokens.
    func addRoutes(to group: RouterGroup<PasskeyRequestContext>, guards: AppIntegrityGuards) {
        group.post("register/options", use: registerOptions)
        group.post("register/verify", guardedBy: guards("/api/register/verify"), use: registerVerify)
        group.post("login/options", use: loginOptions)
        group.post("login/verify", use: loginVerify)
        group.post("token/login/verify", guardedBy: guards("/api/token/login/verify"), use: tokenLoginVerify)
    }

    @Sendable func registerOptions(_ request: Request, context: PasskeyRequestContext) async throws -> WithCookies<RawJSON> {
        let (options, state) = try await ceremonies.registrationOptions(
            try PasskeyCeremonies.RegisterOptionsBody(await request.smallJSONObject()), subject: context.identity, client: .web)
        return WithCookies(body: RawJSON(data: options), cookies: [cookies.make(CookieRules.registration, state)])
    }

    @Sendable func registerVerify(
        _ request: Request, context: PasskeyRequestContext
    ) async throws -> WithCookies<PasskeyCeremonies.Registered> {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let finished = try await ceremonies.finishRegistration(
            body: body, state: context.cookies(of: request).registration, client: .web, subject: context.identity, logger: context.logger)
        var cookieList = [cookies.expired(CookieRules.registration)]
        if case .session(let token)? = finished.signIn { cookieList.append(try await sessionCookie(token, replacing: context.identity)) }
        return WithCookies(body: finished.registered, cookies: cookieList)
    }

    @Sendable func loginOptions(_ request: Request, context: PasskeyRequestContext) async throws -> WithCookies<RawJSON> {
        let (options, state) = try await ceremonies.authenticationOptions(
            try PasskeyCeremonies.LoginOptionsBody(await request.smallJSONObject()), client: .web)
        return WithCookies(body: RawJSON(data: options), cookies: [cookies.make(CookieRules.login, state)])
    }

    @Sendable func loginVerify(_ request: Request, context: PasskeyRequestContext) async throws -> WithCookies<PasskeyCeremonies.LoggedIn> {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let (loggedIn, token) = try await ceremonies.finishWebLogin(
            body: body, state: context.cookies(of: request).login, logger: context.logger)
        return WithCookies(
            body: loggedIn, cookies: [cookies.expired(CookieRules.login), try await sessionCookie(token, replacing: context.identity)])
    }

    /// The same login for a client that keeps tokens instead of a session (an app's web view,
    /// a hybrid app): the RFC 6749 §5.1 token response, and no session cookie.
    @Sendable func tokenLoginVerify(_ request: Request, context: PasskeyRequestContext) async throws -> WithCookies<TokenResponse> {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let tokens = try await ceremonies.finishTokenLogin(
            body: body, state: context.cookies(of: request).login, client: .web, appKey: context.appKey,
            logger: context.logger)
        return WithCookies(body: tokens, cookies: [cookies.expired(CookieRules.login)])
    }

    /// The cookie of a session a ceremony's write started. The session the request came with
    /// (if any) ends, so signing in again does not pile up sessions.
    func sessionCookie(_ token: [UInt8], replacing subject: Subject?) async throws -> CookieRules.SetCookie {
        try await ceremonies.endSession(of: subject)
        return cookies.session(token)
    }
}
