import Foundation
import PasskeyBackend
import Vapor
import WebAuthnRP

/// The app-integrity guard of one route the core's ``AppIntegrityCoverage`` names (token
/// issuance and refresh, an app adding a passkey with its bearer token), as the Hummingbird
/// adapter's: an iOS app sends `App-Attest-Key-Id`, `App-Attest-Assertion` and, when it binds a
/// challenge, `App-Attest-Challenge`; an Android app `Android-Key-Id`, `Android-Key-Counter`,
/// `Android-Key-Signature` and, when it binds a challenge, `Android-Key-Challenge`. Either
/// assertion signs the method, the route's canonical path, SHA-256 of the body and the binding.
/// A refusal is 401 (App Attest: 403 for a key of the other environment or another app) with
/// `{"error": …}` and an `App-Attest-Error` or `Android-Key-Error` header, and the route never runs.
///
/// It is the guarded route's own middleware: the router's match decides, so every spelling of
/// the path that reaches the handler is asked too, and the path the assertion binds is the
/// canonical one (`path`), not the spelling received.
struct AppIntegrityMiddleware: AsyncMiddleware {
    let appIntegrity: AppIntegrity
    let path: String
    let rule: AppIntegrityCoverage.Rule

    /// The guard of the route at `path`; nil when every platform is off or the route is not on the list.
    static func guarding(_ path: String, appIntegrity: AppIntegrity?) -> AppIntegrityMiddleware? {
        guard let appIntegrity, let rule = AppIntegrityCoverage.rule(path) else { return nil }
        return AppIntegrityMiddleware(appIntegrity: appIntegrity, path: path, rule: rule)
    }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let subject = request.auth.get(Subject.self)
        guard AppIntegrity.asks(subject, bearerOnly: rule.bearerOnly) else { return try await next.respond(to: request) }
        let headers = request.headers
        let header = { (name: String) in headers.first(name: name) }
        var body = Data()
        // The body is read here for its hash; it stays collected on the request for the route.
        if appIntegrity.carriesAssertion(header: header) { body = try await request.collectBody(limit: Limits.responseBody) }
        request.appKey = try await appIntegrity.verifyRequest(
            header: header, method: request.method.rawValue, path: path, body: body, subject: subject, logger: request.logger)
        return try await next.respond(to: request)
    }
}
