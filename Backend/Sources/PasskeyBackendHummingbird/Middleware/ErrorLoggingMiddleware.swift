import HTTPTypes
import Hummingbird
import Logging
import PasskeyBackend
import WebAuthnRP

/// Logs the detail of every failure (the client sees only the error's client-safe text) and
/// turns the library's refusal into its status and client-safe text, and an error that is not
/// an ``HTTPResponseError`` into a 500 with a JSON body.
struct ErrorLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    let nodeName: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as WebAuthnError where error.category == .serverFault {
            context.logger.error("store", metadata: ["node": "\(nodeName)", "error": "\(error)"])
            throw AppError(error)
        } catch let error as WebAuthnError {
            context.logger.notice("ceremony refused", metadata: ["node": "\(nodeName)", "error": "\(error)"])
            throw AppError(error)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            context.logger.error("unexpected", metadata: ["node": "\(nodeName)", "error": "\(String(reflecting: error))"])
            throw AppError(.internalServerError, "Something went wrong.")
        }
    }
}

/// Every answer is `Cache-Control: no-store` unless it says otherwise (passkey options, tokens,
/// account data), says `X-Content-Type-Options: nosniff` (a browser takes each body for its
/// declared type only), and the page may load only its own script.
struct ResponseHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        response.headers[Self.contentTypeOptions] = "nosniff"
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"
        }
        return response
    }

    static var contentTypeOptions: HTTPField.Name { HTTPField.Name("X-Content-Type-Options")! }
}
