import Foundation
import HTTPTypes
import Hummingbird
import PasskeyBackend
import WebAuthnRP

// The core's answers as Hummingbird responses: JSON through the context's encoder.
extension PasskeyCeremonies.Registered: ResponseEncodable {}
extension PasskeyCeremonies.LoggedIn: ResponseEncodable {}
extension AccountFlows.Account: ResponseEncodable {}
extension AccountFlows.Deleted: ResponseEncodable {}
extension AccountFlows.LoggedOut: ResponseEncodable {}
extension AccountFlows.Renamed: ResponseEncodable {}
extension AppIntegrity.Challenge: ResponseEncodable {}

/// Tokens are never cached (RFC 6749 §5.1).
extension TokenResponse: ResponseGenerator {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(self, from: request, context: context)
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("Pragma")!] = "no-cache"
        return response
    }
}

/// 201: the key is stored.
extension AppAttest.Attested: ResponseGenerator {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        try created(self, request: request, context: context)
    }
}

/// 201: the key is stored.
extension AndroidKeyAttestation.Registered: ResponseGenerator {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        try created(self, request: request, context: context)
    }
}

/// `value` as JSON with 201 Created.
private func created(_ value: some Encodable, request: Request, context: some RequestContext) throws -> Response {
    var response = try context.responseEncoder.encode(value, from: request, context: context)
    response.status = .created
    return response
}

extension AppError: HTTPResponseError {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(body, from: request, context: context)
        response.status = status
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// RFC 6749 §5.2, never cached.
extension OAuthError: HTTPResponseError {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(body, from: request, context: context)
        response.status = status
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("Pragma")!] = "no-cache"
        return response
    }
}
