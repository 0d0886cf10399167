import HTTPTypes
import WebAuthnRP

/// The browser's cross-site (CSRF) rule, for every adapter: a request that changes state
/// (anything but GET and HEAD) from a browser must come from one of our origins. `Origin`, when
/// sent, is one of ORIGINS by the verifier's own rule (`RelyingParty.isAllowedOrigin(_:)`:
/// ORIGINS written as `https://Example.org:443` still match the `https://example.org` a browser
/// sends), and `Sec-Fetch-Site`, when sent, says same-origin (or none: typed by the user). Clients
/// that send neither (native apps, curl) are not browsers and carry no victim's cookie; every
/// cookie-authenticated POST must also be JSON, which no cross-site form can send.
package enum SameOrigin {
    /// Throws 403 for a state-changing request from another site.
    package static func check(method: String, origin: String?, secFetchSite: String?, relyingParty: RelyingParty) throws {
        guard method != "GET", method != "HEAD" else { return }
        if let origin, !relyingParty.isAllowedOrigin(origin) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
        if let site = secFetchSite, !["same-origin", "none"].contains(site.lowercased()) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
    }
}
