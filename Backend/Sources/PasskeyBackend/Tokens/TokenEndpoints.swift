import Foundation

/// The OAuth endpoints an app's client library already speaks, as values in and values out:
/// `POST /oauth/token` with `grant_type=refresh_token` (RFC 6749 §6; answers §5.1, errors §5.2)
/// and `POST /oauth/revoke` (RFC 7009). Both take `application/x-www-form-urlencoded` bodies,
/// as the RFCs say. Apps are public clients (no client secret: RFC 8252 §8.4); the refresh token
/// is the credential. An adapter reads the body (at most ``Limits/optionsBody`` bytes) and
/// answers what these return or throw.
extension TokenService {
    /// The token endpoint: `form` is the body and `contentType` its header; `appKey` the
    /// key whose assertion over the request verified, if any.
    package func tokenEndpoint(contentType: String?, body: Data, appKey: AppKey?, now: Date) async throws -> TokenResponse {
        let form = try Self.form(contentType: contentType, body: body)
        guard let grant = form["grant_type"] else { throw OAuthError.invalidRequest("grant_type is missing.") }
        guard grant == "refresh_token" else {
            throw OAuthError(code: "unsupported_grant_type", description: "Only grant_type=refresh_token is supported here.")
        }
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            throw OAuthError.invalidRequest("refresh_token is missing.")
        }
        return try await refresh(refreshToken, appKey: appKey, now: now)
    }

    /// The revocation endpoint: always done for a well-formed request, whether the token was
    /// known (RFC 7009 §2.2).
    package func revocationEndpoint(contentType: String?, body: Data, now: Date) async throws {
        let form = try Self.form(contentType: contentType, body: body)
        guard let token = form["token"], !token.isEmpty else { throw OAuthError.invalidRequest("token is missing.") }
        try await revoke(token, now: now)
    }

    /// An `application/x-www-form-urlencoded` body: a parameter given twice, or bytes that are
    /// not the form encoding, are `invalid_request` (RFC 6749 §3.1).
    package static func form(contentType: String?, body: Data) throws -> [String: String] {
        guard
            (contentType ?? "").lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                == "application/x-www-form-urlencoded"
        else {
            throw OAuthError.invalidRequest("Send application/x-www-form-urlencoded.")
        }
        guard let text = String(data: body, encoding: .utf8) else { throw OAuthError.invalidRequest("The body is not UTF-8.") }
        var form: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first, let name = decode(first), let value = decode(parts.count == 2 ? parts[1] : "") else {
                throw OAuthError.invalidRequest("The body is not form-encoded.")
            }
            guard form.updateValue(value, forKey: name) == nil else { throw OAuthError.invalidRequest("\(name) is given twice.") }
        }
        return form
    }

    static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
