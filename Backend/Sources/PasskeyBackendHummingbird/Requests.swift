import Crypto
import Foundation
import Hummingbird
import NIOCore
import PasskeyBackend
import WebAuthnRP

extension Request {
    /// Reads at most `limit` bytes of a JSON body; more is 413, another content type 415.
    package func collectJSON(limit: Int) async throws -> Data {
        let type = headers[.contentType] ?? ""
        guard type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw AppError(.unsupportedMediaType, "Send JSON (Content-Type: application/json).")
        }
        return try await collectBody(limit: limit)
    }

    /// At most `limit` bytes of the body, whatever its type; more is 413. A body that does not
    /// arrive whole (shorter than its Content-Length, the client stopped sending) is 400: it is
    /// not too large, and a client told 413 would not send it again.
    package func collectBody(limit: Int) async throws -> Data {
        if let length = headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw AppError(.contentTooLarge, "The request is too large.")
        }
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: limit) } catch is NIOTooManyBytesError {
            throw AppError(.contentTooLarge, "The request is too large.")
        } catch {
            throw AppError(.badRequest, "The request body ended before it was complete.")
        }
        return Data(buffer.readableBytesView)
    }

    /// A small JSON body (options): at most 4 KiB, one object, read once by the library's strict
    /// reader, which refuses a duplicate member name in any object as it refuses one in a
    /// response (which of two values would count is not something to leave to a decoder). An
    /// empty body reads as `{}`; anything else is 400.
    package func smallJSONObject() async throws -> [String: JSONValue] {
        let data = try await collectJSON(limit: Limits.optionsBody)
        if data.isEmpty { return [:] }
        guard case .object(let members)? = try? JSONValue(jsonData: data) else {
            throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
        return members
    }
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

/// Cookies the browser keeps: HttpOnly, SameSite=Strict (the page and API are one origin),
/// Secure unless served on localhost.
package struct CookieFactory: Sendable {
    package let secure: Bool

    package func make(_ name: String, _ value: String, maxAge: Int = 300) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    package func expired(_ name: String) -> Cookie { make(name, "", maxAge: 0) }
}

/// A response and the cookies it sets.
package struct WithCookies<Body: ResponseGenerator>: ResponseGenerator {
    package var body: Body
    package var cookies: [Cookie]

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try body.response(from: request, context: context)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}
