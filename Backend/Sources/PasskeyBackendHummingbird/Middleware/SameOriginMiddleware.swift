import HTTPTypes
import Hummingbird
import PasskeyBackend
import WebAuthnRP

/// The core's same-origin (CSRF) rule on every route: a state-changing request from a browser
/// of another site is 403 before any route runs.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let relyingParty: RelyingParty

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try SameOrigin.check(
            method: request.method.rawValue, origin: request.headers[.origin], secFetchSite: request.headers[Self.secFetchSite],
            relyingParty: relyingParty)
        return try await next(request, context)
    }

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }
}
