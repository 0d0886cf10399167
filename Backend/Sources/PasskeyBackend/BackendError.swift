import HTTPTypes
import WebAuthnRP

/// An answer the backend gives instead of its result: the status and the text the client sees.
/// Every adapter turns it into its framework's response (`{"error": …}`, plus
/// `"reauthenticate": true` when a fresh passkey sign-in would help, and ``headers``).
package struct AppError: Error, Sendable {
    package let status: HTTPResponse.Status
    package let message: String
    /// The client should sign in again with a passkey and retry (a change that needs a recent sign-in).
    package let reauthenticate: Bool
    /// Extra response headers (`WWW-Authenticate` on a refused bearer token).
    package var headers: HTTPFields = [:]

    package init(_ status: HTTPResponse.Status, _ message: String, reauthenticate: Bool = false) {
        self.status = status
        self.message = message
        self.reauthenticate = reauthenticate
    }

    package static let unauthorized = AppError(.unauthorized, "Please sign in.")

    /// The library's refusal (or a store that failed: `serverFault`, 503) with its own status and
    /// client-safe text; the detail stays in the log.
    package init(_ error: WebAuthnError) {
        self.init(HTTPResponse.Status(code: error.httpStatus), error.clientMessage)
    }

    /// The body every adapter answers.
    package var body: ErrorBody { ErrorBody(error: message, reauthenticate: reauthenticate ? true : nil) }
}

/// `{"error": "…"}`, and `"reauthenticate": true` when a fresh sign-in would help.
package struct ErrorBody: Encodable, Sendable {
    package var error: String
    package var reauthenticate: Bool?
}

/// An RFC 6749 §5.2 error: `{"error": code, "error_description": …}`, never cached.
package struct OAuthError: Error, Sendable {
    package var status: HTTPResponse.Status = .badRequest
    package var code: String
    package var description: String

    package init(status: HTTPResponse.Status = .badRequest, code: String, description: String) {
        self.status = status
        self.code = code
        self.description = description
    }

    package static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_request", description: description)
    }
    package static func invalidGrant(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_grant", description: description)
    }

    /// The §5.2 body.
    package struct Body: Encodable, Sendable {
        package var error: String
        package var error_description: String
    }
    package var body: Body { Body(error: code, error_description: description) }
}
