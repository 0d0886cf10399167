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
            relatedOrigins = relyingParty.relatedOrigins.isEmpty ? nil : try relyingParty.relatedOriginsDocument().jsonData
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
