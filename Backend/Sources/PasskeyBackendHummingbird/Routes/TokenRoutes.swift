import Foundation
import Hummingbird
import PasskeyBackend

/// `POST /oauth/token` and `POST /oauth/revoke` (the core's `TokenService` endpoints):
/// the body, at most 4 KiB, is read here and handed on with its content type.
struct TokenRoutes: Sendable {
    let tokens: TokenService

    func addRoutes(to group: RouterGroup<PasskeyRequestContext>, guards: AppIntegrityGuards) {
        group.post("token", guardedBy: guards("/oauth/token")) { request, context in
            try await tokens.tokenEndpoint(
                contentType: request.headers[.contentType], body: try await Self.body(request),
                appKey: context.appKey, now: Date())
        }
        group.post("revoke") { request, _ in
            try await tokens.revocationEndpoint(contentType: request.headers[.contentType], body: try await Self.body(request), now: Date())
            var response = Response(status: .ok)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// At most 4 KiB; a body too large or cut short is `invalid_request` (RFC 6749 §5.2).
    static func body(_ request: Request) async throws -> Data {
        do { return try await request.collectBody(limit: Limits.optionsBody) } catch let error as AppError {
            throw OAuthError.invalidRequest(error.message)
        }
    }
}
