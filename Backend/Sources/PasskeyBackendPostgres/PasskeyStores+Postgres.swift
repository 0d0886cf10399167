import Foundation
import Logging
import PasskeyBackend
import PostgresNIO

extension PasskeyStores {
    /// Every store on PostgreSQL, shared by every node on the database: each ceremony's final
    /// write is one transaction of its own, challenges and refresh tokens are single use across
    /// the nodes, and nothing a node keeps in memory is needed by another. The schema migrates
    /// (versioned, serialized across nodes that start together) in `Passkeys.prepareStores()`.
    ///
    /// - Parameters:
    ///   - client: The PostgresNIO client; run it as a service beside the server.
    ///   - timeout: The longest any one database call may take; past it the request gets 503.
    ///   - logger: Where database failures are logged.
    /// - Returns: The stores.
    public static func postgres(client: PostgresClient, timeout: Duration = .seconds(3), logger: Logger) -> PasskeyStores {
        let database = Database(client: client, logger: logger, timeout: timeout)
        return PasskeyStores(
            challenges: PostgresChallengeStore(database: database), credentials: PostgresCredentialStore(database: database),
            accounts: PostgresAccountStore(database: database), sessions: PostgresSessionStore(database: database),
            sealedReplay: PostgresSealedChallengeReplayStore(database: database),
            refreshTokens: PostgresRefreshTokenStore(database: database), signingKeys: PostgresSigningKeyStore(database: database),
            appAttestKeys: PostgresAppAttestKeyStore(database: database),
            migrate: {
                try await PostgresSchema.migrate(database)
                logger.info("schema ready (version \(PostgresSchema.currentVersion))")
            })
    }

    /// The stores on the database of `configuration.databaseURL` (`postgres://user[:password]@host[:port]/database`),
    /// with the configuration's pool size, call timeout and keep-alive, and the client to run.
    ///
    /// - Parameters:
    ///   - configuration: The backend's configuration; its `databaseURL` must be set.
    ///   - logger: Where the client and the stores log.
    /// - Returns: The stores and the client (a `Service`: run it beside the server).
    /// - Throws: ``ConfigurationError`` when the URL is absent or malformed.
    public static func postgres(
        configuration config: PasskeyBackendConfiguration, logger: Logger
    ) throws -> (stores: PasskeyStores, client: PostgresClient) {
        guard let url = config.databaseURL else { throw ConfigurationError("DATABASE_URL is not set") }
        let location = try DatabaseURL(url)
        var pgConfig = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database, tls: .disable)
        // No keep-alive pings unless DB_KEEPALIVE_SECONDS asks (PostgresNIO's default schedules
        // a ping timer at every release: Docs/Performance.md). The minimum stays 0: with a
        // nonzero minimum, PostgresNIO 1.33's pool trips a precondition (a crash) when a lease
        // arrives while connections are failing, as they do during a database restart.
        pgConfig.options.maximumConnections = config.databasePoolSize
        pgConfig.options.keepAliveBehavior =
            config.databaseKeepAlive > 0 ? .init(frequency: .seconds(Int64(config.databaseKeepAlive))) : nil
        // A connection attempt to a database that does not answer gives up within the call deadline.
        pgConfig.options.connectTimeout = config.databaseTimeout
        let client = PostgresClient(configuration: pgConfig, backgroundLogger: logger)
        logger.info("stores: PostgreSQL at \(location.host):\(location.port)/\(location.database), \(config.databaseTimeout) per call")
        return (postgres(client: client, timeout: config.databaseTimeout, logger: logger), client)
    }
}
