import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PasskeyBackend
import ServiceLifecycle
import UnixSignals

/// A Hummingbird application serving `router` on the configuration's host and port, with the
/// connection limits a public server needs: an idle connection is closed, a request must
/// arrive whole in time (head to last body byte), and at most `maxConnections` are open (more
/// wait in the kernel's backlog instead of exhausting descriptors). The stores' schema is
/// brought up to date before the server accepts requests.
///
/// - Parameters:
///   - router: The router with the passkey routes (and the application's own).
///   - passkeys: The backend whose configuration and stores the server uses.
///   - services: Services to run beside the server (a PostgreSQL client).
///   - logger: The server's logger.
/// - Returns: The application, to run with `runService()` or in a service group.
public func buildPasskeyApplication(
    router: Router<PasskeyRequestContext>, passkeys: Passkeys, services: [any Service] = [],
    logger: Logger = Logger(label: "passkey-server")
) -> some ApplicationProtocol {
    let config = passkeys.config
    var app = Application(
        router: router,
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestReadDeadlineHandler(limit: .seconds(config.requestReadTimeout))],
                idleTimeout: .seconds(config.idleTimeout))),
        configuration: .init(
            address: .hostname(config.host, port: config.port), serverName: "passkey-server",
            availableConnectionsDelegate: MaximumAvailableConnections(config.maxConnections, logger: logger)),
        services: services,
        logger: logger)
    app.beforeServerStarts(perform: {
        try await passkeys.prepareStores()
    })
    return app
}

/// Runs `app` until SIGTERM or SIGINT, with a bounded shutdown: in-flight requests get the
/// configuration's `shutdownGrace` seconds, then the remaining tasks are cancelled, and
/// `shutdownForce` seconds later the process exits whatever still hangs (a database call that
/// never completes, a pool that keeps retrying a database that is down).
///
/// - Parameters:
///   - app: The application (``buildPasskeyApplication(router:passkeys:services:logger:)``).
///   - config: The configuration whose `shutdownGrace` and `shutdownForce` bound the shutdown.
///   - logger: Where a forced exit is logged.
/// - Throws: The error a service failed with, or a start that a shutdown cancelled (a
///   migration waiting on a database that is down).
public func runPasskeyServer(_ app: some ApplicationProtocol, config: PasskeyBackendConfiguration, logger: Logger) async throws {
    ShutdownWatchdog.install(after: config.shutdownGrace + config.shutdownForce, logger: logger)
    var groupConfig = ServiceGroupConfiguration(
        services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    groupConfig.maximumGracefulShutdownDuration = Duration.seconds(config.shutdownGrace)
    try await ServiceGroup(configuration: groupConfig).run()
}
