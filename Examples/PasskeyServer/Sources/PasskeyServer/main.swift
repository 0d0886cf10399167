import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
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
if let url = config.databaseURL {
    let database = try DatabaseURL(url)
    var pgConfig = PostgresClient.Configuration(host: database.host, port: database.port, username: database.user,
                                                password: database.password, database: database.database, tls: .disable)
    pgConfig.options.maximumConnections = 16
    let client = PostgresClient(configuration: pgConfig, backgroundLogger: logger)
    services.append(client)
    challenges = PostgresChallengeStore(client: client, logger: logger)
    credentials = PostgresCredentialStore(client: client, logger: logger)
    accounts = PostgresAccountStore(client: client, logger: logger)
    logger.info("stores: PostgreSQL at \(database.host):\(database.port)/\(database.database)")
} else {
    challenges = InMemoryChallengeStore()
    credentials = MemoryCredentialStore()
    accounts = MemoryAccountStore()
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
    logger.info("challenges: sealed (carried by the client; single use per node)")
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
    config: config,
    service: RelyingPartyService(relyingParty: relyingParty, policy: policy, challenges: challenges, credentials: credentials),
    credentials: credentials, accounts: accounts, cookies: CookieSigner(key: config.sessionKey),
    sealingKey: sealingKey, recorder: recorder, logger: logger)

let router = Router()
server.addRoutes(to: router)
var app = Application(
    router: router,
    configuration: .init(address: .hostname(config.host, port: config.port), serverName: "passkey-server"),
    services: services,
    logger: logger)
if let postgres = services.first as? PostgresClient {
    // The schema migration runs once the client's connection pool is running, before the
    // server accepts requests.
    app.beforeServerStarts(perform: {
        try await PostgresSchema.migrate(postgres, logger: logger)
        logger.info("schema ready")
    })
}
logger.info("listening on http://\(config.host):\(config.port) for RP ID \(config.rpId), origins \(config.origins)")
try await app.runService()
