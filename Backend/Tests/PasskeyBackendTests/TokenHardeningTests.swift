import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Synchronization
import Testing
import WebAuthnRP

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// The token service where it meets its stores: a new SESSION_KEY recovers on its own, nothing
/// that can fail happens after a refresh token is spent, a family refreshes only for its
/// audience, and two refreshes of one token at once end the sign-in (README "Tokens").
@Suite struct TokenHardeningTests {
    static func service(
        key: UInt8 = 7, audience: String = "https://passkeys.test", refreshTokens: any RefreshTokenStore,
        keyStore: any SigningKeyStore
    ) -> TokenService {
        let config = AppTests.config {
            $0.sessionKey = Array(repeating: key, count: 32)
            $0.tokenIssuer = "https://passkeys.test"
            $0.tokenAudience = audience
        }
        return TokenService(config: config, refreshTokens: refreshTokens, keyStore: keyStore)
    }

    static func signIn(_ tokens: TokenService, now: Date = Date()) async throws -> TokenResponse {
        let family = tokens.prepareFamily(now: now)
        // The family as a login's write stores it, then its first tokens.
        try await tokens.refreshTokens.create(
            family: TokenFamily(
                id: family.pending.id, userHandle: [1, 2, 3], credentialId: [4, 5, 6], authTime: now, audience: family.pending.audience),
            tokenHash: family.pending.refreshTokenHash, expiresAt: family.pending.refreshTokenExpiresAt, now: now)
        return try await tokens.start(
            family, userHandle: [1, 2, 3], credentialId: [4, 5, 6], signer: try await tokens.signer(now: now), now: now)
    }

    static func invalidGrant(_ body: () async throws -> TokenResponse) async -> Bool {
        do {
            _ = try await body()
            return false
        } catch let error as OAuthError {
            return error.code == "invalid_grant"
        } catch {
            return false
        }
    }

    @Test func aNewSessionKeyMakesItsOwnSigningKey() async throws {
        let refreshTokens = MemoryRefreshTokenStore(), keys = MemorySigningKeyStore()
        let before = Self.service(key: 7, refreshTokens: refreshTokens, keyStore: keys)
        let issued = try await Self.signIn(before)
        let oldKid = try #require(try await before.jwks(now: Date()).keys.first?.keyIdentifier?.string)
        // The node restarts with another SESSION_KEY: the stored key does not open under it.
        let after = Self.service(key: 8, refreshTokens: refreshTokens, keyStore: keys)
        let jwks = try await after.jwks(now: Date())
        #expect(jwks.keys.count == 1 && jwks.keys.first?.keyIdentifier?.string != oldKid)
        // The refresh token (not tied to the key) refreshes; the new access token verifies; the
        // old one, signed by a key this node can no longer open, fails closed.
        let refreshed = try await after.refresh(issued.refresh_token, now: Date())
        #expect(try await after.subject(accessToken: refreshed.access_token, now: Date()).userHandle == [1, 2, 3])
        await #expect(throws: AppError.self) { _ = try await after.subject(accessToken: issued.access_token, now: Date()) }
        // A sign-in on the new key works as well.
        #expect(try await after.subject(accessToken: try await Self.signIn(after).access_token, now: Date()).userHandle == [1, 2, 3])
    }

    /// A key store that fails while `down` is set (a database outage at the key's reload).
    final class FlakyKeyStore: SigningKeyStore {
        let base = MemorySigningKeyStore()
        let down = Mutex(false)
        func keys(
            rotateAfter: TimeInterval, now: Date, usable: @escaping @Sendable (StoredSigningKey) -> Bool,
            make: @Sendable () -> StoredSigningKey
        ) async throws -> [StoredSigningKey] {
            if down.withLock({ $0 }) { throw WebAuthnError(.serverFault, step: "signing keys", "down") }
            return try await base.keys(rotateAfter: rotateAfter, now: now, usable: usable, make: make)
        }
    }

    @Test func aRefreshThatFailsSpendsNothing() async throws {
        let refreshTokens = MemoryRefreshTokenStore(), keys = FlakyKeyStore()
        let tokens = Self.service(refreshTokens: refreshTokens, keyStore: keys)
        let start = Date()
        let issued = try await Self.signIn(tokens, now: start)
        keys.down.withLock { $0 = true }
        // Past the node's key-cache period: the refresh must reload the keys, and cannot.
        let later = start.addingTimeInterval(120)
        await #expect(throws: WebAuthnError.self) { _ = try await tokens.refresh(issued.refresh_token, now: later) }
        keys.down.withLock { $0 = false }
        // The 503 spent nothing: the same token refreshes (a spent one would be a reuse, invalid_grant).
        let refreshed = try await tokens.refresh(issued.refresh_token, now: later)
        #expect(refreshed.refresh_token != issued.refresh_token)
    }

    /// A refresh-token store whose rotation fails at its end: after committing (`committed`, the
    /// acknowledgement of COMMIT lost) or before (the access token signed, nothing stored).
    final class FailingCommitStore: RefreshTokenStore {
        let base = MemoryRefreshTokenStore()
        let committed: Bool
        let failing = Mutex(true)
        init(committed: Bool) { self.committed = committed }

