import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import PasskeyBackend
import Vapor

/// The core's answers as Vapor responses: JSON as the Hummingbird adapter writes it.
enum Answer {
    static let encoder = JSONEncoder()

    /// JSON bytes as they are (the library's options, a document): `application/json`; what
    /// this adapter encodes says its charset, as Hummingbird's encoder does.
    static func json(
        _ data: Data, status: HTTPResponseStatus = .ok, cacheControl: String? = nil, contentType: String = "application/json"
    ) -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: contentType)
        if let cacheControl { headers.replaceOrAdd(name: .cacheControl, value: cacheControl) }
        return Response(status: status, headers: headers, body: .init(data: data))
    }

    /// `value` encoded as JSON.
    static func json(_ value: some Encodable, status: HTTPResponseStatus = .ok, cacheControl: String? = nil) throws -> Response {
        json(try encoder.encode(value), status: status, cacheControl: cacheControl, contentType: encodedType)
    }

    static let encodedType = "application/json; charset=utf-8"

    /// Tokens are never cached (RFC 6749 §5.1).
    static func tokens(_ tokens: TokenResponse) throws -> Response {
        let response = try json(tokens, cacheControl: "no-store")
        response.headers.replaceOrAdd(name: "Pragma", value: "no-cache")
        return response
    }

    /// An app's options and state (``PasskeyCeremonies/nativeOptionsAnswer(_:state:)``).
    static func options(_ options: Data, state: String) -> Response {
        json(PasskeyCeremonies.nativeOptionsAnswer(options, state: state))
    }
}

extension Response {
    /// Sets the core's cookies (``CookieRules``) as Vapor's.
    @discardableResult
    func setting(_ cookies: [CookieRules.SetCookie]) -> Response {
        for cookie in cookies {
            self.cookies[cookie.name] = HTTPCookies.Value(
                string: cookie.value, maxAge: cookie.maxAge, path: cookie.path, isSecure: cookie.secure,
                isHTTPOnly: cookie.httpOnly, sameSite: cookie.sameSiteStrict ? .strict : .lax)
        }
        return self
    }
}

/// The backend's refusal as Vapor's `AbortError`: the status, the client-safe reason, the headers,
/// and the JSON body every adapter answers (`{"error": …}` with `reauthenticate` when it helps;
/// RFC 6749 §5.2's form, never cached, for the token endpoints).
struct PasskeyAbort: AbortError {
    var status: HTTPResponseStatus
    var reason: String
    var headers: HTTPHeaders
    var body: Data

    init(_ error: AppError) {
        status = HTTPResponseStatus(statusCode: error.status.code)
        reason = error.message
        headers = HTTPHeaders()
        for field in error.headers { headers.add(name: field.name.rawName, value: field.value) }
        body = (try? JSONEncoder().encode(error.body)) ?? Data(#"{"error":"Something went wrong."}"#.utf8)
    }

    init(_ error: OAuthError) {
        status = HTTPResponseStatus(statusCode: error.status.code)
        reason = error.description
        headers = ["Cache-Control": "no-store", "Pragma": "no-cache"]
        body = (try? JSONEncoder().encode(error.body)) ?? Data(#"{"error":"invalid_request"}"#.utf8)
    }

    /// An answer the application or Vapor gave (404, a `Abort` of a route): the same JSON form.
    init(_ error: any AbortError) {
        var answer = PasskeyAbort(AppError(HTTPResponse.Status(code: Int(error.status.code)), error.reason))
        answer.headers.add(contentsOf: error.headers)
        self = answer
    }

    var response: Response {
        var headers = self.headers
        headers.replaceOrAdd(name: .contentType, value: Answer.encodedType)
        return Response(status: status, headers: headers, body: .init(data: body))
    }
}
