import Foundation
import HTTPTypes
import Logging
import WebAuthnRP

/// The signed-in account: one page of its passkeys, deleting one, and signing out (this session
/// or everywhere). The subject is what an adapter's authenticator found: the web page's session
/// cookie or an app's bearer token.
package struct AccountFlows: Sendable {
    package let config: PasskeyBackendConfiguration
    package let stores: PasskeyStores

    package struct Passkey: Encodable, Sendable {
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
        /// The name the user gave it, if any.
        var name: String?
        /// credProps `rk` and PRF enabled, when the client said (PasskeyExtensions).
        var discoverable: Bool?
        var prfEnabled: Bool?
    }

    package struct Account: Encodable, Sendable {
        var username: String
        var passkeys: [Passkey]
        var maxPasskeys: Int
        var signedInAt: String
        /// The id to pass as `after` for the next page, when more follow.
        var next: String?
    }

    /// The account and one page of its passkeys: `?after=<id>` continues after that passkey,
    /// `?limit=` (1 to the per-account cap, default 10); `next` is there when more follow.
    package func account(of subject: Subject, after afterText: String?, limit limitText: String?) async throws -> Account {
        guard let username = try await stores.accounts.username(userHandle: subject.userHandle) else {
            throw AppError.unauthorized
        }
        var after: [UInt8]? = nil
        if let text = afterText {
            guard let bytes = try? Base64URLBytes(base64URL: text, member: "after").bytes, (1...1023).contains(bytes.count) else {
                throw AppError(.badRequest, "Unknown page.")
            }
            after = bytes
        }
        var limit = Limits.pageSize
        if let text = limitText {
            guard let value = Int(text), (1...config.maxPasskeysPerAccount).contains(value) else {
                throw AppError(.badRequest, "A page holds 1 to \(config.maxPasskeysPerAccount) passkeys.")
            }
            limit = value
        }
        let page = try await stores.credentials.page(userHandle: subject.userHandle, after: after, limit: limit + 1)
        let iso = ISO8601DateFormatter()
        let passkeys = page.prefix(limit).map { listed in
            let record = listed.record
            return Passkey(
                id: Base64URLBytes(record.id).base64URL, aaguid: record.aaguid,
                provider: PasskeyProviders.snapshot.name(for: record), signCount: Int(record.signCount),
                backupEligible: record.backupEligible, backupState: record.backupState, transports: record.transports,
                createdAt: iso.string(from: listed.usage.createdAt),
                lastUsedAt: listed.usage.lastUsedAt.map { iso.string(from: $0) } ?? "",
                current: record.id == subject.credentialId, name: listed.name,
                discoverable: record.extensions.discoverable, prfEnabled: record.extensions.prfEnabled)
        }
        let next = page.count > limit ? page.prefix(limit).last.map { Base64URLBytes($0.record.id).base64URL } : nil
        return Account(
            username: username, passkeys: passkeys, maxPasskeys: config.maxPasskeysPerAccount,
            signedInAt: iso.string(from: subject.signedInAt), next: next)
    }

    package struct Deleted: Encodable, Sendable {
        var ok = true
        /// The passkey that signed this subject in was deleted: it is signed out.
        package var signedOut: Bool
    }

    /// Deletes the subject's passkey `id` (base64url), with a recent sign-in; every session and
    /// token family it signed in ends with it.
    package func deletePasskey(_ id: String, of subject: Subject, logger: Logger) async throws -> Deleted {
        try requireFreshSignIn(subject, now: Date(), freshSignIn: config.freshSignIn)
        let credentialId = try Self.credentialId(id)
        guard try await stores.credentials.delete(id: credentialId, userHandle: subject.userHandle) else {
            throw AppError(.notFound, "Unknown passkey.")
        }
        // Every session and token family that passkey signed in ends with it (a copied cookie included).
        try await stores.sessions.credentialDeleted(credentialId)
        try await stores.refreshTokens.credentialDeleted(credentialId)
        logger.info("deleted passkey", metadata: ["node": "\(config.nodeName)", "credential": "\(id)"])
        return Deleted(signedOut: credentialId == subject.credentialId)
    }

    /// A credential id from the path: base64url, 1 to 1023 bytes.
    static func credentialId(_ text: String) throws -> [UInt8] {
        guard let bytes = try? Base64URLBytes(base64URL: text, member: "id").bytes, (1...1023).contains(bytes.count) else {
            throw AppError(.badRequest, "Unknown passkey.")
        }
        return bytes
    }

    package struct Renamed: Encodable, Sendable {
        var ok = true
        var name: String?
    }

    /// Names the subject's passkey `id` (base64url) from the body `{"name": "…"}`, or clears
    /// its name (`{"name": null}`); anything else is 400.
    package func renamePasskey(_ id: String, body: [String: JSONValue], of subject: Subject) async throws -> Renamed {
        guard body.count == 1, let member = body["name"] else {
            throw AppError(.badRequest, "Send {\"name\": \"…\"} (or null to clear it).")
        }
        switch member {
        case .null: return try await renamePasskey(id, to: nil, of: subject)
        case .string(let text): return try await renamePasskey(id, to: text, of: subject)
        default: throw AppError(.badRequest, "Send {\"name\": \"…\"} (or null to clear it).")
        }
    }

    /// Names the subject's passkey `id` (base64url), or clears its name (`name` nil), with a
    /// recent sign-in: a copied session cannot relabel the owner's passkeys.
    package func renamePasskey(_ id: String, to name: String?, of subject: Subject) async throws -> Renamed {
        try requireFreshSignIn(subject, now: Date(), freshSignIn: config.freshSignIn)
        let credentialId = try Self.credentialId(id)
        let given = try name.map(PasskeyName.init)
        guard try await stores.credentials.rename(id: credentialId, userHandle: subject.userHandle, name: given) else {
            throw AppError(.notFound, "Unknown passkey.")
        }
        return Renamed(name: given?.text)
    }

    package struct LoggedOut: Encodable, Sendable {
        var ok = true
        var sessionsEnded: Int
    }

    /// Ends this session (a cookie's row, or a bearer token's refresh-token family), or
    /// (`everywhere`) every session and token family of its account.
    package func logout(_ subject: Subject?, everywhere: Bool) async throws -> LoggedOut {
        var ended = 0
        if let subject {
            if everywhere {
                ended = try await stores.sessions.deleteAll(userHandle: subject.userHandle)
                ended += try await stores.refreshTokens.revokeAll(userHandle: subject.userHandle, now: Date())
            } else if case .session(let id) = subject.credential {
                try await stores.sessions.delete(id: id)
                ended = 1
            } else if case .accessToken(_, let family) = subject.credential {
                ended = try await stores.refreshTokens.revoke(familyID: family, now: Date()) ? 1 : 0
            }
        } else if everywhere {
            throw AppError.unauthorized
        }
        return LoggedOut(sessionsEnded: ended)
    }
}
