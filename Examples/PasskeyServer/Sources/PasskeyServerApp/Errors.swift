import Foundation
import HTTPTypes
import Hummingbird
import WebAuthnRP

/// An error the example raises itself, with the status and text the client sees. Thrown from
/// any handler or middleware; Hummingbird's router turns it into its response.
struct AppError: HTTPResponseError, Sendable {
    let status: HTTPResponse.Status
    let message: String
    /// The client should sign in again with a passkey and retry (a change that needs a recent sign-in).
    let reauthenticate: Bool
    /// Extra response headers (`WWW-Authenticate` on a refused bearer token).
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, reauthenticate: Bool = false) {
        self.status = status
        self.message = message
        self.reauthenticate = reauthenticate
    }

    static let unauthorized = AppError(.unauthorized, "Please sign in.")

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try ErrorBody(error: message, reauthenticate: reauthenticate ? true : nil)
            .response(from: request, context: context)
        response.status = status
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// `{"error": "…"}`, and `"reauthenticate": true` when a fresh sign-in would help.
struct ErrorBody: ResponseEncodable {
    var error: String
    var reauthenticate: Bool?
}

/// A ceremony the library refused, or a store that failed (`serverFault`, 503): its own status
/// and client-safe text (the detail is logged by ``ErrorLoggingMiddleware``).
// An application (not a library) may conform the library's error to Hummingbird's protocol.
// swift-format-ignore: AvoidRetroactiveConformances
extension WebAuthnError: @retroactive HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: httpStatus) }
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try AppError(status, clientMessage).response(from: request, context: context)
    }
}
