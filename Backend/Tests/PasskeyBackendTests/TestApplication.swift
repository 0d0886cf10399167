import Foundation
import Hummingbird
import Logging
import PasskeyBackend
import PasskeyBackendHummingbird

/// What the in-process tests change in the application they build.
struct TestingOptions {
    /// Every login's write waits this long first (``PasskeyStores/delayingLoginWrites(by:)``).
    var updateDelay: Duration?
    /// The stores (nil: in memory), migrated by the caller.
    var stores: PasskeyStores?
}

/// The application a team builds from the package, in memory (or on `testing.stores`): the passkey routes, and one route
/// of the application's own (`/healthz`) beside them, which gets the same shared headers.
func buildApplication(
    _ config: PasskeyBackendConfiguration, logger: Logger, testing: TestingOptions = .init()
) async throws -> some ApplicationProtocol {
    var stores = testing.stores ?? PasskeyStores.memory()
    if let delay = testing.updateDelay { stores = stores.delayingLoginWrites(by: delay) }
    let passkeys = try Passkeys(configuration: config, stores: stores, logger: logger)
    let router = Router(context: PasskeyRequestContext.self)
    router.addPasskeyRoutes(passkeys)
    router.get("/healthz") { _, _ in ["status": "ok", "node": config.nodeName] }
    // An application route that decodes its body with the context's decoder.
    router.post("/echo") { request, context in try await request.decode(as: [String: String].self, context: context) }
    return buildPasskeyApplication(router: router, passkeys: passkeys, logger: logger)
}
