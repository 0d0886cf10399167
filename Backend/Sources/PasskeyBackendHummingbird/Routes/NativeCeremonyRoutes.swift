import Foundation
import Hummingbird
import NIOCore
import PasskeyBackend
import WebAuthnRP

/// The ceremonies of a native app (iOS AuthenticationServices, Android Credential Manager), with
/// no cookie: `POST /native/register/options|finish` and `POST /native/login/options|finish`.
///
/// Options answer `{"options": <the options JSON>, "state": "<token>"}`; the app sends the state
/// back with its credential, `{"state": "<token>", "credential": <body>}`. The state is the
/// ceremony's own (the stored challenge to consume, or the sealed challenge), the username and
/// user handle the options were made for, and an expiry, signed with SESSION_KEY: any node can
/// finish it, single use is the challenge's (consumed once, or marked used across the nodes), and
/// a registration binds the account to the offered user handle through it, never through a map
/// in a node's memory. The credential is the app's body (AuthenticationServices names, standard
/// base64: the Native apps article) or browser JSON (Credential Manager's). A finish answers the
/// RFC 6749 token response.
struct NativeCeremonyRoutes: Sendable {
    let ceremonies: PasskeyCeremonies

    /// Every finish is guarded when App Attest or Android key attestation is on: a finish issues tokens or adds a passkey,
    /// so an app's request carries an assertion (bound to a challenge, or to the bearer token's
    /// `jti`) and the token family is bound to its key.
    func addRoutes(to group: RouterGroup<PasskeyRequestContext>, guards: AppIntegrityGuards) {
        group.post("register/options", use: registerOptions)
        group.post("register/finish", guardedBy: guards("/native/register/finish"), use: registerFinish)
        group.post("login/options", use: loginOptions)
        group.post("login/finish", guardedBy: guards("/native/login/finish"), use: loginFinish)
    }

    @Sendable func registerOptions(_ request: Request, context: PasskeyRequestContext) async throws -> Response {
        let body = try PasskeyCeremonies.RegisterOptionsBody(await request.smallJSONObject())
        let (options, state) = try await ceremonies.registrationOptions(body, subject: context.identity, client: .native)
        return Self.optionsAnswer(options, state: state)
    }

    /// A new account's first passkey answers its first tokens; one more passkey of a signed-in
    /// (bearer) account answers what the page's registration answers.
    @Sendable func registerFinish(_ request: Request, context: PasskeyRequestContext) async throws -> Response {
        let (state, credential) = try await Self.finishBody(request)
        let finished = try await ceremonies.finishRegistration(
            body: credential, state: state, client: .native, subject: context.identity, appKey: context.appKey,
            logger: context.logger)
        if case .tokens(let tokens)? = finished.signIn { return try tokens.response(from: request, context: context) }
        return try finished.registered.response(from: request, context: context)
    }

    @Sendable func loginOptions(_ request: Request, context: PasskeyRequestContext) async throws -> Response {
        let (options, state) = try await ceremonies.authenticationOptions(
            try PasskeyCeremonies.LoginOptionsBody(await request.smallJSONObject()), client: .native)
        return Self.optionsAnswer(options, state: state)
    }

    @Sendable func loginFinish(_ request: Request, context: PasskeyRequestContext) async throws -> TokenResponse {
        let (state, credential) = try await Self.finishBody(request)
        return try await ceremonies.finishTokenLogin(
            body: credential, state: state, client: .native, appKey: context.appKey, logger: context.logger)
    }

    /// An app's options and state (the core's `nativeOptionsAnswer`).
    static func optionsAnswer(_ options: Data, state: String) -> Response {
        let body = PasskeyCeremonies.nativeOptionsAnswer(options, state: state)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The finish body, at most 64 KiB, read by the core's rule (``JSONBody/finish(_:)``).
    package static func finishBody(_ request: Request) async throws -> (state: String, credential: Data) {
        try JSONBody.finish(try await request.collectJSON(limit: Limits.responseBody))
    }
}
