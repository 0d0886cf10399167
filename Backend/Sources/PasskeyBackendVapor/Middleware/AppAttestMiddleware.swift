import Foundation
import PasskeyBackend
import Vapor
import WebAuthnRP

/// The App Attest guard of one route the core's ``AppAttestCoverage`` names (token issuance and
/// refresh, an app adding a passkey with its bearer token), as the Hummingbird adapter's: the
/// app sends `App-Attest-Key-Id`, `App-Attest-Assertion` and, when it binds a challenge,
/// `App-Attest-Challenge`; the assertion signs the method, the route's canonical path, SHA-256
/// of the body and the binding. A refusal is 401 (403 for a key of the other environment or
/// another app) with `{"error": …}` and an `App-Attest-Error` header, and the route never runs.
///
/// It is the guarded route's own middleware: the router's match decides, so every spelling of
/// the path that reaches the handler is asked too, and the path the client data binds is the
/// canonical one (`path`), not the spelling received.
struct AppAttestMiddleware: AsyncMiddleware {
    let appAttest: AppAttest
    let path: String
    let rule: AppAttestCoverage.Rule

    /// The guard of the route at `path`; nil when App Attest is off or the route is not on the list.
    static func guarding(_ path: String, appAttest: AppAttest?) -> AppAttestMiddleware? {
        guard let appAttest, let rule = AppAttestCoverage.rule(path) else { return nil }
        return AppAttestMiddleware(appAttest: appAttest, path: path, rule: rule)
    }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let subject = request.auth.get(Subject.self)
        guard AppAttest.asks(subject, bearerOnly: rule.bearerOnly) else { return try await next.respond(to: request) }
        let keyId = request.headers.first(name: AppAttest.Header.keyId)
        let assertion = request.headers.first(name: AppAttest.Header.assertion)
        var body = Data()
        // The body is read here for its hash; it stays collected on the request for the route.
        if keyId != nil || assertion != nil { body = try await request.collectBody(limit: Limits.responseBody) }
        request.appAttestKeyId = try await appAttest.verifyRequest(
            keyId: keyId, assertion: assertion, challenge: request.headers.first(name: AppAttest.Header.challenge),
            method: request.method.rawValue, path: path, body: body, subject: subject, logger: request.logger)
        return try await next.respond(to: request)
    }
}
