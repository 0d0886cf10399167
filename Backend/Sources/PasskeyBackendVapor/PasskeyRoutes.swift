import Foundation
import PasskeyBackend
import Vapor

/// The passkey backend's routes, as the Hummingbird adapter's `addPasskeyRoutes` serves them
/// (the same paths, statuses, bodies and cookies):
///
/// - the web page's ceremonies under `/api` (`register/options|verify`, `login/options|verify`,
///   `token/login/verify`) with signed ceremony cookies and a session cookie;
/// - a native app's under `/native` (`register/options|finish`, `login/options|finish`), the
///   ceremony state in the body and RFC 6749 tokens back;
/// - the account under `/api` (`me`, `passkeys/:id`, `logout`, `logout-all`), for a session
///   cookie or a bearer access token;
/// - `/oauth/token` (refresh, rotated, reuse revokes the family) and `/oauth/revoke` (RFC 7009);
/// - `/.well-known/` JWKS, discovery and the configured association files;
/// - `/appattest/challenge|attest` unless App Attest is off, `/android/challenge|register`
///   unless Android key attestation is off, and the app's assertion (either platform's) on the
///   routes the core's list guards;
/// - the FIDO conformance tool's API when the configuration's conformance profile is on.
///
/// Register it with `app.register(collection: PasskeyRoutes(passkeys))`, after
/// `Application.usePasskeys(_:)` has installed the middleware every answer goes through.
public struct PasskeyRoutes: RouteCollection {
    let passkeys: Passkeys

    /// The routes of `passkeys`.
    ///
    /// - Parameter passkeys: The backend.
    public init(_ passkeys: Passkeys) { self.passkeys = passkeys }

    /// Adds the routes to `routes`.
    ///
    /// - Parameter routes: Where to add them (the application, or a group of it).
    /// - Throws: Nothing today; `RouteCollection` allows it.
    public func boot(routes: any RoutesBuilder) throws {
        let cookies = CookieRules(passkeys.config)
        let authentication = PasskeyAuthenticator(passkeys)
        let api = routes.grouped("api").grouped(authentication)
        let native = routes.grouped("native").grouped(authentication)
        let guards = { (path: String) in AppIntegrityMiddleware.guarding(path, appIntegrity: passkeys.appIntegrity) }
        WellKnownRoutes(passkeys: passkeys).addRoutes(to: routes)
        if let appAttest = passkeys.appAttest { AppAttestRoutes(appAttest: appAttest).addRoutes(to: routes.grouped("appattest")) }
        if let android = passkeys.android {
            AndroidKeyAttestationRoutes(android: android).addRoutes(to: routes.grouped("android"))
        }
        TokenRoutes(tokens: passkeys.tokens).addRoutes(to: routes.grouped("oauth"), guards: guards)
        WebCeremonyRoutes(ceremonies: passkeys.ceremonies, cookies: cookies).addRoutes(to: api, guards: guards)
        AccountRoutes(account: passkeys.account, cookies: cookies).addRoutes(to: api)
        NativeCeremonyRoutes(ceremonies: passkeys.ceremonies).addRoutes(to: native, guards: guards)
        if passkeys.config.conformance != nil {
            ConformanceRoutes(flows: ConformanceFlows(passkeys: passkeys, cookies: cookies)).addRoutes(to: routes)
        }
    }
}
