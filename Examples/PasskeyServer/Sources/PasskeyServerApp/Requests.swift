import Crypto
import Foundation
import Hummingbird
import NIOCore
import WebAuthnRP

extension Request {
    /// Reads at most `limit` bytes of a JSON body; more is 413, another content type 415.
    func collectJSON(limit: Int) async throws -> Data {
        let type = headers[.contentType] ?? ""
        guard type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw AppError(.unsupportedMediaType, "Send JSON (Content-Type: application/json).")
        }
        return try await collectBody(limit: limit)
    }

    /// At most `limit` bytes of the body, whatever its type; more is 413. A body that does not
    /// arrive whole (shorter than its Content-Length, the client stopped sending) is 400: it is
    /// not too large, and a client told 413 would not send it again.
    func collectBody(limit: Int) async throws -> Data {
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
    func smallJSONObject() async throws -> [String: JSONValue] {
        let data = try await collectJSON(limit: Limits.optionsBody)
        if data.isEmpty { return [:] }
        guard case .object(let members)? = try? JSONValue(jsonData: data) else {
            throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
        return members
    }
}

extension [String: JSONValue] {
    /// The string member `name`; nil when it is absent or null, 400 when it is another kind.
    func optionalString(_ name: String) throws -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
    }
}

/// Body sizes and lifetimes every controller shares.
enum Limits {
    /// Options requests are tiny; a response with attestation and extensions fits 64 KiB.
    static let optionsBody = 4_096
    static let responseBody = 65_536
    static let sessionLifetime: TimeInterval = 12 * 3600
    /// Passkeys per page of the list (`limit` may ask for up to the per-account cap).
    static let pageSize = 10
}

/// The web page's session cookie: 32 random bytes, base64url; the session row is keyed by
/// their SHA-256, so a copy of the table signs nobody in.
enum SessionCookie {
    static let name = "pk_session"

    /// The token the request's cookie carries; anything malformed names no session.
    static func token(_ request: Request) -> [UInt8]? {
        guard let value = request.cookies[name]?.value, value.utf8.count == 43,
            let token = try? Base64URLBytes(base64URL: value, member: "session").bytes, token.count == 32
        else { return nil }
        return token
    }

    static func id(_ token: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: token)) }
}

/// The JSON the library made (passkey options), sent as it is.
struct RawJSON: ResponseGenerator {
    let data: Data
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Cookies the browser keeps: HttpOnly, SameSite=Strict (the page and API are one origin),
/// Secure unless served on localhost.
struct CookieFactory: Sendable {
    let secure: Bool

    func make(_ name: String, _ value: String, maxAge: Int = 300) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func expired(_ name: String) -> Cookie { make(name, "", maxAge: 0) }
}

/// A response and the cookies it sets.
struct WithCookies<Body: ResponseGenerator>: ResponseGenerator {
    var body: Body
    var cookies: [Cookie]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try body.response(from: request, context: context)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}
