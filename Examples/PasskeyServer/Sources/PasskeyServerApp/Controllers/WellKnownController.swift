import Foundation
import Hummingbird
import NIOCore
import WebAuthnRP

/// The association files a native app and a browser fetch from the RP ID's host, made once at
/// start from configuration by the library's builders (a mistake stops the server from starting):
/// `/.well-known/apple-app-site-association` (iOS and macOS apps: `webcredentials`),
/// `/.well-known/assetlinks.json` (Android apps) and `/.well-known/webauthn` (related origins).
/// Each is served only when configured; all are `application/json`, answered directly (Apple's
/// CDN follows no redirect).
struct WellKnownController: Sendable {
    let appleAppSiteAssociation: Data?
    let assetLinks: Data?
    let relatedOrigins: Data?

    init(config: Config, relyingParty: RelyingParty) throws {
        do {
            appleAppSiteAssociation = config.appleApps.isEmpty ? nil : try relyingParty.appleAppSiteAssociation(apps: config.appleApps)
            assetLinks = config.androidApps.isEmpty ? nil : try relyingParty.assetLinks(apps: config.androidApps)
        } catch {
            // Apple apps report https://<rp id>: without it among ORIGINS their every ceremony fails.
            throw ConfigError("association files: \(error)")
        }
        do {
            relatedOrigins = try relyingParty.relatedOriginsDocument()
        } catch {
            throw ConfigError("ORIGINS: a related origin browsers would not honour: \(error)")
        }
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        if let appleAppSiteAssociation {
            router.get(".well-known/apple-app-site-association") { _, _ in Self.document(appleAppSiteAssociation) }
        }
        if let assetLinks {
            router.get(".well-known/assetlinks.json") { _, _ in Self.document(assetLinks) }
        }
        if let relatedOrigins {
            router.get(".well-known/webauthn") { _, _ in Self.document(relatedOrigins) }
        }
    }

    /// A public document, cacheable for an hour.
    static func document(_ data: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension WellKnownController {
    /// `/.well-known/jwks.json` (RFC 7517: the two published signing keys) and a minimal
    /// `/.well-known/openid-configuration`, so a third party verifies the access tokens with any
    /// JWT library.
    static func addTokenRoutes(to router: Router<AppRequestContext>, config: Config, tokens: TokenService) {
        router.get(".well-known/jwks.json") { _, _ in
            PublicDocument(body: try await tokens.jwks(now: Date()), maxAge: 300)
        }
        let base = config.tokenIssuer.hasSuffix("/") ? String(config.tokenIssuer.dropLast()) : config.tokenIssuer
        let discovery = Discovery(
            issuer: config.tokenIssuer, jwks_uri: base + "/.well-known/jwks.json",
            token_endpoint: base + "/oauth/token", revocation_endpoint: base + "/oauth/revoke")
        router.get(".well-known/openid-configuration") { _, _ in PublicDocument(body: discovery, maxAge: 3600) }
    }

    /// The discovery document: where the keys and endpoints are, and what they speak.
    struct Discovery: Encodable, Sendable {
        var issuer: String
        var jwks_uri: String
        var token_endpoint: String
        var revocation_endpoint: String
        var grant_types_supported = ["refresh_token"]
        var token_endpoint_auth_methods_supported = ["none"]
        var revocation_endpoint_auth_methods_supported = ["none"]
        var response_types_supported: [String] = []
        var subject_types_supported = ["public"]
        var id_token_signing_alg_values_supported = ["ES256"]
    }
}

/// A JSON document anyone may cache for `maxAge` seconds.
struct PublicDocument<Body: Encodable & Sendable>: ResponseGenerator {
    var body: Body
    var maxAge: Int

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(body, from: request, context: context)
        response.headers[.contentType] = "application/json"
        response.headers[.cacheControl] = "public, max-age=\(maxAge)"
        return response
    }
}
