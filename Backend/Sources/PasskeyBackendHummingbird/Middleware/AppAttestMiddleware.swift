import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PasskeyBackend
import WebAuthnRP

/// Requires an App Attest assertion over the request on the routes that matter to an app
/// (token refresh, adding a passkey with a bearer token), when `APP_ATTEST` is `required`;
/// when it is `optional`, a request without the headers passes and one with them must verify.
///
/// The app sends `App-Attest-Key-Id` (its key id, base64) and `App-Attest-Assertion` (the
/// assertion, base64), and, when it binds a challenge, `App-Attest-Challenge` (from
/// `POST /appattest/challenge`); without that header the binding is the bearer access token's
/// `jti`. The assertion signs ``AppAttestRequest/clientData(method:path:body:binding:)``: method,
/// path, SHA-256 of the body and the binding, which the server rebuilds from what it received.
/// The key's counter advances by the store's compare-and-swap, so an assertion counts once on
/// any node. A refusal is 401 (403 for a key of the other environment or another app) with
/// `{"error": …}` and an `App-Attest-Error` header naming the reason, and the route never runs.
/// On the passkey routes only an app's bearer-token requests are asked (``bearerOnly``).
///
/// It is the guarded route's own middleware (``RouterGroup/post(_:guardedBy:use:)``), never a
/// router-wide one comparing paths: the router's match decides, so every spelling of the path
/// that reaches the handler (`/oauth/token/`, `//oauth/token`, a query) is asked too, and the
/// path the client data binds is the route's canonical path as the router names it
/// (`context.endpointPath`), not the spelling received.
struct AppAttestMiddleware: RouterMiddleware {
    typealias Context = PasskeyRequestContext
    let appAttest: AppAttest
    /// Only requests signed in with a bearer access token (an app's): a browser's cookie
    /// session, or nobody signed in (a new account's first passkey), is not asked.
    var bearerOnly = false

    static let keyIdHeader = HTTPField.Name(AppAttest.Header.keyId)!
    static let assertionHeader = HTTPField.Name(AppAttest.Header.assertion)!
    static let challengeHeader = HTTPField.Name(AppAttest.Header.challenge)!
    static let errorHeader = HTTPField.Name(AppAttest.Header.error)!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The route as the router matched it: one canonical path whatever the spelling, so an
        // assertion signed for one route verifies on no other.
        guard let route = context.endpointPath else {
            throw AppError(.internalServerError, "Something went wrong.")
        }
        guard AppAttest.asks(context.identity, bearerOnly: bearerOnly) else { return try await next(request, context) }
        let keyId = request.headers[Self.keyIdHeader], assertion = request.headers[Self.assertionHeader]
        let challenge = request.headers[Self.challengeHeader]
        var request = request
        var body = Data()
        if keyId != nil || assertion != nil {
            // The body is read here for its hash and handed on, whole, to the route.
            body = try await request.collectBody(limit: Limits.responseBody)
            request.body = RequestBody(buffer: ByteBuffer(bytes: body))
        }
        var context = context
        context.appAttestKeyId = try await appAttest.verifyRequest(
            keyId: keyId, assertion: assertion, challenge: challenge, method: request.method.rawValue, path: route,
            body: body, subject: context.identity, logger: context.logger)
        return try await next(request, context)
    }
}

/// The guard of each route the core's ``AppAttestCoverage`` names, as that list says it asks;
/// none when App Attest is off or the route is not on the list.
struct AppAttestGuards: Sendable {
    let appAttest: AppAttest?

    func callAsFunction(_ path: String) -> AppAttestMiddleware? {
        guard let appAttest, let rule = AppAttestCoverage.rule(path) else { return nil }
        return AppAttestMiddleware(appAttest: appAttest, bearerOnly: rule.bearerOnly)
    }
}

extension RouterGroup<PasskeyRequestContext> {
    /// `POST path`, behind `appAttest` when there is one. The middleware is the route's own (a
    /// group of one route), so the router's match decides when it runs: for every request the
    /// router hands to this handler, and for no other.
    @discardableResult
    func post(
        _ path: RouterPath, guardedBy appAttest: AppAttestMiddleware?,
        use handler: @Sendable @escaping (Request, PasskeyRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        if let appAttest {
            group().add(middleware: appAttest).post(path, use: handler)
        } else {
            post(path, use: handler)
        }
        return self
    }
}
