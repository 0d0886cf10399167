import Foundation
import PasskeyBackend
import Vapor

/// The web page's ceremonies: `/api/register/options|verify`, `/api/login/options|verify` and
/// `/api/token/login/verify`. The ceremony's state travels in a signed cookie (one per ceremony
/// kind); a successful login or first registration starts a session, whose cookie replaces the
/// one the request came with.
struct WebCeremonyRoutes: Sendable {
    let ceremonies: PasskeyCeremonies
    let cookies: CookieRules

    func addRoutes(to group: any RoutesBuilder, guards: (String) -> AppIntegrityMiddleware?) {
        group.post("register", "options", use: registerOptions)
        group.post("register", "verify", guardedBy: guards("/api/register/verify"), use: registerVerify)
        group.post("login", "options", use: loginOptions)
        group.post("login", "verify", use: loginVerify)
        group.post("token", "login", "verify", guardedBy: guards("/api/token/login/verify"), use: tokenLoginVerify)
    }

    @Sendable func registerOptions(_ request: Request) async throws -> Response {
        let (options, state) = try await ceremonies.registrationOptions(
            try PasskeyCeremonies.RegisterOptionsBody(await request.smallJSONObject()), subject: request.auth.get(Subject.self),
            client: .web)
        return Answer.json(options).setting([cookies.make(CookieRules.registration, state)])
    }

    @Sendable func registerVerify(_ request: Request) async throws -> Response {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let subject = request.auth.get(Subject.self)
        let finished = try await ceremonies.finishRegistration(
            body: body, state: request.passkeyCookies.registration, client: .web, subject: subject, logger: request.logger)
        var cookieList = [cookies.expired(CookieRules.registration)]
        if case .session(let token)? = finished.signIn { cookieList.append(try await sessionCookie(token, replacing: subject)) }
        return try Answer.json(finished.registered).setting(cookieList)
    }

    @Sendable func loginOptions(_ request: Request) async throws -> Response {
        let (options, state) = try await ceremonies.authenticationOptions(
            try PasskeyCeremonies.LoginOptionsBody(await request.smallJSONObject()), client: .web)
        return Answer.json(options).setting([cookies.make(CookieRules.login, state)])
    }

    @Sendable func loginVerify(_ request: Request) async throws -> Response {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let (loggedIn, token) = try await ceremonies.finishWebLogin(
            body: body, state: request.passkeyCookies.login, logger: request.logger)
        let session = try await sessionCookie(token, replacing: request.auth.get(Subject.self))
        return try Answer.json(loggedIn).setting([cookies.expired(CookieRules.login), session])
    }

    /// The same login for a client that keeps tokens instead of a session: the RFC 6749 §5.1
    /// token response, and no session cookie.
    @Sendable func tokenLoginVerify(_ request: Request) async throws -> Response {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        let tokens = try await ceremonies.finishTokenLogin(
            body: body, state: request.passkeyCookies.login, client: .web, appKey: request.appKey,
            logger: request.logger)
        return try Answer.tokens(tokens).setting([cookies.expired(CookieRules.login)])
    }

    /// The cookie of a session a ceremony's write started. The session the request came with
    /// (if any) ends, so signing in again does not pile up sessions.
    func sessionCookie(_ token: [UInt8], replacing subject: Subject?) async throws -> CookieRules.SetCookie {
        try await ceremonies.endSession(of: subject)
        return cookies.session(token)
    }
}
