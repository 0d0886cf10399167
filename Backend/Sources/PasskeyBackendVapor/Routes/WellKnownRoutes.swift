import Foundation
import PasskeyBackend
import Vapor

/// The association files (`/.well-known/apple-app-site-association`, `assetlinks.json`,
/// `webauthn`: each only when configured), the token issuer's `/.well-known/jwks.json` and
/// `/.well-known/openid-configuration`: `application/json`, answered directly, cacheable.
struct WellKnownRoutes: Sendable {
    let passkeys: Passkeys

    func addRoutes(to routes: any RoutesBuilder) {
        let documents = passkeys.documents
        let files: [(String, Data?)] = [
            ("apple-app-site-association", documents.appleAppSiteAssociation), ("assetlinks.json", documents.assetLinks),
            ("webauthn", documents.relatedOrigins),
        ]
        for case (let name, let file?) in files {
            routes.get(".well-known", .constant(name)) { _ in Answer.json(file, cacheControl: "public, max-age=3600") }
        }
        let tokens = passkeys.tokens
        routes.get(".well-known", "jwks.json") { _ in
            Answer.json(try Answer.encoder.encode(try await tokens.jwks(now: Date())), cacheControl: "public, max-age=300")
        }
        routes.get(".well-known", "openid-configuration") { _ in
            Answer.json(try Answer.encoder.encode(documents.discovery), cacheControl: "public, max-age=3600")
        }
    }
}
