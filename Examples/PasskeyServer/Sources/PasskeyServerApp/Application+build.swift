import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import UnixSignals
import WebAuthnRP

/// Options only the end-to-end tests' node sets (Sources/passkey-e2e-node); the shipped
/// server has no way to set them.
package struct TestingOptions: Sendable {
    /// Every login's counter update waits this long first (a lost-update race made deterministic).
    package var updateDelay: Duration?
    package init() {}
}

/// Every store the server keeps, in PostgreSQL or in memory.
struct Repositories: Sendable {
    var challenges: any ChallengeStore
    var credentials: any PasskeyCredentialStore
    var accounts: any AccountStore
    var sessions: any SessionStore
    /// Which sealed challenges were answered: the database's table when there is one (single
    /// use across every node and restart), this process's memory otherwise.
    var sealedReplay: any SealedChallengeReplayStore
    /// Refresh tokens and their families.
    var refreshTokens: any RefreshTokenStore
    /// The access tokens' signing keys, shared by every node on the database.
    var signingKeys: any SigningKeyStore
    /// The database when there is one (its schema migrates before the server starts).
    var database: Database?

    /// In memory, for a local run and the in-process tests (one node; everything ends with the process).
    static func memory() -> Repositories {
        let accounts = MemoryAccountStore(), sessions = MemorySessionStore(), refreshTokens = MemoryRefreshTokenStore()
        return Repositories(
            challenges: InMemoryChallengeStore(),
            credentials: MemoryCredentialStore(accounts: accounts, sessions: sessions, refreshTokens: refreshTokens),
            accounts: accounts, sessions: sessions,
            sealedReplay: InMemorySealedChallengeReplayStore(), refreshTokens: refreshTokens,
            signingKeys: MemorySigningKeyStore(), database: nil)
    }

    /// PostgreSQL: shared by every node on the database.
    static func postgres(_ shared: Database) -> Repositories {
        Repositories(
            challenges: PostgresChallengeStore(database: shared), credentials: PostgresCredentialStore(database: shared),
            accounts: PostgresAccountStore(database: shared), sessions: PostgresSessionStore(database: shared),
            sealedReplay: PostgresSealedChallengeReplayStore(database: shared),
            refreshTokens: PostgresRefreshTokenStore(database: shared), signingKeys: PostgresSigningKeyStore(database: shared),
            database: shared)
    }
}

