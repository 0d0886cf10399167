import FluentKit
import Foundation
import Logging
import PasskeyBackend

extension PasskeyStores {
    /// Every store on a Fluent SQL database: PostgreSQL (shared by every node on it) or SQLite
    /// (one file, one process). Each ceremony's final write is one transaction of its own,
    /// challenges and refresh tokens are single use, and counters move by compare and swap.
    /// Configure the database with its driver first (`FluentPostgresDriver`,
    /// `FluentSQLiteDriver`); `Passkeys.prepareStores()` runs the stores' migrations through
    /// Fluent's `Migrator`, which records them in its own log.
    ///
    /// A failure of the database (refused, past the call's deadline, SQLite busy or locked) is
    /// the same failure the PostgresNIO stores raise, a 503 a client may retry.
    ///
    /// - Parameters:
    ///   - databases: The application's Fluent databases (Vapor's `app.databases`).
    ///   - id: Which of them holds the stores; nil, the default one.
    ///   - timeout: The longest any one database call may take; past it the request gets 503
    ///     (the configuration's `databaseTimeout` is the PostgreSQL stores' setting).
    ///   - logger: Where the stores and their migrations log.
    /// - Returns: The stores.
    public static func fluent(
        _ databases: Databases, id: DatabaseID? = nil, timeout: Duration = .seconds(3), logger: Logger
    ) -> PasskeyStores {
        let database = FluentStoreDatabase(databases: databases, id: id, logger: logger, timeout: timeout)
        let accounts = FluentAccountStore(database: database)
        return PasskeyStores(
            challenges: FluentChallengeStore(database: database), credentials: FluentCredentialStore(database: database),
            accounts: accounts, sessions: FluentSessionStore(database: database),
            sealedReplay: FluentSealedChallengeReplayStore(database: database),
            refreshTokens: FluentRefreshTokenStore(database: database), signingKeys: FluentSigningKeyStore(database: database),
            appAttestKeys: FluentAppAttestKeyStore(database: database),
            androidAppKeys: FluentAndroidAppKeyStore(database: database),
            migrate: { try await PasskeyMigrations.run(on: database) })
    }
}
