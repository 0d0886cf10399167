import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals
import WebAuthnRP

// The passkey server: configuration from the environment (see Config and the README), stores
// in PostgreSQL when DATABASE_URL is set and in memory otherwise, one Hummingbird application.

let logger: Logger = {
    var logger = Logger(label: "passkey-server")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
    return logger
}()

let config: Config
do { config = try Config.fromEnvironment() } catch {
    FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
    exit(2)
}
if ProcessInfo.processInfo.environment["SESSION_KEY"] == nil {
    logger.warning("SESSION_KEY is not set: a random key signs cookies (sessions end with this process; nodes cannot share them)")
}

let relyingParty = RelyingParty(id: config.rpId, name: config.rpName, origins: config.origins)
let policy = VerificationPolicy(counter: .reject, challengeLifetime: 300)

var services: [any Service] = []
let challenges: any ChallengeStore
var credentials: any PasskeyCredentialStore
let accounts: any AccountStore
let sessions: any SessionStore
let replayStore: any SealedChallengeReplayStore
let database: Database?
if let url = config.databaseURL {
    let location = try DatabaseURL(url)
    var pgConfig = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                password: location.password, database: location.database, tls: .disable)
    pgConfig.options.maximumConnections = 16
    // A connection attempt to a database that does not answer gives up within the call deadline.
    pgConfig.options.connectTimeout = config.databaseTimeout
    let client = PostgresClient(configuration: pgConfig, backgroundLogger: logger)
    services.append(client)
    let shared = Database(client: client, logger: logger, timeout: config.databaseTimeout)
    database = shared
    challenges = PostgresChallengeStore(database: shared)
    credentials = PostgresCredentialStore(database: shared)
    accounts = PostgresAccountStore(database: shared)
    sessions = PostgresSessionStore(database: shared)
    replayStore = PostgresSealedChallengeReplayStore(database: shared)
    logger.info("stores: PostgreSQL at \(location.host):\(location.port)/\(location.database), \(config.databaseTimeout) per call")
} else {
    challenges = InMemoryChallengeStore()
    let memoryAccounts = MemoryAccountStore()
    credentials = MemoryCredentialStore(accounts: memoryAccounts)
    accounts = memoryAccounts
    sessions = MemorySessionStore()
    replayStore = InMemorySealedChallengeReplayStore()
    database = nil
    logger.info("stores: in memory (set DATABASE_URL for PostgreSQL)")
}

if let delay = ProcessInfo.processInfo.environment["E2E_UPDATE_DELAY_MS"].flatMap({ Int($0) }), delay > 0 {
    logger.warning("E2E_UPDATE_DELAY_MS=\(delay): every login's update waits (end-to-end tests only)")
    credentials = DelayedUpdateStore(credentials, milliseconds: min(delay, 10_000))
}

let sealingKey: SealedChallengeKey?
if config.challengeMode == "sealed" {
    guard let bytes = config.sealingKey else {
        FileHandle.standardError.write(Data("configuration: CHALLENGE_MODE=sealed needs SEALING_KEY (64 hex digits)\n".utf8))
        exit(2)
    }
    sealingKey = try SealedChallengeKey(bytes)
    logger.info(config.databaseURL == nil ? "challenges: sealed (carried by the client; single use within this process)"
                                          : "challenges: sealed (carried by the client; single use across the database's nodes)")
} else {
    sealingKey = nil
}

var recorder: FailedCeremonyRecorder? = nil
if let directory = config.failedCeremonyDirectory {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    } catch {
        FileHandle.standardError.write(Data("configuration: RECORD_FAILED_CEREMONIES_DIR \(directory): \(error)\n".utf8))
        exit(2)
    }
    recorder = FailedCeremonyRecorder(directory: directory, maxBytes: config.failedCeremonyMaxBytes,
                                      maxFiles: config.failedCeremonyMaxFiles, logger: logger)
    logger.notice("failed ceremonies are recorded in \(directory) (at most \(config.failedCeremonyMaxFiles) files of \(config.failedCeremonyMaxBytes) bytes)")
}

let server = PasskeyServer(
    config: config, relyingParty: relyingParty, policy: policy, challenges: challenges,
    credentials: credentials, accounts: accounts, sessions: sessions, cookies: CookieSigner(key: config.sessionKey),
    sealingKey: sealingKey, replayStore: replayStore, recorder: recorder, logger: logger)

let router = Router()
server.addRoutes(to: router)
// Connections: an idle one is closed, a request must arrive whole in time, and at most
// MAX_CONNECTIONS are open (more wait in the kernel's backlog instead of exhausting descriptors).
let requestReadTimeout = TimeAmount.seconds(config.requestReadTimeout)
var app = Application(
    router: router,
    server: .http1(configuration: .init(additionalChannelHandlers: [RequestReadDeadlineHandler(limit: requestReadTimeout)],
                                        idleTimeout: .seconds(config.idleTimeout))),
    configuration: .init(address: .hostname(config.host, port: config.port), serverName: "passkey-server",
                         availableConnectionsDelegate: MaximumAvailableConnections(config.maxConnections, logger: logger)),
    services: services,
    logger: logger)
if let database {
    // The schema migration runs once the client's connection pool is running, before the
    // server accepts requests.
    app.beforeServerStarts(perform: {
        try await PostgresSchema.migrate(database)
        logger.info("schema ready")
    })
}
logger.info("listening on http://\(config.host):\(config.port) for RP ID \(config.rpId), origins \(config.origins)")
// Shutdown is bounded: SIGTERM starts a graceful shutdown (in-flight requests finish), after
// SHUTDOWN_GRACE_SECONDS the remaining tasks are cancelled, and SHUTDOWN_FORCE_SECONDS later the
// process exits whatever still hangs (ShutdownWatchdog).
ShutdownWatchdog.install(after: config.shutdownGrace + config.shutdownForce, logger: logger)
var groupConfig = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint],
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
