import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import PasskeyBackend
import PasskeyBackendFluent
import PasskeyBackendVapor
import Vapor

// Passkey sign-in for the web and for apps, with tokens, refresh, revocation, JWKS and
// App Attest: everything is configured from the environment (RP_ID, ORIGINS, SESSION_KEY,
// APPLE_TEAM_ID, APP_ATTEST, DATABASE_URL, …).
let configuration = try PasskeyBackendConfiguration.fromEnvironment()
let app = try await Application.make(.detect())

// SQLite in a file by default; PostgreSQL when DATABASE_URL is set.
if let url = configuration.databaseURL {
    app.databases.use(try .postgres(url: url), as: .psql)
} else {
    app.databases.use(.sqlite(.file("passkeys.sqlite")), as: .sqlite)
}
let passkeys = try Passkeys(
    configuration: configuration, stores: .fluent(app.databases, logger: app.logger), logger: app.logger)
try app.usePasskeys(passkeys)
try app.register(collection: PasskeyRoutes(passkeys))
app.get("healthz") { _ in "ok" }
// The application's own routes: the signed-in user (a session cookie or a bearer access token) is `Subject`.
let signedIn = app.grouped(PasskeyAuthenticator(passkeys))
signedIn.get("hello") { request -> String in
    let user = try request.auth.require(Subject.self)
    return "Signed in with a passkey at \(user.signedInAt)\n"
}

try await app.execute()
try await app.asyncShutdown()
