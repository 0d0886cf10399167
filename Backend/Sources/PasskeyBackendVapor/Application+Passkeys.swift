import Foundation
import PasskeyBackend
import Vapor

extension Application {
    /// Makes the application a passkey server under `passkeys`' configuration: serves on its host
    /// and port with its idle timeout, reads request bodies with ``StrictJSONContentDecoder``, answers
    /// every error in the backend's JSON form with the shared response headers (`no-store` unless
    /// a route says otherwise, `nosniff`, the page's content security policy), refuses a
    /// browser's cross-site state-changing request, and brings the stores' schema up to date
    /// before the server accepts requests. The routes are ``PasskeyRoutes``:
    ///
    /// ```swift
    /// try app.usePasskeys(passkeys)
    /// try app.register(collection: PasskeyRoutes(passkeys))
    /// ```
    ///
    /// - Parameter passkeys: The backend.
    /// - Throws: Nothing today; kept so a check at start can refuse to serve.
    public func usePasskeys(_ passkeys: Passkeys) throws {
        let config = passkeys.config
        http.server.configuration.hostname = config.host
        http.server.configuration.port = config.port
        http.server.configuration.idleTimeout = .seconds(config.idleTimeout)
        http.server.configuration.serverName = "passkey-server"
        // Request bodies are JSON, read strictly, on the application's routes too.
        for type in [HTTPMediaType.json, .jsonAPI, .plainText, .urlEncodedForm, .formData] {
            ContentConfiguration.global.use(decoder: StrictJSONContentDecoder(), for: type)
        }
        // Inside Vapor's own error middleware: these answer every error before it would.
        middleware.use(ResponseHeadersMiddleware())
        middleware.use(ErrorAnswerMiddleware(nodeName: config.nodeName))
        // The browser's cross-site (CSRF) check; a conformance run (the test tool posts from its
        // own origin) goes without it, as in the Hummingbird adapter.
        if config.conformance == nil { middleware.use(SameOriginMiddleware(relyingParty: passkeys.relyingParty)) }
        lifecycle.use(PrepareStores(passkeys: passkeys))
    }
}

/// Runs the stores' migrations before the server accepts requests.
struct PrepareStores: LifecycleHandler {
    let passkeys: Passkeys

    func willBootAsync(_ application: Application) async throws {
        try await passkeys.prepareStores()
    }
}
