import Foundation
import Logging
import NIOCore
import PasskeyBackend
import PostgresNIO
import ServiceLifecycle

extension PasskeyStores {
    /// Every store on PostgreSQL, shared by every node on the database: each ceremony's final
    /// write is one transaction of its own, challenges and refresh tokens are single use across
    /// the nodes, and nothing a node keeps in memory is needed by another. The schema migrates
    /// (versioned, serialized across nodes that start together) in `Passkeys.prepareStores()`.
    ///
    /// The node keeps a fixed number of connections on each of NIO's event loops (its singleton
    /// group, Hummingbird's), opened when first needed and again after a failure; a call uses one
    /// of the loop it runs on. The service closes them at the graceful shutdown.
    ///
    /// - Parameters:
    ///   - connection: Where and as whom to connect (host, credentials, TLS, connect timeout).
    ///   - connections: The node's connections at most, divided between the event loops.
    ///   - timeout: The longest any one database call may take; past it the request gets 503.
    ///   - keepAlive: Pings each idle connection this often; nil, never (a connection a
    ///     middlebox dropped then fails its next call, 503, and is replaced).
    ///   - logger: Where database failures are logged.
    /// - Returns: The stores and the connections' service (run it beside the server).
    public static func postgres(
        _ connection: PostgresConnection.Configuration, connections: Int = 16, timeout: Duration = .seconds(3),
        keepAlive: Duration? = nil, logger: Logger
    ) -> (stores: PasskeyStores, connections: any Service) {
        let set = ConnectionSet(configuration: connection, total: connections, keepAlive: keepAlive, timeout: timeout, logger: logger)
        let database = Database(connections: set, logger: logger, timeout: timeout)
        let stores = PasskeyStores(
            challenges: PostgresChallengeStore(database: database), credentials: PostgresCredentialStore(database: database),
            accounts: PostgresAccountStore(database: database), sessions: PostgresSessionStore(database: database),
            sealedReplay: PostgresSealedChallengeReplayStore(database: database),
            refreshTokens: PostgresRefreshTokenStore(database: database), signingKeys: PostgresSigningKeyStore(database: database),
            appAttestKeys: PostgresAppAttestKeyStore(database: database),
            androidAppKeys: PostgresAndroidAppKeyStore(database: database),
            migrate: {
                try await PostgresSchema.migrate(database)
                logger.info("schema ready (version \(PostgresSchema.currentVersion))")
            })
        return (stores, set)
    }

    /// The stores on the database of `configuration.databaseURL` (`postgres://user[:password]@host[:port]/database`),
    /// with the configuration's connection count, call timeout and keep-alive.
    ///
    /// - Parameters:
    ///   - configuration: The backend's configuration; its `databaseURL` must be set.
    ///   - logger: Where the connections and the stores log.
    /// - Returns: The stores and the connections' service (run it beside the server).
    /// - Throws: ``ConfigurationError`` when the URL is absent or malformed.
    public static func postgres(
        configuration config: PasskeyBackendConfiguration, logger: Logger
    ) throws -> (stores: PasskeyStores, connections: any Service) {
        guard let url = config.databaseURL else { throw ConfigurationError("DATABASE_URL is not set") }
        let location = try DatabaseURL(url)
        var connection = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database, tls: .disable)
        // A connection attempt to a database that does not answer gives up within the call deadline.
        connection.options.connectTimeout = TimeAmount(config.databaseTimeout)
        logger.info("stores: PostgreSQL at \(location.host):\(location.port)/\(location.database), \(config.databaseTimeout) per call")
        return postgres(
            connection, connections: config.databasePoolSize, timeout: config.databaseTimeout,
            keepAlive: config.databaseKeepAlive > 0 ? .seconds(config.databaseKeepAlive) : nil, logger: logger)
    }
}
