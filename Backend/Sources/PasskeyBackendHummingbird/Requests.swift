import Foundation
import Hummingbird
import NIOCore
import PasskeyBackend
import WebAuthnRP

// The body rules are the core's (`JSONBody`), shared with every adapter; this reads the bytes.
extension Request {
    /// Reads at most `limit` bytes of a JSON body; more is 413, another content type 415.
    package func collectJSON(limit: Int) async throws -> Data {
        try JSONBody.requireJSONType(headers[.contentType])
        return try await collectBody(limit: limit)
    }

    /// At most `limit` bytes of the body, whatever its type; more is 413, a body that does not
    /// arrive whole 400.
    package func collectBody(limit: Int) async throws -> Data {
        try JSONBody.checkDeclaredLength(headers[.contentLength], limit: limit)
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: limit) } catch is NIOTooManyBytesError {
            throw JSONBody.tooLarge
        } catch {
            throw JSONBody.cutShort
        }
        return Data(buffer.readableBytesView)
    }

    /// A small JSON body (options): at most 4 KiB, one object, read by the strict reader.
    package func smallJSONObject() async throws -> [String: JSONValue] {
        try JSONBody.smallObject(try await collectJSON(limit: Limits.optionsBody))
    }

    /// The backend's cookies, read from the `Cookie` headers.
    package var passkeyCookies: RequestCookies { RequestCookies(headers: headers[values: .cookie]) }
}

/// The JSON the library made (passkey options), sent as it is.
package struct RawJSON: ResponseGenerator {
    package let data: Data
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Cookie {
    /// The core's cookie (``CookieRules``) as Hummingbird's.
    package init(_ cookie: CookieRules.SetCookie) {
        self.init(
            name: cookie.name, value: cookie.value, maxAge: cookie.maxAge, path: cookie.path, secure: cookie.secure,
            httpOnly: cookie.httpOnly, sameSite: .strict)
    }
}

/// A response and the cookies it sets.
package struct WithCookies<Body: ResponseGenerator>: ResponseGenerator {
    package var body: Body
    package var cookies: [CookieRules.SetCookie]

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try body.response(from: request, context: context)
        for cookie in cookies { response.setCookie(Cookie(cookie)) }
        return response
    }
}
