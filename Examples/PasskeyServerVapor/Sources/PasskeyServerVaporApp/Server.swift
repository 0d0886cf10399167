import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import PasskeyBackend
import PasskeyBackendFluent
import PasskeyBackendVapor
import Vapor

/// The passkey server on Vapor: the configuration from the environment (the Hummingbird
/// example's README, "Configuration"), the stores on SQLite (SQLITE_PATH, default
/// passkeys.sqlite) or on PostgreSQL when DATABASE_URL is set, the page and a health route.
/// Runs until SIGTERM or SIGINT; exits with 2 on a configuration error.
///
/// - Parameter loginWriteDelay: Only the end-to-end tests' node sets it (passkey-e2e-node-vapor):
///   every login's counter update waits this long first, so a race can be staged.
package func runServer(loginWriteDelay: Duration? = nil) async throws {
    let configuration: PasskeyBackendConfiguration
    do { configuration = try PasskeyBackendConfiguration.fromEnvironment() } catch {
        FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
        exit(2)
    }
    var environment = try Environment.detect()
    try LoggingSystem.bootstrap(from: &environment)
    let app = try await Application.make(environment)

    if let url = configuration.databaseURL {
        app.databases.use(try .postgres(url: url), as: .psql)
    } else {
        app.databases.use(.sqlite(.file(Environment.get("SQLITE_PATH") ?? "passkeys.sqlite")), as: .sqlite)
    }
    var stores = PasskeyStores.fluent(app.databases, timeout: configuration.databaseTimeout, logger: app.logger)
    if let loginWriteDelay { stores = stores.delayingLoginWrites(by: loginWriteDelay) }
    let passkeys = try Passkeys(configuration: configuration, stores: stores, logger: app.logger)
    try app.usePasskeys(passkeys)
    try app.register(collection: PasskeyRoutes(passkeys))
    // The page (index.html, app.js) is the Hummingbird example's, served from its folder in this
    // checkout (PUBLIC_DIR elsewhere), for any GET no route answers.
    let examples = URL(fileURLWithPath: #filePath).appendingPathComponent("../../../..").standardized
    let page = Environment.get("PUBLIC_DIR") ?? examples.path + "/PasskeyServer/Sources/PasskeyServerApp/Public/"
    app.middleware.use(PageMiddleware(files: FileMiddleware(publicDirectory: page, defaultFile: "index.html")))
    app.get("healthz") { _ in ["status": "ok", "node": configuration.nodeName] }

    app.logger.info("listening on http://\(configuration.host):\(configuration.port) for RP ID \(configuration.rpId)")
    do {
        try await app.execute()
    } catch {
        try? await app.asyncShutdown()
        throw error
    }
    try await app.asyncShutdown()
}

/// The page's files answer GET and HEAD only: any other request goes on to the routes (Vapor's
/// FileMiddleware would answer a POST whose path has `..` itself, before the router matched).
struct PageMiddleware: AsyncMiddleware {
    let files: FileMiddleware

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.method == .GET || request.method == .HEAD else { return try await next.respond(to: request) }
        return try await files.respond(to: request, chainingTo: next)
    }
}
