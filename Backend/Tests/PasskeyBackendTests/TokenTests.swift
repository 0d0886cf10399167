import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import SoftwarePasskey
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// The token routes in process: a token login, bearer access to the account, refresh rotation
/// with reuse detection, revocation, logout, the discovery documents, key rotation, and every
/// refusal (RFC 6749 §5.2 errors, RFC 6750 `invalid_token`).
@Suite struct TokenTests {
    /// Signs up `name` through the web routes, then logs in for tokens; the cookies are dropped.
    static func tokens(_ client: any TestClientProtocol, _ name: String) async throws -> (TokenPair, SoftwarePasskey) {
        var browser = Client(client)
        var passkey = try await browser.register(name)
        var app = Client(client)
        let options = try await app.send("/api/login/options", method: .post, json: #"{"username":"\#(name)"}"#)
        let assertion = try passkey.assert(challenge: challenge(in: Data(options.body.readableBytesView)) ?? "")
        let answer = try await app.send("/api/token/login/verify", method: .post, json: String(decoding: assertion, as: UTF8.self))
        #expect(answer.status == .ok)
        #expect(answer.headers[.cacheControl] == "no-store")
        #expect(app.cookies[SessionToken.cookieName] == nil)
        return (try TokenPair(answer), passkey)
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    static func form(
        _ client: any TestClientProtocol, _ uri: String, _ body: String,
        type: String = "application/x-www-form-urlencoded"
    ) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: [.contentType: type], body: ByteBuffer(string: body))
    }

    static func error(_ response: TestResponse) throws -> String? { try AppTests.object(response)["error"] as? String }

