import Foundation
import NIOCore
import PasskeyBackend
import Vapor
import WebAuthnRP

// The body rules are the core's (`JSONBody`), shared with every adapter; this reads the bytes.
extension Request {
    /// Reads at most `limit` bytes of a JSON body; more is 413, another content type 415.
    func collectJSON(limit: Int) async throws -> Data {
        try JSONBody.requireJSONType(headers.first(name: .contentType))
        return try await collectBody(limit: limit)
    }

    /// At most `limit` bytes of the body, whatever its type; more is 413, a body that does not
    /// arrive whole 400. The bytes stay collected on the request, so a guard that hashed them
    /// hands the same body on to the route.
    func collectBody(limit: Int) async throws -> Data {
        try JSONBody.checkDeclaredLength(headers.first(name: .contentLength), limit: limit)
        let buffer: ByteBuffer?
        do {
            buffer = try await eventLoop.flatSubmit { self.body.collect(max: limit) }.get()
        } catch let error as any AbortError where error.status == .payloadTooLarge {
            throw JSONBody.tooLarge
        } catch {
            throw JSONBody.cutShort
        }
        // A body that arrived with its head is already collected, whatever its size.
        guard let buffer else { return Data() }
        guard buffer.readableBytes <= limit else { throw JSONBody.tooLarge }
        return Data(buffer.readableBytesView)
    }

    /// A small JSON body (options): at most 4 KiB, one object, read by the strict reader.
    func smallJSONObject() async throws -> [String: JSONValue] {
        try JSONBody.smallObject(try await collectJSON(limit: Limits.optionsBody))
    }

    /// The backend's cookies, read from the `Cookie` headers once per request.
    var passkeyCookies: RequestCookies {
        if let cookies = storage[PasskeyCookiesKey.self] { return cookies }
        let cookies = RequestCookies(headers: headers[.cookie])
        storage[PasskeyCookiesKey.self] = cookies
        return cookies
    }

    /// The signed-in subject (``PasskeyAuthenticator``), or 401.
    func requireSubject() throws -> Subject {
        guard let subject = auth.get(Subject.self) else { throw AppError.unauthorized }
        return subject
    }

    /// The app key (App Attest or Android) whose assertion over this request verified (set by
    /// the route's guard), which a sign-in's token family is bound to.
    var appKey: AppKey? {
        get { storage[AppKeyKey.self] }
        set { storage[AppKeyKey.self] = newValue }
    }
}

struct PasskeyCookiesKey: StorageKey { typealias Value = RequestCookies }
struct AppKeyKey: StorageKey { typealias Value = AppKey }

extension RoutesBuilder {
    /// `POST path` whose body the route reads itself (``Request/collectBody(limit:)``: the core's
    /// limits, not Vapor's default), behind `guard` when there is one: the guard is the route's own
    /// middleware, so the router's match decides when it runs.
    @discardableResult
    func post(
        _ path: PathComponent..., guardedBy guard: (any AsyncMiddleware)? = nil,
        use handler: @Sendable @escaping (Request) async throws -> Response
    ) -> Route {
        let builder: any RoutesBuilder = `guard`.map { grouped($0) } ?? self
        return builder.on(.POST, path, body: .stream, use: handler)
    }
}
