import Foundation
import WebAuthnRP

/// The association files a native app and a browser fetch from the RP ID's host, made once at
/// start from configuration by the library's builders (a mistake stops the server from
/// starting): `apple-app-site-association` (iOS and macOS apps: `webcredentials`),
/// `assetlinks.json` (Android apps) and `webauthn` (related origins), each only when
/// configured; and the token issuer's discovery document.
package struct WellKnownDocuments: Sendable {
    package let appleAppSiteAssociation: Data?
    package let assetLinks: Data?
    package let relatedOrigins: Data?
    package let discovery: Discovery

    package init(config: PasskeyBackendConfiguration, relyingParty: RelyingParty) throws {
        do {
            appleAppSiteAssociation = config.appleApps.isEmpty ? nil : try relyingParty.appleAppSiteAssociation(apps: config.appleApps)
            assetLinks = config.androidApps.isEmpty ? nil : try relyingParty.assetLinks(apps: config.androidApps)
        } catch {
            // Apple apps report https://<rp id>: without it among ORIGINS their every ceremony fails.
            throw ConfigurationError("association files: \(error)")
        }
        do {
            relatedOrigins = try relyingParty.relatedOriginsDocument()
        } catch {
            throw ConfigurationError("ORIGINS: a related origin browsers would not honour: \(error)")
        }
        let base = config.tokenIssuer.hasSuffix("/") ? String(config.tokenIssuer.dropLast()) : config.tokenIssuer
        discovery = Discovery(
            issuer: config.tokenIssuer, jwks_uri: base + "/.well-known/jwks.json",
            token_endpoint: base + "/oauth/token", revocation_endpoint: base + "/oauth/revoke")
    }

    /// The discovery document (`/.well-known/openid-configuration`): where the keys and
    /// endpoints are, and what they speak, so a third party verifies the access tokens with any
    /// JWT library.
    package struct Discovery: Encodable, Sendable {
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
