import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PasskeyBackend
import WebAuthnRP

/// Requires an app's assertion over the request on the routes that matter to an app (token
/// issuance and refresh, adding a passkey with a bearer token), when App Attest or Android key
/// attestation is `required`; when it is `optional`, a request without the headers passes and
/// one with them must verify. The platform is the one whose headers the request carries
/// (``AppIntegrity/verifyRequest(header:method:path:body:subject:logger:)``).
///
/// An iOS app sends `App-Attest-Key-Id` (its key id, base64) and `App-Attest-Assertion` (the
/// assertion, base64), and, when it binds a challenge, `App-Attest-Challenge` (from
/// `POST /appattest/challenge`); the assertion signs ``AppAttestRequest/clientData(method:path:body:binding:)``.
/// An Android app sends `Android-Key-Id`, `Android-Key-Counter`, `Android-Key-Signature` and,
/// when it binds a challenge, `Android-Key-Challenge` (from `POST /android/challenge`); the
/// signature is over the library's layout (the article "Android app integrity"). Without a
/// challenge the binding is the bearer access token's `jti`. Both sign the method, the path and
/// SHA-256 of the body, which the server rebuilds from what it received. The key's counter
/// advances by the store's compare-and-swap, so an assertion counts once on any node. A refusal
/// is 401 (App Attest: 403 for a key of the other environment or another app) with
/// `{"error": …}` and an `App-Attest-Error` or `Android-Key-Error` header naming the reason, and
/// the route never runs. On the passkey routes only an app's bearer-token requests are asked
/// (``bearerOnly``).
///
/// It is the guarded route's own middleware (``RouterGroup/post(_:guardedBy:use:)``), never a
/// router-wide one comparing paths: the router's match decides, so every spelling of the path
/// that reaches the handler (`/oauth/token/`, `//oauth/token`, a query) is asked too, and the
/// path the assertion binds is the route's canonical path as the router names it
/// (`context.endpointPath`), not the spelling received.
struct AppIntegrityMiddleware: RouterMiddleware {
    typealias Context = PasskeyRequestContext
    let appIntegrity: AppIntegrity
    /// Only requests signed in with a bearer access token (an app's): a browser's cookie
    /// session, or nobody signed in (a new account's first passkey), is not asked.
    var bearerOnly = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The route as the router matched it: one canonical path whatever the spelling, so an
        // assertion signed for one route verifies on no other.
        guard let route = context.endpointPath else {
            throw AppError(.internalServerError, "Something went wrong.")
        }
        guard AppIntegrity.asks(context.identity, bearerOnly: bearerOnly) else { return try await next(request, context) }
        let headers = request.headers
        let header = { (name: String) in HTTPField.Name(name).flatMap { headers[$0] } }
        var request = request
        var body = Data()
        if appIntegrity.carriesAssertion(header: header) {
            // The body is read here for its hash and handed on, whole, to the route.
            body = try await request.collectBody(limit: Limits.responseBody)
            request.body = RequestBody(buffer: ByteBuffer(bytes: body))
        }
        var context = context
        context.appKey = try await appIntegrity.verifyRequest(
            header: header, method: request.method.rawValue, path: route, body: body, subject: context.identity,
            logger: context.logger)
        return try await next(request, context)
    }
}

/// The guard of each route the core's ``AppIntegrityCoverage`` names, as that list says it asks;
/// none when every platform is off or the route is not on the list.
struct AppIntegrityGuards: Sendable {
    let appIntegrity: AppIntegrity?

    func callAsFunction(_ path: String) -> AppIntegrityMiddleware? {
        guard let appIntegrity, let rule = AppIntegrityCoverage.rule(path) else { return nil }
        return AppIntegrityMiddleware(appIntegrity: appIntegrity, bearerOnly: rule.bearerOnly)
    }
}

extension RouterGroup<PasskeyRequestContext> {
    /// `POST path`, behind `integrity` when there is one. The middleware is the route's own (a
    /// group of one route), so the router's match decides when it runs: for every request the
    /// router hands to this handler, and for no other.
    @discardableResult
    func post(
        _ path: RouterPath, guardedBy integrity: AppIntegrityMiddleware?,
        use handler: @Sendable @escaping (Request, PasskeyRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        if let integrity {
            group().add(middleware: integrity).post(path, use: handler)
        } else {
            post(path, use: handler)
        }
        return self
    }
}
