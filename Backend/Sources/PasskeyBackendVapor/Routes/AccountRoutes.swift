import Foundation
import PasskeyBackend
import Vapor

/// The signed-in account: `GET /api/me` (one page of its passkeys: `?after=<id>&limit=`),
/// `PATCH /api/passkeys/:id` (`{"name": …}`), `DELETE /api/passkeys/:id`, `POST /api/logout` and
/// `POST /api/logout-all`, for the subject ``PasskeyAuthenticator`` found.
struct AccountRoutes: Sendable {
    let account: AccountFlows
    let cookies: CookieRules

    func addRoutes(to group: any RoutesBuilder) {
        group.get("me") { request in
            try await Answer.json(
                account.account(
                    of: try request.requireSubject(), after: request.query[String.self, at: "after"],
                    limit: request.query[String.self, at: "limit"]))
        }
        group.on(.DELETE, "passkeys", ":id", body: .stream) { request in
            let deleted = try await account.deletePasskey(
                request.parameters.get("id") ?? "", of: try request.requireSubject(), logger: request.logger)
            return try Answer.json(deleted).setting(deleted.signedOut ? [cookies.expired(CookieRules.session)] : [])
        }
        group.on(.PATCH, "passkeys", ":id", body: .stream) { request in
            try await Answer.json(
                account.renamePasskey(
                    request.parameters.get("id") ?? "", body: try await request.smallJSONObject(), of: try request.requireSubject()))
        }
        group.post("logout") { request in try await logout(request, everywhere: false) }
        group.post("logout-all") { request in try await logout(request, everywhere: true) }
    }

    /// Ends this session (a cookie's row, or a bearer token's refresh-token family), or
    /// (`everywhere`) every session and token family of its account.
    func logout(_ request: Request, everywhere: Bool) async throws -> Response {
        _ = try await request.collectJSON(limit: Limits.optionsBody)  // JSON only: no cross-site form can post it
        let ended = try await account.logout(request.auth.get(Subject.self), everywhere: everywhere)
        return try Answer.json(ended).setting([cookies.expired(CookieRules.session)])
    }
}
