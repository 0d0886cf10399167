import HTTPTypes
import Hummingbird
import PasskeyBackend
import WebAuthnRP

/// A request that changes state (anything but GET and HEAD) from a browser must come from one
/// of our origins: `Origin`, when sent, is one of ORIGINS by the verifier's own rule
/// (``RelyingParty/isAllowedOrigin(_:)``: ORIGINS written as `https://Example.org:443` still match
/// the `https://example.org` a browser sends), and `Sec-Fetch-Site`, when sent, says
/// same-origin (or none: typed by the user). Clients that send neither (native apps, curl) are
/// not browsers and carry no victim's cookie; every cookie-authenticated POST must also be JSON
/// (``Request/collectJSON(limit:)``), which no cross-site form can send.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let relyingParty: RelyingParty

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        if let origin = request.headers[.origin], !relyingParty.isAllowedOrigin(origin) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
        if let site = request.headers[Self.secFetchSite], !["same-origin", "none"].contains(site.lowercased()) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
        return try await next(request, context)
    }

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }
}
