import Foundation
import PasskeyBackend
import Vapor

/// The ceremonies of a native app, with no cookie: `POST /native/register/options|finish` and
/// `POST /native/login/options|finish`. Options answer `{"options": …, "state": "…"}`; the app
/// sends the state back with its credential (``JSONBody/finish(_:)``); a finish answers the
/// RFC 6749 token response. Every finish is guarded when App Attest or Android key attestation is on.
struct NativeCeremonyRoutes: Sendable {
    let ceremonies: PasskeyCeremonies

    func addRoutes(to group: any RoutesBuilder, guards: (String) -> AppIntegrityMiddleware?) {
        group.post("register", "options", use: registerOptions)
        group.post("register", "finish", guardedBy: guards("/native/register/finish"), use: registerFinish)
        group.post("login", "options", use: loginOptions)
        group.post("login", "finish", guardedBy: guards("/native/login/finish"), use: loginFinish)
    }

    @Sendable func registerOptions(_ request: Request) async throws -> Response {
        let body = try PasskeyCeremonies.RegisterOptionsBody(await request.smallJSONObject())
        let (options, state) = try await ceremonies.registrationOptions(body, subject: request.auth.get(Subject.self), client: .native)
        return Answer.options(options, state: state)
    }

    /// A new account's first passkey answers its first tokens; one more passkey of a signed-in
    /// (bearer) account answers what the page's registration answers.
    @Sendable func registerFinish(_ request: Request) async throws -> Response {
        let (state, credential) = try JSONBody.finish(try await request.collectJSON(limit: Limits.responseBody))
        let finished = try await ceremonies.finishRegistration(
            body: credential, state: state, client: .native, subject: request.auth.get(Subject.self),
            appKey: request.appKey, logger: request.logger)
        if case .tokens(let tokens)? = finished.signIn { return try Answer.tokens(tokens) }
        return try Answer.json(finished.registered)
    }

    @Sendable func loginOptions(_ request: Request) async throws -> Response {
        let (options, state) = try await ceremonies.authenticationOptions(
            try PasskeyCeremonies.LoginOptionsBody(await request.smallJSONObject()), client: .native)
        return Answer.options(options, state: state)
    }

    @Sendable func loginFinish(_ request: Request) async throws -> Response {
        let (state, credential) = try JSONBody.finish(try await request.collectJSON(limit: Limits.responseBody))
        return try Answer.tokens(
            try await ceremonies.finishTokenLogin(
                body: credential, state: state, client: .native, appKey: request.appKey, logger: request.logger))
    }
}