        func rotate(
            tokenHash: [UInt8], newHash: [UInt8], newExpiresAt: Date, audience: String, appKey: AppKey?,
            reuseInterval: TimeInterval, now: Date, issue: @escaping @Sendable (TokenFamily) async throws -> Void
        ) async throws -> RefreshOutcome {
            guard failing.withLock({ $0 }) else {
                return try await base.rotate(
                    tokenHash: tokenHash, newHash: newHash, newExpiresAt: newExpiresAt, audience: audience,
                    appKey: appKey, reuseInterval: reuseInterval, now: now, issue: issue)
            }
            failing.withLock { $0 = false }
            if committed {
                _ = try await base.rotate(
                    tokenHash: tokenHash, newHash: newHash, newExpiresAt: newExpiresAt, audience: audience,
                    appKey: appKey, reuseInterval: reuseInterval, now: now, issue: issue)
            } else {
                try await issue(TokenFamily(id: "f", userHandle: [1, 2, 3], credentialId: [4, 5, 6], authTime: now))
            }
            throw WebAuthnError(.serverFault, step: "database", "the connection closed during COMMIT")
        }
        func create(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, now: Date) async throws {
            try await base.create(family: family, tokenHash: tokenHash, expiresAt: expiresAt, now: now)
        }
        func family(id: String, now: Date) async throws -> TokenFamily? { try await base.family(id: id, now: now) }
        func isStored(tokenHash: [UInt8]) async throws -> Bool { try await base.isStored(tokenHash: tokenHash) }
        func revoke(tokenHash: [UInt8], now: Date) async throws -> Bool { try await base.revoke(tokenHash: tokenHash, now: now) }
        func revoke(familyID: String, now: Date) async throws -> Bool { try await base.revoke(familyID: familyID, now: now) }
        func revokeAll(userHandle: [UInt8], now: Date) async throws -> Int { try await base.revokeAll(userHandle: userHandle, now: now) }
        func credentialDeleted(_ id: [UInt8]) async throws { try await base.credentialDeleted(id) }
    }

    @Test func aRotationWhoseCommitWasNotAcknowledgedAnswersByWhatIsStored() async throws {
        // Committed, acknowledgement lost: the answer is the successor (read back), which refreshes.
        let committed = FailingCommitStore(committed: true)
        var tokens = Self.service(refreshTokens: committed, keyStore: MemorySigningKeyStore())
        var issued = try await Self.signIn(tokens)
        let successor = try await tokens.refresh(issued.refresh_token, now: Date())
        #expect(try await tokens.subject(accessToken: successor.access_token, now: Date()).userHandle == [1, 2, 3])
        #expect(try await tokens.refresh(successor.refresh_token, now: Date()).refresh_token != successor.refresh_token)
        // Not committed: 503, and the token is not spent.
        let rolledBack = FailingCommitStore(committed: false)
        tokens = Self.service(refreshTokens: rolledBack, keyStore: MemorySigningKeyStore())
        issued = try await Self.signIn(tokens)
        await #expect(throws: WebAuthnError.self) { _ = try await tokens.refresh(issued.refresh_token, now: Date()) }
        #expect(try await tokens.refresh(issued.refresh_token, now: Date()).refresh_token != issued.refresh_token)
    }

    @Test func aFamilyRefreshesOnlyForItsAudience() async throws {
        let refreshTokens = MemoryRefreshTokenStore(), keys = MemorySigningKeyStore()
        let ours = Self.service(refreshTokens: refreshTokens, keyStore: keys)
        let other = Self.service(audience: "https://other.example", refreshTokens: refreshTokens, keyStore: keys)
        let issued = try await Self.signIn(ours)
        #expect(await Self.invalidGrant { try await other.refresh(issued.refresh_token, now: Date()) })
        // Refused without spending it or ending the family: its own audience still refreshes it.
        let refreshed = try await ours.refresh(issued.refresh_token, now: Date())
        #expect(try await ours.subject(accessToken: refreshed.access_token, now: Date()).userHandle == [1, 2, 3])
    }

    @Test func twoRefreshesOfOneTokenAtOnceEndTheSignIn() async throws {
        // No reuse interval (README "Tokens"): the second presentation is a reuse, whichever wins.
        let refreshTokens = MemoryRefreshTokenStore(), keys = MemorySigningKeyStore()
        let tokens = Self.service(refreshTokens: refreshTokens, keyStore: keys)
        let issued = try await Self.signIn(tokens)
        async let first = try? tokens.refresh(issued.refresh_token, now: Date())
        async let second = try? tokens.refresh(issued.refresh_token, now: Date())
        let winners = await [first, second].compactMap { $0 }
        #expect(winners.count == 1)
        if let winner = winners.first {
            #expect(await Self.invalidGrant { try await tokens.refresh(winner.refresh_token, now: Date()) })
        }
    }
}
