import HTTPTypes
import PasskeyBackend
import Vapor
import WebAuthnRP

/// Logs the detail of every failure (the client sees only the error's client-safe text) and
/// answers it in the backend's JSON form (``PasskeyAbort``): the library's refusal with its status
/// and client-safe text, the core's errors as they are, any other `AbortError` (a 404, an
/// application route's `Abort`) with its status and reason, and anything else as a 500.
struct ErrorAnswerMiddleware: AsyncMiddleware {
    let nodeName: String

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch {
            return answer(error, logger: request.logger).response
        }
    }

    func answer(_ error: any Error, logger: Logger) -> PasskeyAbort {
        switch error {
        case let error as WebAuthnError where error.category == .serverFault:
            logger.error("store", metadata: ["node": "\(nodeName)", "error": "\(error)"])
            return PasskeyAbort(AppError(error))
        case let error as WebAuthnError:
            logger.notice("ceremony refused", metadata: ["node": "\(nodeName)", "error": "\(error)"])
            return PasskeyAbort(AppError(error))
        case let error as AppError: return PasskeyAbort(error)
        case let error as OAuthError: return PasskeyAbort(error)
        case let error as PasskeyAbort: return error
        case let error as any AbortError: return PasskeyAbort(error)
        default:
            logger.error("unexpected", metadata: ["node": "\(nodeName)", "error": "\(String(reflecting: error))"])
            return PasskeyAbort(AppError(.internalServerError, "Something went wrong."))
        }
    }
}

/// Every answer is `Cache-Control: no-store` unless it says otherwise (passkey options, tokens,
/// account data), says `X-Content-Type-Options: nosniff` (a browser takes each body for its
/// declared type only), and the page may load only its own script.
struct ResponseHeadersMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        if !response.headers.contains(name: .cacheControl) { response.headers.replaceOrAdd(name: .cacheControl, value: "no-store") }
        response.headers.replaceOrAdd(name: .xContentTypeOptions, value: "nosniff")
        if !response.headers.contains(name: .contentSecurityPolicy) {
            response.headers.replaceOrAdd(
                name: .contentSecurityPolicy, value: "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
        }
        return response
    }
}

/// The core's same-origin (CSRF) rule on every route: a state-changing request from a browser
/// of another site is 403 before any route runs.
struct SameOriginMiddleware: AsyncMiddleware {
    let relyingParty: RelyingParty

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        try SameOrigin.check(
            method: request.method.rawValue, origin: request.headers.first(name: .origin),
            secFetchSite: request.headers.first(name: "Sec-Fetch-Site"), relyingParty: relyingParty)
        return try await next.respond(to: request)
    }
}
