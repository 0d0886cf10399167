import Foundation
import Synchronization
import WebAuthnRP

/// A refresh-token family: one sign-in of an app (a passkey login or registration), and every
/// refresh token rotated from it. Access tokens name their family (`sid`), so ending the family
/// (logout, revocation, reuse of a rotated refresh token, deleting the passkey) ends them too.
package struct TokenFamily: Sendable, Equatable {
    package var id: String
    package var userHandle: [UInt8]
    /// The passkey whose ceremony began the family.
    package var credentialId: [UInt8]
    /// When that ceremony happened (`auth_time`): a refresh does not make a sign-in fresh.
    package var authTime: Date
    /// The audience (`TOKEN_AUDIENCE`) its tokens were issued for: only a server of that audience
    /// refreshes them (nil: a family stored before audiences were; bound at its next refresh).
    package var audience: String?
    /// The app key (App Attest or Android) whose assertion the sign-in carried: only a request asserted by that key
    /// refreshes the family, so a live token shows the genuine app holds it (nil: not bound).
    package var appKey: AppKey?

    package init(
        id: String, userHandle: [UInt8], credentialId: [UInt8], authTime: Date, audience: String? = nil,
        appKey: AppKey? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.credentialId = credentialId
        self.authTime = authTime
        self.audience = audience
        self.appKey = appKey
    }
}

/// What presenting a refresh token came to.
package enum RefreshOutcome: Sendable, Equatable {
    /// Rotated: the presented token is spent and its family (alive) continues with the new one,
    /// whose access token was signed before the rotation committed.
    case rotated(TokenFamily)
    /// Unknown, expired, its family has ended, or issued for another audience (nothing changed).
    case invalid
    /// The family is bound to an app key and the request was not asserted by it (nothing changed).
    case wrongKey
    /// The token was already rotated, longer ago than the reuse interval: someone holds a copy.
    /// The whole family is now revoked.
    case reused
}

/// Refresh tokens, kept as the SHA-256 of the opaque value the client holds.
package protocol RefreshTokenStore: Sendable {
    /// Starts a family with its first refresh token.
    func create(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, now: Date) async throws
    /// Spends `tokenHash` and stores `newHash` in its family, in one step that commits only after
    /// `issue` signed the new access token for the family (a throw from `issue` spends nothing),
    /// and answers once the commit is acknowledged; a token presented a second time revokes its
    /// family (RFC 9700 §4.14.2, refresh token rotation), unless its first use was at most
    /// `reuseInterval` seconds ago: then it rotates again (an app that sent two refreshes at once
    /// keeps its sign-in, and both answers' refresh tokens stay usable); a family of another
    /// `audience` is `invalid` and left as it was, and one bound to an app key other than
    /// `appKey` (the key whose assertion the request carried, if any) is `wrongKey`.
    func rotate(
        tokenHash: [UInt8], newHash: [UInt8], newExpiresAt: Date, audience: String, appKey: AppKey?,
        reuseInterval: TimeInterval, now: Date,
        issue: @escaping @Sendable (TokenFamily) async throws -> Void
    ) async throws -> RefreshOutcome
    /// The family, if it is alive (not revoked; its passkey still exists).
    func family(id: String, now: Date) async throws -> TokenFamily?
    /// Whether `tokenHash` is stored (spent or not): a rotation whose commit was not acknowledged
    /// committed exactly when its new token is there.
    func isStored(tokenHash: [UInt8]) async throws -> Bool
    /// Revokes the family of a refresh token (RFC 7009). - Returns: whether one was revoked.
    @discardableResult func revoke(tokenHash: [UInt8], now: Date) async throws -> Bool
    /// Revokes a family by id. - Returns: whether one was revoked.
    @discardableResult func revoke(familyID: String, now: Date) async throws -> Bool
    /// Revokes every family of the user. - Returns: how many.
    func revokeAll(userHandle: [UInt8], now: Date) async throws -> Int
    /// Ends the families a just-deleted passkey began.
    func credentialDeleted(_ id: [UInt8]) async throws
}

/// An ES256 signing key as every node keeps it: its `kid`, its private key's raw 32 bytes, and
/// when it was made (keys rotate by age).
package struct StoredSigningKey: Sendable, Equatable {
    package var kid: String
    package var privateKey: [UInt8]
    package var createdAt: Date

    package init(kid: String, privateKey: [UInt8], createdAt: Date) {
        self.kid = kid
        self.privateKey = privateKey
        self.createdAt = createdAt
    }
}

/// The signing keys the nodes share. The newest signs; it and the one before it are published
/// (two at once), so a token signed just before a rotation still verifies after it.
package protocol SigningKeyStore: Sendable {
    /// The newest two `usable` keys (those that open under this node's SESSION_KEY), newest
    /// first, after adding `make()` when the newest usable one is older than `rotateAfter` (or
    /// there is none). Nodes that call this at once add one key between them.
    func keys(
        rotateAfter: TimeInterval, now: Date, usable: @escaping @Sendable (StoredSigningKey) -> Bool, make: @Sendable () -> StoredSigningKey
    ) async throws -> [StoredSigningKey]
}

