import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
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
    typealias Context = AppRequestContext
    let appAttest: AppAttest
    /// Only requests signed in with a bearer access token (an app's): a browser's cookie
    /// session, or nobody signed in (a new account's first passkey), is not asked.
    var bearerOnly = false

    static let keyIdHeader = HTTPField.Name("App-Attest-Key-Id")!
    static let assertionHeader = HTTPField.Name("App-Attest-Assertion")!
    static let challengeHeader = HTTPField.Name("App-Attest-Challenge")!
    static let errorHeader = HTTPField.Name("App-Attest-Error")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The route as the router matched it: one canonical path whatever the spelling, so an
        // assertion signed for one route verifies on no other.
        guard let route = context.endpointPath else {
            throw AppError(.internalServerError, "Something went wrong.")
        }
        if bearerOnly {
            guard case .accessToken = context.identity?.credential else { return try await next(request, context) }
        }
        let keyText = request.headers[Self.keyIdHeader], assertionText = request.headers[Self.assertionHeader]
        if keyText == nil, assertionText == nil {
            guard appAttest.settings.mode == .required else { return try await next(request, context) }
            throw Self.refusal(
                .unauthorized, "missing",
                "This request needs an App Attest assertion (App-Attest-Key-Id and App-Attest-Assertion).")
        }
        guard let keyId = keyText.flatMap(AppAttestController.base64), keyId.count == 32,
            let assertion = assertionText.flatMap(AppAttestController.base64), !assertion.isEmpty
        else {
            throw Self.refusal(
                .unauthorized, "malformed",
                "App-Attest-Key-Id (32 bytes) and App-Attest-Assertion must both be present, in base64.")
        }
        let binding: String
        let challenge = request.headers[Self.challengeHeader]
        if let challenge {
            binding = "challenge=" + challenge
        } else if case .accessToken(let jti, _) = context.identity?.credential {
            binding = "jti=" + jti
        } else {
            throw Self.refusal(
                .unauthorized, "challenge",
                "Without a bearer access token the assertion must bind a challenge (App-Attest-Challenge).")
        }
        // The body is read here for its hash and handed on, whole, to the route.
        var request = request
        let body = try await request.collectBody(limit: Limits.responseBody)
        request.body = RequestBody(buffer: ByteBuffer(bytes: body))
        let clientData = AppAttestRequest.clientData(
            method: request.method.rawValue, path: route, body: body, binding: binding)
        do {
            // With a challenge the library uses it up first (single use, expiry, App Attest's
            // own kind) and finds it in the client data; the jti binding is the rebuilt text's.
            _ = try await appAttest.service.verifyAssertion(
                keyId: keyId, assertion: assertion, clientData: clientData, challenge: challenge, now: Date())
        } catch let error as WebAuthnError {
            context.logger.notice("App Attest assertion refused", metadata: ["detail": "\(error)"])
            throw Self.refusal(for: error)
        }
        return try await next(request, context)
    }

    static func refusal(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> AppError {
        var error = AppError(status, message)
        error.headers[errorHeader] = code
        return error
    }

    /// The library's verdict as the app sees it.
    static func refusal(for error: WebAuthnError) -> AppError {
        switch error.category {
        case .challenge: return refusal(.unauthorized, "challenge", "The App Attest challenge is unknown, expired or already used.")
        case .unknownCredential: return refusal(.unauthorized, "unknown-key", "No attested App Attest key has this key id.")
        case .signCount:
            return refusal(.unauthorized, "replayed", "The App Attest assertion was replayed (its counter is not above the last one).")
        case .signature:
            return refusal(.unauthorized, "signature", "The App Attest assertion's signature does not verify over this request.")
        case .attestation:
            return refusal(.forbidden, "environment", "The App Attest key was attested in another environment than this server's.")
        case .rpIdHash: return refusal(.forbidden, "app", "The App Attest assertion is for another app.")
        default: return refusal(.unauthorized, "malformed", "The App Attest assertion could not be read.")
        }
    }
}

extension RouterGroup<AppRequestContext> {
    /// `POST path`, behind `appAttest` when there is one. The middleware is the route's own (a
    /// group of one route), so the router's match decides when it runs: for every request the
    /// router hands to this handler, and for no other.
    @discardableResult
    func post(
        _ path: RouterPath, guardedBy appAttest: AppAttestMiddleware?,
        use handler: @Sendable @escaping (Request, AppRequestContext) async throws -> some ResponseGenerator
    ) -> Self {
        if let appAttest {
            group().add(middleware: appAttest).post(path, use: handler)
        } else {
            post(path, use: handler)
        }
        return self
    }
}