/// The application: its repositories (PostgreSQL when `config.databaseURL` is set, else memory),
/// its controllers on one router with the middleware every route shares, and the connection
/// limits of its HTTP server.
func buildApplication(_ config: Config, logger: Logger, testing: TestingOptions = .init()) async throws -> some ApplicationProtocol {
    var services: [any Service] = []
    let repositories: Repositories
    if let url = config.databaseURL {
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
        services.append(client)
        repositories = .postgres(Database(client: client, logger: logger, timeout: config.databaseTimeout))
        logger.info("stores: PostgreSQL at \(location.host):\(location.port)/\(location.database), \(config.databaseTimeout) per call")
    } else {
        repositories = .memory()
        logger.info("stores: in memory (set DATABASE_URL for PostgreSQL)")
    }
    if let delay = testing.updateDelay { logger.warning("every login's update waits \(delay) (end-to-end tests only)") }

    let sealingKey: SealedChallengeKey?
    if config.challengeMode == "sealed" {
        guard let bytes = config.sealingKey else { throw ConfigError("CHALLENGE_MODE=sealed needs SEALING_KEY (64 hex digits)") }
        sealingKey = try SealedChallengeKey(bytes)
        logger.info(
            config.databaseURL == nil
                ? "challenges: sealed (carried by the client; single use within this process)"
                : "challenges: sealed (carried by the client; single use across the database's nodes)")
    } else {
        sealingKey = nil
    }

    var recorder: FailedCeremonyRecorder? = nil
    if let directory = config.failedCeremonyDirectory {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigError("RECORD_FAILED_CEREMONIES_DIR \(directory): \(error)")
        }
        recorder = FailedCeremonyRecorder(
            directory: directory, maxBytes: config.failedCeremonyMaxBytes,
            maxFiles: config.failedCeremonyMaxFiles, logger: logger)
        logger.notice(
            "failed ceremonies are recorded in \(directory) (at most \(config.failedCeremonyMaxFiles) files of \(config.failedCeremonyMaxBytes) bytes)"
        )
    }

    let relyingParty = try config.relyingParty()
    let wellKnown = try WellKnownController(config: config, relyingParty: relyingParty)
    // CONFORMANCE=1: the library's FIDO conformance profile over the tool's statements and anchors.
    let policy = try config.conformance?.policy() ?? VerificationPolicy(counter: .reject, challengeLifetime: 300)
    if config.conformance != nil { logger.warning("CONFORMANCE=1: the FIDO conformance profile (for conformance runs only)") }
    // How challenges travel is configuration: sealed with the fleet's key, or stored.
    let transport: ChallengeTransport =
        sealingKey.map { .sealed($0, replayStore: repositories.sealedReplay) }
        ?? .stored(repositories.challenges)
    let service = RelyingPartyService(
        relyingParty: relyingParty, policy: policy, challenges: transport,
        credentials: repositories.credentials)
    let cookies = CookieFactory(secure: !config.isLocalhost)

    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(ResponseHeadersMiddleware())
    router.middlewares.add(ErrorLoggingMiddleware(nodeName: config.nodeName))
    // The page (index.html, app.js) from the bundle's Public folder, for any GET no route answers.
    router.middlewares.add(
        FileMiddleware(
            Bundle.module.resourcePath.map { $0 + "/Public" } ?? "Public",
            searchForIndexHtml: true, logger: logger))
    // The browser's cross-site (CSRF) check. A conformance run is driven by the test tool, which
    // posts from its own origin (an Electron app's `null`/`file://`, or none) and holds no one's
    // session worth forging, so that in-memory, test-only server goes without it.
    if config.conformance == nil { router.middlewares.add(SameOriginMiddleware(relyingParty: relyingParty)) }
    router.get("/healthz") { _, _ in Health(node: config.nodeName) }
    wellKnown.addRoutes(to: router)

    let tokens = TokenService(config: config, refreshTokens: repositories.refreshTokens, keyStore: repositories.signingKeys)
    WellKnownController.addTokenRoutes(to: router, config: config, tokens: tokens)
    // App Attest (unless off): its routes, and its assertion on token refresh and on an app adding a passkey.
    let appAttest = try AppAttest.make(config.appAttest, database: repositories.database, challenges: transport, logger: logger)
    let authentication = AuthenticationMiddleware(sessions: repositories.sessions, tokens: tokens)
    let oauth = router.group("oauth")
    let api = router.group("api").add(middleware: authentication)
    let native = router.group("native").add(middleware: authentication)
    // The assertion guards are the guarded routes' own middleware (the router's match decides).
    if let appAttest { AppAttestController(appAttest: appAttest).addRoutes(to: router.group("appattest")) }
    let refreshGuard = appAttest.map { AppAttestMiddleware(appAttest: $0) }
    let appPasskeyGuard = appAttest.map { AppAttestMiddleware(appAttest: $0, bearerOnly: true) }
    TokenController(tokens: tokens).addRoutes(to: oauth, appAttest: refreshGuard)

    let signer = CookieSigner(key: config.sessionKey)
    let web = WebCeremonyController(
        config: config, policy: policy, service: service, repositories: repositories,
        signer: signer, cookies: cookies, recorder: recorder, tokens: tokens, loginWriteDelay: testing.updateDelay)
    web.addRoutes(to: api, appAttest: appPasskeyGuard)
    AccountController(config: config, repositories: repositories, cookies: cookies).addRoutes(to: api)
    NativeCeremonyController(ceremonies: web, signer: signer, tokens: tokens).addRoutes(to: native, appAttest: appPasskeyGuard)
    if config.conformance != nil { ConformanceController(web: web).addRoutes(to: router) }

    // Connections: an idle one is closed, a request must arrive whole in time, and at most
    // MAX_CONNECTIONS are open (more wait in the kernel's backlog instead of exhausting descriptors).
    let requestReadTimeout = TimeAmount.seconds(config.requestReadTimeout)
    var app = Application(
        router: router,
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestReadDeadlineHandler(limit: requestReadTimeout)],
                idleTimeout: .seconds(config.idleTimeout))),
        configuration: .init(
            address: .hostname(config.host, port: config.port), serverName: "passkey-server",
            availableConnectionsDelegate: MaximumAvailableConnections(config.maxConnections, logger: logger)),
        services: services,
        logger: logger)
    if let database = repositories.database {
        // The schema migration runs once the client's connection pool is running, before the
        // server accepts requests.
        app.beforeServerStarts(perform: {
            try await PostgresSchema.migrate(database)
            logger.info("schema ready")
        })
        if appAttest != nil {
            app.beforeServerStarts(perform: { try await PostgresAppAttestKeyStore.migrate(database) })
        }
    }
    return app
}

struct Health: ResponseEncodable {
    var status = "ok"
    var node: String
}

/// Reads the configuration from the environment, builds the application and runs it until
/// SIGTERM or SIGINT; exits the process with 2 on a configuration error and 1 on a failure.
package func runServer(testing: TestingOptions = .init()) async {
    var logger = Logger(label: "passkey-server")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
    let config: Config
    do { config = try Config.fromEnvironment() } catch {
        FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
        exit(2)
    }
    if config.executor == "nio" {
        // Before any task of the server starts: its tasks then run on the event loops that own
        // their sockets and database connections (Config.executor).
        let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        logger.info("tasks run on NIO's event loops: \(installed)")
    }
    if ProcessInfo.processInfo.environment["SESSION_KEY"] == nil {
        logger.warning("SESSION_KEY is not set: a random key signs cookies (sessions end with this process; nodes cannot share them)")
    }
    let app: any ApplicationProtocol
    do { app = try await buildApplication(config, logger: logger, testing: testing) } catch {
        FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
        exit(2)
    }
    logger.info("listening on http://\(config.host):\(config.port) for RP ID \(config.rpId), origins \(config.origins)")
    // Shutdown is bounded: SIGTERM starts a graceful shutdown (in-flight requests finish), after
    // SHUTDOWN_GRACE_SECONDS the remaining tasks are cancelled, and SHUTDOWN_FORCE_SECONDS later the
    // process exits whatever still hangs (ShutdownWatchdog).
    ShutdownWatchdog.install(after: config.shutdownGrace + config.shutdownForce, logger: logger)
    var groupConfig = ServiceGroupConfiguration(
        services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger)
    groupConfig.maximumGracefulShutdownDuration = Duration.seconds(config.shutdownGrace)
    do {
        try await ServiceGroup(configuration: groupConfig).run()
        logger.info("stopped")
    } catch {
        // A service failed, or a shutdown cancelled the start (a migration waiting on a database
        // that is down): a logged exit, not a crash.
        logger.error("stopped: \(String(reflecting: error))")
        exit(1)
    }
}
