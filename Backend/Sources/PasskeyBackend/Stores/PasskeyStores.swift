import Foundation
import WebAuthnRP

/// Every store the backend keeps: in memory (``memory()``: one process, nothing to install) or
/// on PostgreSQL (`PasskeyStores.postgres(…)` in `PasskeyBackendPostgres`: shared by every node).
public struct PasskeyStores: Sendable {
    package var challenges: any ChallengeStore
    package var credentials: any PasskeyCredentialStore
    package var accounts: any AccountStore
    package var sessions: any SessionStore
    /// Which sealed challenges were answered: the database's table when there is one (single
    /// use across every node and restart), this process's memory otherwise.
    package var sealedReplay: any SealedChallengeReplayStore
    /// Refresh tokens and their families.
    package var refreshTokens: any RefreshTokenStore
    /// The access tokens' signing keys, shared by every node on the database.
    package var signingKeys: any SigningKeyStore
    /// App Attest keys and their counters.
    package var appAttestKeys: any AppAttestKeyStore
    /// Attested Android app keys and their counters.
    package var androidAppKeys: any AndroidAppKeyStore
    /// Brings the storage's schema up to date before the server starts (nil: nothing to do).
    package var migrate: (@Sendable () async throws -> Void)?
    /// Every login's write waits this long first (``delayingLoginWrites(by:)``).
    package var loginWriteDelay: Duration?

    package init(
        challenges: any ChallengeStore, credentials: any PasskeyCredentialStore, accounts: any AccountStore,
        sessions: any SessionStore, sealedReplay: any SealedChallengeReplayStore, refreshTokens: any RefreshTokenStore,
        signingKeys: any SigningKeyStore, appAttestKeys: any AppAttestKeyStore,
        androidAppKeys: any AndroidAppKeyStore, migrate: (@Sendable () async throws -> Void)? = nil
    ) {
        self.challenges = challenges
        self.credentials = credentials
        self.accounts = accounts
        self.sessions = sessions
        self.sealedReplay = sealedReplay
        self.refreshTokens = refreshTokens
        self.signingKeys = signingKeys
        self.appAttestKeys = appAttestKeys
        self.androidAppKeys = androidAppKeys
        self.migrate = migrate
    }

    /// Everything in this process's memory: for a local run and in-process tests (one node;
    /// everything ends with the process).
    ///
    /// - Returns: Empty stores.
    public static func memory() -> PasskeyStores {
        let accounts = MemoryAccountStore(), sessions = MemorySessionStore(), refreshTokens = MemoryRefreshTokenStore()
        return PasskeyStores(
            challenges: InMemoryChallengeStore(),
            credentials: MemoryCredentialStore(accounts: accounts, sessions: sessions, refreshTokens: refreshTokens),
            accounts: accounts, sessions: sessions, sealedReplay: InMemorySealedChallengeReplayStore(),
            refreshTokens: refreshTokens, signingKeys: MemorySigningKeyStore(), appAttestKeys: InMemoryAppAttestKeyStore(),
            androidAppKeys: InMemoryAndroidAppKeyStore())
    }

    /// The same stores, but every login's write (its counter's compare and swap) waits `delay`
    /// first. For end-to-end tests only: it makes the lost-update race of two logins of one
    /// passkey deterministic. Never use it in a server that serves users.
    ///
    /// - Parameter delay: How long each login's write waits.
    /// - Returns: The delaying stores.
    public func delayingLoginWrites(by delay: Duration) -> PasskeyStores {
        var copy = self
        copy.loginWriteDelay = delay
        return copy
    }
}
