import Foundation
import Hummingbird
import PasskeyBackend

extension Router where Context == PasskeyRequestContext {
    /// Adds the passkey backend's routes and the middleware they share:
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
    ///   unless Android key attestation is off, and the app's assertion (either platform's) on
    ///   token issuance and refresh and on an app adding a passkey;
    /// - the FIDO conformance tool's API when the configuration's conformance profile is on.
    ///
    /// Every answer is `no-store` unless it says otherwise; a browser's state-changing request
    /// must come from one of the configured origins.
    ///
    /// - Parameter passkeys: The backend.
    public func addPasskeyRoutes(_ passkeys: Passkeys) {
        let config = passkeys.config
        middlewares.add(ResponseHeadersMiddleware())
        middlewares.add(ErrorLoggingMiddleware(nodeName: config.nodeName))
        // The browser's cross-site (CSRF) check. A conformance run is driven by the test tool, which
        // posts from its own origin (an Electron app's `null`/`file://`, or none) and holds no one's
        // session worth forging, so that in-memory, test-only server goes without it.
        if config.conformance == nil { middlewares.add(SameOriginMiddleware(relyingParty: passkeys.relyingParty)) }
        WellKnownRoutes(passkeys: passkeys).addRoutes(to: self)
        let cookies = CookieRules(config)
        let authentication = PasskeyAuthenticator(passkeys)
        let api = group("api").add(middleware: authentication)
        let native = group("native").add(middleware: authentication)
        // The assertion guards are the guarded routes' own middleware (the router's match decides):
        // every request that issues or refreshes tokens, or adds an app's passkey, is asked.
        if let appAttest = passkeys.appAttest { AppAttestRoutes(appAttest: appAttest).addRoutes(to: group("appattest")) }
        if let android = passkeys.android { AndroidKeyAttestationRoutes(android: android).addRoutes(to: group("android")) }
        // Which routes are guarded, and how, is the core's list (AppIntegrityCoverage).
        let guards = AppIntegrityGuards(appIntegrity: passkeys.appIntegrity)
        TokenRoutes(tokens: passkeys.tokens).addRoutes(to: group("oauth"), guards: guards)
        WebCeremonyRoutes(passkeys: passkeys, cookies: cookies).addRoutes(to: api, guards: guards)
        AccountRoutes(account: passkeys.account, cookies: cookies).addRoutes(to: api)
        NativeCeremonyRoutes(ceremonies: passkeys.ceremonies).addRoutes(to: native, guards: guards)
        if config.conformance != nil {
            ConformanceRoutes(flows: ConformanceFlows(passkeys: passkeys, cookies: cookies)).addRoutes(to: self)
        }
    }
}