    @Test(arguments: Adapter.allCases) func tokenLoginBearerRefreshReuseRevoke(adapter: Adapter) async throws {
        let config = AppTests.config()
        try await adapter.test(config) { client in
            let (first, _) = try await Self.tokens(client, "dana")
            #expect(first.tokenType == "Bearer" && first.expiresIn == 300)
            // The access token verifies with the published keys alone, with every claim.
            let jwks = try await client.execute(uri: "/.well-known/jwks.json", method: .get)
            #expect(jwks.status == .ok)
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: String(decoding: Data(jwks.body.readableBytesView), as: UTF8.self))
            let claims = try await keys.verify(first.access, as: AccessClaims.self)
            #expect(claims.iss.value == config.tokenIssuer && claims.aud.value == [config.tokenAudience])
            #expect(!claims.jti.value.isEmpty && !claims.sid.isEmpty && claims.exp.value > claims.iat.value)
            let header = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(Base64URLTest.decode(String(first.access.split(separator: ".")[0])))) as? [String: Any])
            #expect(header["alg"] as? String == "ES256" && header["kid"] is String && header["typ"] as? String == "at+jwt")
            let discovery = try AppTests.object(try await client.execute(uri: "/.well-known/openid-configuration", method: .get))
            #expect(discovery["issuer"] as? String == config.tokenIssuer)
            #expect(discovery["jwks_uri"] as? String == config.tokenIssuer + "/.well-known/jwks.json")

            // Bearer access to the account.
            let me = try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(first.access))
            #expect(me.status == .ok)
            #expect(try AppTests.object(me)["username"] as? String == "dana")

            // Refresh: a new pair; the old access token still works until it expires.
            let refreshed = try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(refreshed.status == .ok)
            #expect(refreshed.headers[HTTPField.Name("Pragma")!] == "no-cache")
            let second = try TokenPair(refreshed)
            #expect(second.refresh != first.refresh && second.access != first.access)
            // Reuse of the rotated token: refused, and the whole family ends.
            let reused = try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(reused.status == .badRequest)
            #expect(try Self.error(reused) == "invalid_grant")
            let afterReuse = try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(second.refresh)")
            #expect(try Self.error(afterReuse) == "invalid_grant")
            let revokedAccess = try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(second.access))
            #expect(revokedAccess.status == .unauthorized)
            #expect(revokedAccess.headers[.wwwAuthenticate]?.contains("invalid_token") == true)

            // Revocation (RFC 7009) of a fresh family's refresh token ends its access tokens too.
            let (third, _) = try await Self.tokens(client, "erin")
            let revoked = try await Self.form(client, "/oauth/revoke", "token=\(third.refresh)&token_type_hint=refresh_token")
            #expect(revoked.status == .ok)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(third.access)).status == .unauthorized)
            #expect(
                try Self.error(
                    try await Self.form(
                        client, "/oauth/token",
                        "grant_type=refresh_token&refresh_token=\(third.refresh)")) == "invalid_grant")
            // An unknown token is "revoked" too (§2.2), and an access token revokes its family.
            #expect(try await Self.form(client, "/oauth/revoke", "token=unknown").status == .ok)
            let (fourth, _) = try await Self.tokens(client, "fay")
            #expect(try await Self.form(client, "/oauth/revoke", "token=\(fourth.access)").status == .ok)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(fourth.access)).status == .unauthorized)
        }
    }

    /// With a reuse interval, an app that sends two refreshes with one token keeps its sign-in:
    /// the second rotates again and both answers' refresh tokens work; once the interval has
    /// passed, presenting the spent token revokes the family as before.
    @Test(arguments: Adapter.allCases) func aRefreshReusedWithinTheIntervalRotatesAgain(adapter: Adapter) async throws {
        let config = AppTests.config { $0.refreshReuseInterval = 2 }
        try await adapter.test(config) { client in
            let (first, _) = try await Self.tokens(client, "gina")
            let refresh = "grant_type=refresh_token&refresh_token=\(first.refresh)"
            let one = try TokenPair(try await Self.form(client, "/oauth/token", refresh))
            let again = try await Self.form(client, "/oauth/token", refresh)
            #expect(again.status == .ok)
            let two = try TokenPair(again)
            #expect(two.refresh != one.refresh)
            for pair in [one, two] {
                #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(pair.access)).status == .ok)
            }
            let next = try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(one.refresh)")
            #expect(next.status == .ok)
            // Past the interval: the spent token revokes the whole family.
            try await Task.sleep(for: .milliseconds(2_300))
            let late = try await Self.form(client, "/oauth/token", refresh)
            #expect(try Self.error(late) == "invalid_grant")
            let survivor = try TokenPair(next)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(survivor.access)).status == .unauthorized)
            #expect(
                try Self.error(
                    try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(two.refresh)"))
                    == "invalid_grant")
        }
    }

    /// With ID_TOKEN_AUDIENCE, a sign-in's and a refresh's token responses carry an OpenID Connect
    /// ID token for that client, verified with the same JWKS: the user, the issuer, the ceremony's
    /// time; without it, none.
    @Test(arguments: Adapter.allCases) func idTokensForTheConfiguredClient(adapter: Adapter) async throws {
        let config = AppTests.config { $0.idTokenAudience = "org.example.app" }
        try await adapter.test(config) { client in
            let (pair, passkey) = try await Self.tokens(client, "kim")
            let keys = JWTKeyCollection()
            let jwks = try await client.execute(uri: "/.well-known/jwks.json", method: .get)
            try await keys.add(jwksJSON: String(decoding: Data(jwks.body.readableBytesView), as: UTF8.self))
            let idToken = try #require(pair.idToken)
            let claims = try await keys.verify(idToken, as: IDTokenClaims.self)
            let access = try await keys.verify(pair.access, as: AccessClaims.self)
            #expect(claims.aud.value == ["org.example.app"] && claims.iss.value == config.tokenIssuer)
            #expect(claims.sub.value == SoftwarePasskey.b64(passkey.userHandle) && claims.sub == access.sub)
            #expect(claims.auth_time == access.auth_time)
            let refreshed = try TokenPair(
                try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(pair.refresh)"))
            #expect(try await keys.verify(try #require(refreshed.idToken), as: IDTokenClaims.self).sub == claims.sub)
        }
        try await adapter.test { client in
            let (plain, _) = try await Self.tokens(client, "lee")
            #expect(plain.idToken == nil)
        }
    }

    /// REFRESH_REUSE_SECONDS is 0 to 60; 0 (every second presentation revokes) by default.
    @Test func theReuseIntervalIsBounded() throws {
        #expect(try PasskeyBackendConfiguration.fromEnvironment([:]).refreshReuseInterval == 0)
        #expect(try PasskeyBackendConfiguration.fromEnvironment(["REFRESH_REUSE_SECONDS": "5"]).refreshReuseInterval == 5)
        #expect(throws: ConfigurationError.self) { try PasskeyBackendConfiguration.fromEnvironment(["REFRESH_REUSE_SECONDS": "61"]) }
    }

    @Test(arguments: Adapter.allCases) func logoutAndPasskeyDeletionEndTheFamily(adapter: Adapter) async throws {
        try await adapter.test { client in
            let (first, passkey) = try await Self.tokens(client, "gail")
            let logout = try await client.execute(
                uri: "/api/logout", method: .post,
                headers: [.authorization: "Bearer \(first.access)", .contentType: "application/json"],
                body: ByteBuffer(string: "{}"))
            #expect(logout.status == .ok)
            #expect(try AppTests.object(logout)["sessionsEnded"] as? Int == 1)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(first.access)).status == .unauthorized)
            #expect(
                try Self.error(
                    try await Self.form(
                        client, "/oauth/token",
                        "grant_type=refresh_token&refresh_token=\(first.refresh)")) == "invalid_grant")
            // A token of a fresh login may delete a passkey; the deleted passkey's family ends.
            var app = Client(client)
            var copy = passkey
            let options = try await app.send("/api/login/options", method: .post, json: "{}")
            let assertion = try copy.assert(challenge: challenge(in: Data(options.body.readableBytesView)) ?? "")
            let second = try TokenPair(
                try await app.send(
                    "/api/token/login/verify", method: .post,
                    json: String(decoding: assertion, as: UTF8.self)))
            let deleted = try await client.execute(
                uri: "/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))", method: .delete,
                headers: Self.bearer(second.access))
            #expect(deleted.status == .ok)
            #expect(try AppTests.object(deleted)["signedOut"] as? Bool == true)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(second.access)).status == .unauthorized)
        }
    }

    @Test(arguments: Adapter.allCases) func refusals(adapter: Adapter) async throws {
        try await adapter.test(AppTests.config { $0.accessTokenLifetime = -10 }) { client in
            let (expired, _) = try await Self.tokens(client, "hana")
            // Expired, tampered, malformed, or not a bearer token at all: 401 invalid_token.
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(expired.access)).status == .unauthorized)
            var parts = expired.access.split(separator: ".").map(String.init)
            parts[1] = String(parts[1].reversed())
            #expect(
                try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(parts.joined(separator: ".")))
                    .status == .unauthorized)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer("x")).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Basic eDp5"]).status
                    == .unauthorized)
            // The token endpoint's errors (§5.2).
            let cases: [(String, String, String)] = [
                ("", "application/x-www-form-urlencoded", "invalid_request"),
                ("grant_type=password&username=a", "application/x-www-form-urlencoded", "unsupported_grant_type"),
                ("grant_type=refresh_token", "application/x-www-form-urlencoded", "invalid_request"),
                ("grant_type=refresh_token&refresh_token=a&refresh_token=b", "application/x-www-form-urlencoded", "invalid_request"),
                (
                    "grant_type=refresh_token&refresh_token=\(String(repeating: "A", count: 43))", "application/x-www-form-urlencoded",
                    "invalid_grant"
                ),
                (#"{"grant_type":"refresh_token"}"#, "application/json", "invalid_request"),
                ("grant_type=refresh_token&refresh_token=%ZZ", "application/x-www-form-urlencoded", "invalid_request"),
                (
                    "grant_type=refresh_token&refresh_token=" + String(repeating: "A", count: 5000), "application/x-www-form-urlencoded",
                    "invalid_request"
                ),
            ]
            for (body, type, code) in cases {
                let answer = try await Self.form(client, "/oauth/token", body, type: type)
                #expect(answer.status == .badRequest, "\(body.prefix(40))")
                #expect(try Self.error(answer) == code, "\(body.prefix(40))")
                #expect(try AppTests.object(answer)["error_description"] is String)
            }
            #expect(try Self.error(try await Self.form(client, "/oauth/revoke", "token_type_hint=refresh_token")) == "invalid_request")
        }
    }

    @Test(arguments: Adapter.allCases) func signingKeysRotateWithTwoPublished(adapter: Adapter) async throws {
        let config = AppTests.config {
            // Long enough that a sign-in on a busy machine stays within one key's time.
            $0.signingKeyRotation = 2; $0.accessTokenLifetime = 2
        }
        try await adapter.test(config) { client in
            func kids() async throws -> [String] {
                let jwks = try AppTests.object(try await client.execute(uri: "/.well-known/jwks.json", method: .get))
                return (jwks["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String } ?? []
            }
            let (first, _) = try await Self.tokens(client, "ida")
            let firstKids = try await kids()
            #expect(firstKids.count == 1)
            try await Task.sleep(for: .milliseconds(2_100))
            let refreshed = try TokenPair(
                try await Self.form(
                    client, "/oauth/token",
                    "grant_type=refresh_token&refresh_token=\(first.refresh)"))
            let secondKids = try await kids()
            #expect(secondKids.count == 2 && secondKids[1] == firstKids[0])
            #expect(refreshed.kid == secondKids[0] && first.kid == firstKids[0])
            try await Task.sleep(for: .milliseconds(2_100))
            _ = try await Self.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(refreshed.refresh)")
            let thirdKids = try await kids()
            #expect(thirdKids.count == 2 && !thirdKids.contains(firstKids[0]) && thirdKids[1] == secondKids[0])
        }
    }
}

/// A token response, read.
struct TokenPair {
    var access: String
    var refresh: String
    var tokenType: String
    var expiresIn: Int
    var kid: String
    /// The OpenID Connect ID token, when the server issues them.
    var idToken: String?

    init(_ response: TestResponse) throws {
        let object = try AppTests.object(response)
        access = try #require(object["access_token"] as? String)
        refresh = try #require(object["refresh_token"] as? String)
        tokenType = try #require(object["token_type"] as? String)
        expiresIn = try #require(object["expires_in"] as? Int)
        idToken = object["id_token"] as? String
        let header = try JSONSerialization.jsonObject(with: Data(Base64URLTest.decode(String(access.split(separator: ".")[0]))))
        kid = try #require((header as? [String: Any])?["kid"] as? String)
    }
}
