import Foundation
import Hummingbird
import NIOCore
import PasskeyBackend
import WebAuthnRP

/// The association files (`/.well-known/apple-app-site-association`, `assetlinks.json`,
/// `webauthn`: each only when configured), the token issuer's `/.well-known/jwks.json` (RFC
/// 7517: the two published signing keys) and `/.well-known/openid-configuration`. All are
/// `application/json`, answered directly (Apple's CDN follows no redirect).
struct WellKnownRoutes: Sendable {
    let passkeys: Passkeys

    func addRoutes(to router: Router<PasskeyRequestContext>) {
        let documents = passkeys.documents
        if let file = documents.appleAppSiteAssociation {
            router.get(".well-known/apple-app-site-association") { _, _ in Self.document(file) }
        }
        if let file = documents.assetLinks {
            router.get(".well-known/assetlinks.json") { _, _ in Self.document(file) }
        }
        if let file = documents.relatedOrigins {
            router.get(".well-known/webauthn") { _, _ in Self.document(file) }
        }
        let tokens = passkeys.tokens
        router.get(".well-known/jwks.json") { _, _ in PublicDocument(body: try await tokens.jwks(now: Date()), maxAge: 300) }
        router.get(".well-known/openid-configuration") { _, _ in PublicDocument(body: documents.discovery, maxAge: 3600) }
    }

    /// A public document, cacheable for an hour.
    static func document(_ data: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
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
