import Foundation
import PasskeyBackend
import Vapor

/// `POST /oauth/token` and `POST /oauth/revoke` (the core's `TokenService` endpoints): the body,
/// at most 4 KiB, is read here and handed on with its content type.
struct TokenRoutes: Sendable {
    let tokens: TokenService

    func addRoutes(to group: any RoutesBuilder, guards: (String) -> AppIntegrityMiddleware?) {
        group.post("token", guardedBy: guards("/oauth/token")) { request in
            try Answer.tokens(
                try await tokens.tokenEndpoint(
                    contentType: request.headers.first(name: .contentType), body: try await Self.body(request),
                    appKey: request.appKey, now: Date()))
        }
        group.post("revoke") { request in
            try await tokens.revocationEndpoint(
                contentType: request.headers.first(name: .contentType), body: try await Self.body(request), now: Date())
            return Response(status: .ok, headers: ["Cache-Control": "no-store"])
        }
    }

    /// At most 4 KiB; a body too large or cut short is `invalid_request` (RFC 6749 §5.2).
    static func body(_ request: Request) async throws -> Data {
        do { return try await request.collectBody(limit: Limits.optionsBody) } catch let error as AppError {
            throw OAuthError.invalidRequest(error.message)
        }
    }
}
