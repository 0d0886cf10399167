import Foundation
import Hummingbird
import PasskeyBackend
import WebAuthnRP

/// The signed-in account: `GET /api/me` (one page of its passkeys: `?after=<id>&limit=`),
/// `PATCH /api/passkeys/:id` (`{"name": …}`), `DELETE /api/passkeys/:id`, `POST /api/logout` and `POST /api/logout-all`. The subject comes
/// from ``PasskeyAuthenticator``: the web page's session cookie or an app's bearer token.
struct AccountRoutes: Sendable {
    let account: AccountFlows
    let cookies: CookieRules

    func addRoutes(to group: RouterGroup<PasskeyRequestContext>) {
        group.get("me") { request, context in
            let query = request.uri.queryParameters
            return try await account.account(
                of: try context.requireSubject(), after: query.get("after"), limit: query.get("limit"))
        }
        group.delete("passkeys/:id") { _, context in
            let deleted = try await account.deletePasskey(
                context.parameters.get("id") ?? "", of: try context.requireSubject(), logger: context.logger)
            return WithCookies(body: deleted, cookies: deleted.signedOut ? [cookies.expired(CookieRules.session)] : [])
        }
        group.patch("passkeys/:id") { request, context in
            try await account.renamePasskey(
                context.parameters.get("id") ?? "", body: try await request.smallJSONObject(), of: try context.requireSubject())
        }
        group.post("logout") { request, context in try await logout(request, context: context, everywhere: false) }
        group.post("logout-all") { request, context in try await logout(request, context: context, everywhere: true) }
    }

    /// Ends this session (a cookie's row, or a bearer token's refresh-token family), or
    /// (`everywhere`) every session and token family of its account.
    func logout(
        _ request: Request, context: PasskeyRequestContext, everywhere: Bool
    ) async throws -> WithCookies<AccountFlows.LoggedOut> {
        _ = try await request.collectJSON(limit: Limits.optionsBody)  // JSON only: no cross-site form can post it
        let ended = try await account.logout(context.identity, everywhere: everywhere)
        return WithCookies(body: ended, cookies: [cookies.expired(CookieRules.session)])
    }
}
