import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import PasskeyBackend
import PasskeyBackendHummingbird
import PasskeyBackendVapor
import Testing
import Vapor
import VaporTesting

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

/// The two adapters over one backend. The route tests run against each, with one set of
/// checks and helpers (``Client``, `NativeTests.signUp`, …), so the adapters cannot drift: the
/// Vapor application is driven through Vapor's testing module, behind the same test client.
enum Adapter: String, CaseIterable, CustomTestStringConvertible {
    case hummingbird, vapor

    var testDescription: String { rawValue }

    /// Runs `body` with a client of a new in-memory application under `config`. `setup` is how
    /// Hummingbird's application is driven (through its router, or live over HTTP); Vapor's is
    /// driven in memory by Vapor's testing module.
    func test<Value: Sendable>(
        _ config: PasskeyBackendConfiguration = AppTests.config(), setup: TestingSetup = .router,
        _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        switch self {
        case .hummingbird:
            return try await buildApplication(config, logger: logger).test(setup, body)
        case .vapor:
            let app = try await Vapor.Application.make(.testing)
            app.logger = logger
            do {
                let passkeys = try Passkeys(configuration: config, stores: .memory(), logger: logger)
                try app.usePasskeys(passkeys)
                try app.register(collection: PasskeyRoutes(passkeys))
                app.get("healthz") { _ in ["status": "ok", "node": config.nodeName] }
                // An application route that decodes its body with the installed decoder.
                app.post("echo") { request in try request.content.decode([String: String].self) }
                try await app.asyncBoot()
                let value = try await VaporUnderTest(app: app).test(.router, body)
                try await app.asyncShutdown()
                return value
            } catch {
                try await app.asyncShutdown()
                throw error
            }
        }
    }
}

/// A Vapor application behind Hummingbird's test client: each request is handed to Vapor's
/// testing module in memory (`app.testing().performTest`), and its answer back as it is.
struct VaporUnderTest: ApplicationProtocol {
    let app: Vapor.Application

    var responder: some HTTPResponder<BasicRequestContext> {
        let app = app
        return CallbackResponder { (request: Hummingbird.Request, _: BasicRequestContext) in
            var headers = NIOHTTP1.HTTPHeaders()
            for field in request.headers { headers.add(name: field.name.rawName, value: field.value) }
            let body = try await request.body.collect(upTo: 1 << 20)
            let answer = try await app.testing().performTest(
                request: TestingHTTPRequest(
                    method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), url: URI(string: request.uri.description),
                    headers: headers, body: body))
            var fields = HTTPFields()
            for (name, value) in answer.headers {
                guard let name = HTTPField.Name(name) else { continue }
                fields.append(HTTPField(name: name, value: value))
            }
            return Hummingbird.Response(
                status: HTTPResponse.Status(code: Int(answer.status.code)), headers: fields,
                body: ResponseBody(byteBuffer: answer.body))
        }
    }
}
