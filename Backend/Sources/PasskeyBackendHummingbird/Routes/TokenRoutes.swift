import Foundation
import Hummingbird
import PasskeyBackend

/// The OAuth endpoints an app's client library already speaks: `POST /oauth/token` with
/// `grant_type=refresh_token` (RFC 6749 §6; answers §5.1, errors §5.2) and `POST /oauth/revoke`
/// (RFC 7009). Both take `application/x-www-form-urlencoded` bodies, as the RFCs say. Apps are
/// public clients (no client secret: RFC 8252 §8.4); the refresh token is the credential.
struct TokenRoutes: Sendable {
    let tokens: TokenService

    /// `appAttest`: the token refresh's App Attest guard (nil when App Attest is off).
    package func addRoutes(to group: RouterGroup<PasskeyRequestContext>, appAttest: AppAttestMiddleware? = nil) {
        group.post("token", guardedBy: appAttest, use: token)
        group.post("revoke", use: revoke)
    }

    @Sendable package func token(_ request: Request, context: PasskeyRequestContext) async throws -> TokenResponse {
        let form = try await Self.form(request)
        guard let grant = form["grant_type"] else { throw OAuthError.invalidRequest("grant_type is missing.") }
        guard grant == "refresh_token" else {
            throw OAuthError(code: "unsupported_grant_type", description: "Only grant_type=refresh_token is supported here.")
        }
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            throw OAuthError.invalidRequest("refresh_token is missing.")
        }
        return try await tokens.refresh(refreshToken, appAttestKeyId: context.appAttestKeyId, now: Date())
    }

    /// Always 200 for a well-formed request, whether the token was known (RFC 7009 §2.2).
    @Sendable package func revoke(_ request: Request, context: PasskeyRequestContext) async throws -> Response {
        let form = try await Self.form(request)
        guard let token = form["token"], !token.isEmpty else { throw OAuthError.invalidRequest("token is missing.") }
        try await tokens.revoke(token, now: Date())
        var response = Response(status: .ok)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// An `application/x-www-form-urlencoded` body of at most 4 KiB: a parameter given twice,
    /// or bytes that are not the form encoding, are `invalid_request` (RFC 6749 §3.1).
    package static func form(_ request: Request) async throws -> [String: String] {
        let type = request.headers[.contentType] ?? ""
        guard
            type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                == "application/x-www-form-urlencoded"
        else {
            throw OAuthError.invalidRequest("Send application/x-www-form-urlencoded.")
        }
        let body: Data
        do { body = try await request.collectBody(limit: Limits.optionsBody) } catch let error as AppError {
            throw OAuthError.invalidRequest(error.message)
        }
        guard let text = String(data: body, encoding: .utf8) else { throw OAuthError.invalidRequest("The body is not UTF-8.") }
        var form: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count == 2 ? parts[1] : "") else {
                throw OAuthError.invalidRequest("The body is not form-encoded.")
            }
            guard form.updateValue(value, forKey: name) == nil else { throw OAuthError.invalidRequest("\(name) is given twice.") }
        }
        return form
    }

    package static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
