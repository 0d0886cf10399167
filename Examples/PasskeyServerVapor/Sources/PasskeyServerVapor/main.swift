import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import PasskeyBackend
import PasskeyBackendFluent
import PasskeyBackendVapor
import Vapor

// The passkey server on Vapor: the configuration from the environment (the Hummingbird
// example's README, "Configuration"), the stores on SQLite (SQLITE_PATH, default
// passkeys.sqlite) or on PostgreSQL when DATABASE_URL is set, the page and a health route.
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
let passkeys = try Passkeys(
    configuration: configuration, stores: .fluent(app.databases, logger: app.logger), logger: app.logger)
try app.usePasskeys(passkeys)
try app.register(collection: PasskeyRoutes(passkeys))
// The page (index.html, app.js), shared with the Hummingbird example, for any GET no route answers.
let page = Bundle.module.resourcePath.map { $0 + "/Public/" } ?? "Public/"
app.middleware.use(FileMiddleware(publicDirectory: page, defaultFile: "index.html"))
app.get("healthz") { _ in ["status": "ok", "node": configuration.nodeName] }

app.logger.info("listening on http://\(configuration.host):\(configuration.port) for RP ID \(configuration.rpId)")
try await app.execute()
try await app.asyncShutdown()
