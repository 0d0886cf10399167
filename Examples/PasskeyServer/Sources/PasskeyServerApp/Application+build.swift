import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import PasskeyBackend
import PasskeyBackendHummingbird
import PasskeyBackendPostgres
import ServiceLifecycle

/// Options only the end-to-end tests' node sets (Sources/passkey-e2e-node); the shipped
/// server has no way to set them.
package struct TestingOptions: Sendable {
    /// Every login's counter update waits this long first (a lost-update race made deterministic).
    package var updateDelay: Duration?
    package init() {}
}

/// The application: the passkey backend (stores in PostgreSQL when `DATABASE_URL` is set, else
/// in memory) with its routes, and what this application owns beside them: its page and its
/// health route.
func buildApplication(
    _ config: PasskeyBackendConfiguration, logger: Logger, testing: TestingOptions = .init()
) async throws -> some ApplicationProtocol {
    var services: [any Service] = []
    var stores: PasskeyStores
    if config.databaseURL != nil {
        let (postgres, connections) = try PasskeyStores.postgres(configuration: config, logger: logger)
        stores = postgres
        services.append(connections)
    } else {
        stores = .memory()
        logger.info("stores: in memory (set DATABASE_URL for PostgreSQL)")
    }
    if let delay = testing.updateDelay { stores = stores.delayingLoginWrites(by: delay) }
    let passkeys = try Passkeys(configuration: config, stores: stores, logger: logger)

    let router = Router(context: PasskeyRequestContext.self)
    router.addPasskeyRoutes(passkeys)
    // The page (index.html, app.js) from the bundle's Public folder, for any GET no route answers.
    router.middlewares.add(
        FileMiddleware(Bundle.module.resourcePath.map { $0 + "/Public" } ?? "Public", searchForIndexHtml: true, logger: logger))
    router.get("/healthz") { _, _ in Health(node: config.nodeName) }
    return buildPasskeyApplication(router: router, passkeys: passkeys, services: services, logger: logger)
}

struct Health: ResponseEncodable {
    var status = "ok"
    var node: String
}

/// Reads the configuration from the environment (README, "Configuration"), builds the
/// application and runs it until SIGTERM or SIGINT; exits the process with 2 on a configuration
/// error and 1 on a failure.
package func runServer(testing: TestingOptions = .init()) async {
    var logger = Logger(label: "passkey-server")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
    let config: PasskeyBackendConfiguration
    do { config = try PasskeyBackendConfiguration.fromEnvironment() } catch {
        FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
        exit(2)
    }
    if config.executor == "nio" {
        // Before any task of the server starts: its tasks then run on the event loops that own
        // their sockets and database connections (PasskeyBackendConfiguration.executor).
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
    do {
        try await runPasskeyServer(app, config: config, logger: logger)
        logger.info("stopped")
    } catch {
        // A service failed, or a shutdown cancelled the start (a migration waiting on a database
        // that is down): a logged exit, not a crash.
        logger.error("stopped: \(String(reflecting: error))")
        exit(1)
    }
}