/// Refresh tokens in memory (one node; they end with the process).
package final class MemoryRefreshTokenStore: RefreshTokenStore {
    private struct Token {
        var family: String
        var expiresAt: Date
        /// When it was first rotated (nil: unspent).
        var usedAt: Date?
    }
    private struct State {
        var tokens: [ByteString: Token] = [:]
        var families: [String: TokenFamily] = [:]
        var revoked: Set<String> = []
    }
    private let state = Mutex(State())
    private let capacity: Int

    package init(capacity: Int = 100_000) { self.capacity = capacity }

    package func create(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, now: Date) async throws {
        try state.withLock { state in
            if state.tokens.count >= capacity {
                // Only expired tokens go: a spent one must stay to be recognised if presented again.
                state.tokens = state.tokens.filter { $0.value.expiresAt > now }
                let live = Set(state.tokens.values.map(\.family))
                state.families = state.families.filter { live.contains($0.key) }
                state.revoked = state.revoked.filter { live.contains($0) }
            }
            guard state.tokens.count < capacity else {
                throw WebAuthnError(.serverFault, step: "refresh token store", "full: \(capacity) refresh tokens are stored")
            }
            state.families[family.id] = family
            state.tokens[ByteString(tokenHash)] = Token(family: family.id, expiresAt: expiresAt)
        }
    }

    package func rotate(
        tokenHash: [UInt8], newHash: [UInt8], newExpiresAt: Date, audience: String, appKey: AppKey?,
        reuseInterval: TimeInterval, now: Date,
        issue: @escaping @Sendable (TokenFamily) async throws -> Void
    ) async throws -> RefreshOutcome {
        /// What the token was found to be, before anything changes.
        enum Found { case outcome(RefreshOutcome), live(TokenFamily) }
        let found: Found = state.withLock { state in
            guard let token = state.tokens[ByteString(tokenHash)], let family = state.families[token.family],
                !state.revoked.contains(token.family), (family.audience ?? audience) == audience
            else { return .outcome(.invalid) }
            if let bound = family.appKey, bound != appKey { return .outcome(.wrongKey) }
            if let usedAt = token.usedAt, !Self.withinReuse(usedAt, reuseInterval, now) {
                state.revoked.insert(token.family)
                return .outcome(.reused)
            }
            guard token.expiresAt > now else { return .outcome(.invalid) }
            return .live(family)
        }
        guard case .live(var family) = found else {
            if case .outcome(let outcome) = found { return outcome }
            return .invalid
        }
        family.audience = audience
        try await issue(family)
        // Spent only now; a concurrent refresh of the same token that got here first makes this a reuse.
        return state.withLock { state in
            guard let spent = state.tokens[ByteString(tokenHash)], !state.revoked.contains(family.id),
                spent.usedAt.map({ Self.withinReuse($0, reuseInterval, now) }) ?? true
            else {
                state.revoked.insert(family.id)
                return .reused
            }
            // The first use's time stays: the interval counts from it, not from each reuse.
            if spent.usedAt == nil { state.tokens[ByteString(tokenHash)]?.usedAt = now }
            state.tokens[ByteString(newHash)] = Token(family: family.id, expiresAt: newExpiresAt)
            state.families[family.id]?.audience = audience
            return .rotated(family)
        }
    }

    /// A token first used at `usedAt` may rotate again (never when the interval is 0: then every
    /// second presentation is a reuse).
    private static func withinReuse(_ usedAt: Date, _ interval: TimeInterval, _ now: Date) -> Bool {
        interval > 0 && now.timeIntervalSince(usedAt) <= interval
    }

    package func family(id: String, now: Date) async throws -> TokenFamily? {
        state.withLock { state in state.revoked.contains(id) ? nil : state.families[id] }
    }

    package func isStored(tokenHash: [UInt8]) async throws -> Bool {
        state.withLock { $0.tokens[ByteString(tokenHash)] != nil }
    }

    package func revoke(tokenHash: [UInt8], now: Date) async throws -> Bool {
        state.withLock { state in
            guard let family = state.tokens[ByteString(tokenHash)]?.family else { return false }
            return state.revoked.insert(family).inserted
        }
    }

    package func revoke(familyID: String, now: Date) async throws -> Bool {
        state.withLock { state in state.families[familyID] != nil && state.revoked.insert(familyID).inserted }
    }

    package func revokeAll(userHandle: [UInt8], now: Date) async throws -> Int {
        state.withLock { state in
            let ids = state.families.values.filter { $0.userHandle == userHandle && !state.revoked.contains($0.id) }.map(\.id)
            state.revoked.formUnion(ids)
            return ids.count
        }
    }

    package func credentialDeleted(_ id: [UInt8]) async throws {
        state.withLock { state in
            for family in state.families.values where family.credentialId == id { state.revoked.insert(family.id) }
        }
    }
}

/// Signing keys in memory: this process's own (tokens end with it; fine for one node).
package final class MemorySigningKeyStore: SigningKeyStore {
    private let stored = Mutex([StoredSigningKey]())

    package func keys(
        rotateAfter: TimeInterval, now: Date, usable: @escaping @Sendable (StoredSigningKey) -> Bool, make: @Sendable () -> StoredSigningKey
    ) async throws -> [StoredSigningKey] {
        stored.withLock { keys in
            keys = keys.filter(usable)
            if keys.first.map({ now.timeIntervalSince($0.createdAt) >= rotateAfter }) ?? true {
                keys.insert(make(), at: 0)
                keys = Array(keys.prefix(2))
            }
            return keys
        }
    }
}
