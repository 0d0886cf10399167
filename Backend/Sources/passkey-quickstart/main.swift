import Foundation
import Hummingbird
import Logging
import PasskeyBackend
import PasskeyBackendHummingbird
import PasskeyBackendPostgres
import ServiceLifecycle

// Passkey sign-in for the web and for apps, with tokens, refresh, revocation, JWKS and
// App Attest: everything is configured from the environment (RP_ID, ORIGINS, SESSION_KEY,
// APPLE_TEAM_ID, APP_ATTEST, DATABASE_URL, …).
let logger = Logger(label: "server")
let configuration = try PasskeyBackendConfiguration.fromEnvironment()

// In memory by default; on PostgreSQL when DATABASE_URL is set.
var stores = PasskeyStores.memory()
var services: [any Service] = []
if configuration.databaseURL != nil {
    let (postgres, connections) = try PasskeyStores.postgres(configuration: configuration, logger: logger)
    stores = postgres
    services.append(connections)
}
let passkeys = try Passkeys(configuration: configuration, stores: stores, logger: logger)

let router = Router(context: PasskeyRequestContext.self)
router.addPasskeyRoutes(passkeys)
router.get("healthz") { _, _ in "ok" }
// The application's own routes: the signed-in user (a session cookie or a bearer access token) is `context.identity`.
let signedIn = router.group().add(middleware: PasskeyAuthenticator(passkeys))
signedIn.get("hello") { _, context -> String in
    guard let user = context.identity else { throw HTTPError(.unauthorized) }
    return "Signed in with a passkey at \(user.signedInAt)\n"
}

let app = buildPasskeyApplication(router: router, passkeys: passkeys, services: services, logger: logger)
try await runPasskeyServer(app, config: configuration, logger: logger)
