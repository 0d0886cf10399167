import Foundation
import Hummingbird
import Logging
import WebAuthnRP

/// The signed-in account: `GET /api/me` (one page of its passkeys), `DELETE /api/passkeys/:id`,
/// `POST /api/logout` and `POST /api/logout-all`. The subject comes from
/// ``AuthenticationMiddleware``: the web page's session cookie or an app's bearer token.
struct AccountController: Sendable {
    let config: Config
    let repositories: Repositories
    let cookies: CookieFactory

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("me", use: me)
        group.delete("passkeys/:id", use: deletePasskey)
        group.post("logout") { request, context in try await logout(request, context: context, everywhere: false) }
        group.post("logout-all") { request, context in try await logout(request, context: context, everywhere: true) }
    }

    struct Passkey: Encodable {
        var id: String
        var aaguid: String
        /// The passkey provider's name for the AAGUID (the library's list), when it names one: the
        /// authenticator's claim, to show, never to trust.
        var provider: String?
        var signCount: Int
        var backupEligible: Bool
        var backupState: Bool
        var transports: [String]
        var createdAt: String
        /// Empty until the passkey is used to sign in.
        var lastUsedAt: String
        /// The passkey that signed this subject in.
        var current: Bool
        /// credProps `rk` and PRF enabled, when the client said (PasskeyExtensions).
        var discoverable: Bool?
        var prfEnabled: Bool?
    }

    struct Account: ResponseEncodable {
        var username: String
        var passkeys: [Passkey]
        var maxPasskeys: Int
        var signedInAt: String
        /// The id to pass as `after` for the next page, when more follow.
        var next: String?
    }

    /// The account and one page of its passkeys: `?after=<id>` continues after that passkey,
    /// `?limit=` (1 to the per-account cap, default 10); `next` is there when more follow.
    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Account {
        let subject = try context.requireSubject()
        guard let username = try await repositories.accounts.username(userHandle: subject.userHandle) else {
            throw AppError.unauthorized
        }
        let query = request.uri.queryParameters
        var after: [UInt8]? = nil
        if let text = query.get("after") {
            guard let bytes = try? Base64URLBytes(base64URL: text, member: "after").bytes, (1...1023).contains(bytes.count) else {
                throw AppError(.badRequest, "Unknown page.")
            }
            after = bytes
        }
        var limit = Limits.pageSize
        if let text = query.get("limit") {
            guard let value = Int(text), (1...config.maxPasskeysPerAccount).contains(value) else {
                throw AppError(.badRequest, "A page holds 1 to \(config.maxPasskeysPerAccount) passkeys.")
            }
            limit = value
        }
        let page = try await repositories.credentials.page(userHandle: subject.userHandle, after: after, limit: limit + 1)
        let iso = ISO8601DateFormatter()
        let passkeys = page.prefix(limit).map { listed in
            let record = listed.record
            return Passkey(
                id: Base64URLBytes(record.id).base64URL, aaguid: record.aaguid,
                provider: PasskeyProviders.snapshot.name(for: record), signCount: Int(record.signCount),
                backupEligible: record.backupEligible, backupState: record.backupState, transports: record.transports,
                createdAt: iso.string(from: listed.usage.createdAt),
                lastUsedAt: listed.usage.lastUsedAt.map { iso.string(from: $0) } ?? "",
                current: record.id == subject.credentialId,
                discoverable: record.extensions.discoverable, prfEnabled: record.extensions.prfEnabled)
        }
        let next = page.count > limit ? page.prefix(limit).last.map { Base64URLBytes($0.record.id).base64URL } : nil
        return Account(
            username: username, passkeys: passkeys, maxPasskeys: config.maxPasskeysPerAccount,
            signedInAt: iso.string(from: subject.signedInAt), next: next)
    }

    struct Deleted: ResponseEncodable {
        var ok = true
        /// The passkey that signed this subject in was deleted: it is signed out.
        var signedOut: Bool
    }

    @Sendable func deletePasskey(_ request: Request, context: AppRequestContext) async throws -> WithCookies<Deleted> {
        let subject = try context.requireSubject()
        try requireFreshSignIn(subject, now: Date(), freshSignIn: config.freshSignIn)
        let id = context.parameters.get("id") ?? ""
        guard let credentialId = try? Base64URLBytes(base64URL: id, member: "id").bytes, !credentialId.isEmpty,
            credentialId.count <= 1023
        else {
            throw AppError(.badRequest, "Unknown passkey.")
        }
        guard try await repositories.credentials.delete(id: credentialId, userHandle: subject.userHandle) else {
            throw AppError(.notFound, "Unknown passkey.")
        }
        // Every session and token family that passkey signed in ends with it (a copied cookie included).
        try await repositories.sessions.credentialDeleted(credentialId)
        try await repositories.refreshTokens.credentialDeleted(credentialId)
        context.logger.info("deleted passkey", metadata: ["node": "\(config.nodeName)", "credential": "\(id)"])
        let signedOut = credentialId == subject.credentialId
        return WithCookies(body: Deleted(signedOut: signedOut), cookies: signedOut ? [cookies.expired(SessionCookie.name)] : [])
    }

    struct LoggedOut: ResponseEncodable {
        var ok = true
        var sessionsEnded: Int
    }

    /// Ends this session (a cookie's row, or a bearer token's refresh-token family), or
    /// (`everywhere`) every session and token family of its account.
    func logout(_ request: Request, context: AppRequestContext, everywhere: Bool) async throws -> WithCookies<LoggedOut> {
        _ = try await request.collectJSON(limit: Limits.optionsBody)  // JSON only: no cross-site form can post it
        var ended = 0
        if let subject = context.identity {
            if everywhere {
                ended = try await repositories.sessions.deleteAll(userHandle: subject.userHandle)
                ended += try await repositories.refreshTokens.revokeAll(userHandle: subject.userHandle, now: Date())
            } else if case .session(let id) = subject.credential {
                try await repositories.sessions.delete(id: id)
                ended = 1
            } else if case .accessToken(_, let family) = subject.credential {
                ended = try await repositories.refreshTokens.revoke(familyID: family, now: Date()) ? 1 : 0
            }
        } else if everywhere {
            throw AppError.unauthorized
        }
        return WithCookies(body: LoggedOut(sessionsEnded: ended), cookies: [cookies.expired(SessionCookie.name)])
    }
}
