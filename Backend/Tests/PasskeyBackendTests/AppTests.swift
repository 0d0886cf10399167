import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SoftwarePasskey
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// In-process tests of every route and its errors, against each adapter (``Adapter``, in-memory stores): no
/// network, no database. The real parts (PostgreSQL, two nodes, Chromium) are Tests/run-e2e.sh.
@Suite struct AppTests {
    static let origin = "http://localhost:8080"

    static func config(_ change: (inout PasskeyBackendConfiguration) -> Void = { _ in }) -> PasskeyBackendConfiguration {
        var config = PasskeyBackendConfiguration(sessionKey: Array(repeating: 7, count: 32))
        config.origins = [origin]
        change(&config)
        return config
    }

    static func app(_ config: PasskeyBackendConfiguration = config()) async throws -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await buildApplication(config, logger: logger)
    }

    /// The application's own routes decode bodies through the library's strict reader: a member
    /// given twice is refused (JSONDecoder alone would take the last), as is another content type.
    @Test(arguments: Adapter.allCases) func applicationBodiesAreReadStrictly(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            let fine = try await user.send("/echo", method: .post, json: #"{"a":"1"}"#)
            #expect(fine.status == .ok)
            #expect(try Self.object(fine)["a"] as? String == "1")
            #expect(try await user.send("/echo", method: .post, json: #"{"a":"1","a":"2"}"#).status == .badRequest)
            #expect(try await user.send("/echo", method: .post, json: #"{"a":1}"#).status == .badRequest)
            #expect(try await user.send("/echo", method: .post, json: "{}", type: "text/plain").status == .unsupportedMediaType)
        }
    }

    /// The application's own route beside the passkey routes gets the shared headers.
    @Test(arguments: Adapter.allCases) func applicationRoutesBesideThePasskeyRoutes(adapter: Adapter) async throws {
        try await adapter.test { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            #expect(try Self.object(health)["status"] as? String == "ok")
            #expect(health.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            #expect(health.headers[.cacheControl] == "no-store")
            #expect(try await client.execute(uri: "/nothing-here", method: .get).status == .notFound)
        }
    }

    /// ORIGINS is written by people: the same-origin check reads it by the verifier's rule, so
    /// `HTTP://LocalHost:8080` is the origin a browser reports as `http://localhost:8080`, and a
    /// registration's POSTs carrying that `Origin` pass; another origin is still refused.
    @Test(arguments: Adapter.allCases) func originsWrittenInAnotherCaseStillMatchTheBrowsersOrigin(adapter: Adapter) async throws {
        try await adapter.test(Self.config { $0.origins = ["HTTP://LocalHost:8080"] }) { client in
            var user = Client(client)
            let page: HTTPFields = [.origin: Self.origin]
            let options = try await user.send(
                "/api/register/options", method: .post, json: #"{"username":"carol"}"#, headers: page)
            #expect(options.status == .ok)
            let evil = try await user.send(
                "/api/register/options", method: .post, json: #"{"username":"carol"}"#,
                headers: [.origin: "http://localhost.evil.example:8080"])
            #expect(evil.status == .forbidden)
            _ = try await user.register("dave")
        }
    }

    @Test(arguments: Adapter.allCases) func registerLoginListDeleteLogout(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            var passkey = try await user.register("alice")
            // Registration signed the new account in.
            var me = try await user.json("/api/me")
            #expect(me["username"] as? String == "alice")
            #expect((me["passkeys"] as? [[String: Any]])?.first?["current"] as? Bool == true)
            try await user.logout()
            #expect(try await user.send("/api/me", method: .get).status == .unauthorized)
            // Username-first, then usernameless.
            try await user.login(&passkey, username: "Alice")
            me = try await user.json("/api/me")
            #expect(me["username"] as? String == "alice")
            try await user.logout()
            try await user.login(&passkey, username: nil)
            // A second passkey, added while signed in, then the first deleted.
            var second = try await user.register(nil, as: passkey.userHandle)
            me = try await user.json("/api/me?limit=1")
            #expect((me["passkeys"] as? [Any])?.count == 1)
            #expect(me["next"] is String)
            let deleted = try await user.send("/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))", method: .delete)
            #expect(deleted.status == .ok)
            #expect(try Self.object(deleted)["signedOut"] as? Bool == true)
            #expect(try await user.send("/api/me", method: .get).status == .unauthorized)
            try await user.login(&second, username: "alice")
            #expect(
                try await user.send("/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))", method: .delete).status
                    == .notFound)
            let all = try await user.send("/api/logout-all", method: .post, json: "{}")
            #expect(try Self.object(all)["sessionsEnded"] as? Int == 1)
        }
    }

    /// Signing in again from a signed-in browser ends the session it came with (registration
    /// and login alike), so sessions do not pile up.
    @Test(arguments: Adapter.allCases) func signingInAgainEndsTheSessionItCameWith(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            var passkey = try await user.register("carol")
            let first = try #require(user.cookies["pk_session"])
            try await user.login(&passkey, username: "carol")
            let second = try #require(user.cookies["pk_session"])
            #expect(first != second)
            var stale = Client(client)
            stale.cookies["pk_session"] = first
            #expect(try await stale.send("/api/me", method: .get).status == .unauthorized)
            #expect(try await user.send("/api/me", method: .get).status == .ok)
            let all = try await user.send("/api/logout-all", method: .post, json: "{}")
            #expect(try Self.object(all)["sessionsEnded"] as? Int == 1)
        }
    }

    @Test(arguments: Adapter.allCases) func passkeyListNamesTheProvider(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            _ = try await user.register("noname")
            var me = try await user.json("/api/me")
            #expect((me["passkeys"] as? [[String: Any]])?.first?["provider"] == nil)
            // A passkey whose AAGUID is Apple's (the library's list names it).
            var named = Client(client)
            let options = try await named.send("/api/register/options", method: .post, json: #"{"username":"named"}"#)
            let document = try Self.object(options)
            let handle = try Base64URLTest.decode((document["user"] as? [String: Any])?["id"] as? String ?? "")
            var passkey = SoftwarePasskey(rpId: "localhost", origin: Self.origin, userHandle: handle)
            let apple = try #require(UUID(uuidString: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"))
            passkey.aaguid = withUnsafeBytes(of: apple.uuid) { Array($0) }
            let credential = passkey.register(challenge: document["challenge"] as? String ?? "")
            #expect(
                try await named.send("/api/register/verify", method: .post, json: String(decoding: credential, as: UTF8.self))
                    .status == .ok)
            me = try await named.json("/api/me")
            #expect((me["passkeys"] as? [[String: Any]])?.first?["provider"] as? String == "Apple Passwords")
        }
    }

    @Test(arguments: Adapter.allCases) func refusals(adapter: Adapter) async throws {
        try await adapter.test(Self.config { $0.maxPasskeysPerAccount = 1 }) { client in
            var user = Client(client)
            let json = "application/json"
            #expect(
                try await user.send("/api/register/options", method: .post, json: #"{"username":"bob"}"#, type: "text/plain")
                    .status == .unsupportedMediaType)
            #expect(
                try await user.send(
                    "/api/register/options", method: .post,
                    json: #"{"username":"\#(String(repeating: "x", count: 5000))"}"#
                ).status == .contentTooLarge)
            #expect(
                try await user.send("/api/register/options", method: .post, json: #"{"username":"a","username":"b"}"#)
                    .status == .badRequest)
            #expect(try await user.send("/api/register/options", method: .post, json: #"{"username":"   "}"#).status == .badRequest)
            #expect(
                try await user.send(
                    "/api/register/options", method: .post,
                    json: #"{"username":"\#(String(repeating: "é", count: 65))"}"#, type: json
                ).status == .badRequest)
            #expect(try await user.send("/api/login/verify", method: .post, json: "{}").status == .badRequest)
            #expect(try await user.send("/api/register/verify", method: .post, json: "{}").status == .badRequest)
            #expect(try await user.send("/api/me", method: .get).status == .unauthorized)
            #expect(try await user.send("/api/me?limit=0", method: .get).status == .unauthorized)
            #expect(try await user.send("/api/logout-all", method: .post, json: "{}").status == .unauthorized)
            #expect(try await user.send("/api/passkeys/AAAA", method: .delete).status == .unauthorized)
            // Cross-origin writes are refused before anything else.
            let crossOrigin = try await user.send("/api/logout", method: .post, json: "{}", headers: [.origin: "https://evil.example"])
            #expect(crossOrigin.status == .forbidden)
            #expect(try Self.object(crossOrigin)["error"] is String)
            #expect(
                try await user.send(
                    "/api/logout", method: .post, json: "{}",
                    headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
                ).status == .forbidden)
            var passkey = try await user.register("bob")
            // "Bob" is the same name as "bob".
            var other = Client(client)
            let taken = try await other.send("/api/register/options", method: .post, json: #"{"username":"Bob"}"#)
            #expect(taken.status == .conflict)
            // The cap: one passkey per account here.
            #expect(try await user.send("/api/register/options", method: .post, json: "{}").status == .conflict)
            #expect(try await user.send("/api/me?limit=2", method: .get).status == .badRequest)
            #expect(try await user.send("/api/me?after=%%%", method: .get).status == .badRequest)
            #expect(try await user.send("/api/passkeys/!!", method: .delete).status == .badRequest)
            // A replayed assertion is refused by the library (its challenge was used).
            let options = try await user.send("/api/login/options", method: .post, json: #"{"username":"bob"}"#)
            let body = try passkey.assert(challenge: challenge(in: Data(options.body.readableBytesView)) ?? "")
            #expect(try await user.send("/api/login/verify", method: .post, json: String(decoding: body, as: UTF8.self)).status == .ok)
            let replay = try await user.send("/api/login/verify", method: .post, json: String(decoding: body, as: UTF8.self))
            #expect(replay.status == .badRequest)
        }
    }

    @Test(arguments: Adapter.allCases) func changesNeedAFreshSignIn(adapter: Adapter) async throws {
        try await adapter.test(Self.config { $0.freshSignIn = -1 }) { client in
            var user = Client(client)
            let passkey = try await user.register("carol")
            let answer = try await user.send("/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))", method: .delete)
            #expect(answer.status == .forbidden)
            #expect(try Self.object(answer)["reauthenticate"] as? Bool == true)
            #expect(try await user.send("/api/register/options", method: .post, json: "{}").status == .forbidden)
            let rename = try await user.send(
                "/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))", method: .patch, json: #"{"name":"Mine"}"#)
            #expect(rename.status == .forbidden)
        }
    }

    /// A passkey gets the name its user gives it (trimmed, NFC), shown in the list; null clears
    /// it; a name with control or invisible characters, too long, or for another account's or
    /// an unknown passkey, is refused.
    @Test(arguments: Adapter.allCases) func renameAPasskey(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            let passkey = try await user.register("iris")
            let path = "/api/passkeys/\(SoftwarePasskey.b64(passkey.credentialId))"
            let named = try await user.send(path, method: .patch, json: #"{"name":"  Work laptop  "}"#)
            #expect(named.status == .ok)
            #expect(try Self.object(named)["name"] as? String == "Work laptop")
            var list = try Self.object(try await user.send("/api/me", method: .get))
            #expect((list["passkeys"] as? [[String: Any]])?.first?["name"] as? String == "Work laptop")
            let composed = try await user.send(path, method: .patch, json: #"{"name":"Cafe\u0301"}"#)
            #expect(try Self.object(composed)["name"] as? String == "Caf\u{E9}")
            for bad in [
                #"{"name":"a\u0000b"}"#, #"{"name":"evil\u202Egnp.exe"}"#, #"{"name":"   "}"#,
                #"{"name":"\#(String(repeating: "x", count: 65))"}"#, #"{"name":7}"#, #"{"nom":"x"}"#,
            ] {
                #expect(try await user.send(path, method: .patch, json: bad).status == .badRequest, "\(bad)")
            }
            #expect(try await user.send("/api/passkeys/AAAA", method: .patch, json: #"{"name":"x"}"#).status == .notFound)
            var other = Client(client)
            _ = try await other.register("jack")
            #expect(try await other.send(path, method: .patch, json: #"{"name":"Stolen"}"#).status == .notFound)
            #expect(try await user.send(path, method: .patch, json: #"{"name":null}"#).status == .ok)
            list = try Self.object(try await user.send("/api/me", method: .get))
            #expect((list["passkeys"] as? [[String: Any]])?.first?["name"] == nil)
        }
    }

    @Test(arguments: Adapter.allCases) func wellKnownFilesOnlyWhenConfigured(adapter: Adapter) async throws {
        try await adapter.test { client in
            for path in ["apple-app-site-association", "assetlinks.json", "webauthn"] {
                let answer = try await client.execute(uri: "/.well-known/\(path)", method: .get)
                #expect(answer.status == .notFound)
            }
        }
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        let config = try PasskeyBackendConfiguration.fromEnvironment([
            "RP_ID": "example.org", "ORIGINS": "https://example.org,https://login.example.org,https://example.com",
            "SESSION_KEY": String(repeating: "ab", count: 32), "APPLE_TEAM_ID": "ABCDE12345",
            "APPLE_BUNDLE_IDS": "org.example.app, org.example.other", "ANDROID_APPS": "org.example.android=\(fingerprint)",
        ])
        try await adapter.test(config) { client in
            let aasa = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get)
            #expect(aasa.status == .ok)
            #expect(aasa.headers[.contentType] == "application/json")
            let apps = ((try Self.object(aasa)["webcredentials"] as? [String: Any])?["apps"] as? [String])
            #expect(apps == ["ABCDE12345.org.example.app", "ABCDE12345.org.example.other"])
            let links = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get)
            #expect(links.status == .ok)
            let statements = try JSONSerialization.jsonObject(with: Data(links.body.readableBytesView)) as? [[String: Any]]
            let targets = statements?.compactMap { $0["target"] as? [String: Any] }
            #expect(
                targets?.contains {
                    $0["package_name"] as? String == "org.example.android"
                        && $0["sha256_cert_fingerprints"] as? [String] == [fingerprint]
                } == true)
            let related = try await client.execute(uri: "/.well-known/webauthn", method: .get)
            #expect(related.status == .ok)
            #expect(try Self.object(related)["origins"] as? [String] == ["https://example.com"])
        }
        // Apple apps report https://<rp id>: a configuration without it does not start.
        let broken = try PasskeyBackendConfiguration.fromEnvironment([
            "RP_ID": "example.org", "ORIGINS": "https://www.example.org",
            "SESSION_KEY": String(repeating: "ab", count: 32), "APPLE_TEAM_ID": "ABCDE12345",
            "APPLE_BUNDLE_IDS": "org.example.app",
        ])
        await #expect(throws: ConfigurationError.self) { _ = try await Self.app(broken) }
        #expect(throws: ConfigurationError.self) {
            _ = try PasskeyBackendConfiguration.fromEnvironment(["ANDROID_APPS": "org.example.android=XYZ"])
        }
        #expect(throws: ConfigurationError.self) { _ = try PasskeyBackendConfiguration.fromEnvironment(["APPLE_TEAM_ID": "ABCDE12345"]) }
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }
}

/// A browser as far as the server can tell: it keeps cookies and sends JSON.
struct Client {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]

    init(_ client: any TestClientProtocol) { self.client = client }

    mutating func send(
        _ uri: String, method: HTTPRequest.Method, json: String? = nil, type: String = "application/json",
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if json != nil { headers[.contentType] = type }
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers,
            body: json.map { ByteBuffer(string: $0) })
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[1].isEmpty { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
        }
        return response
    }

    mutating func json(_ uri: String) async throws -> [String: Any] {
        let response = try await send(uri, method: .get)
        #expect(response.status == .ok)
        return try AppTests.object(response)
    }

    /// Registers a new account (`username`) or, signed in, one more passkey of `userHandle`.
    mutating func register(_ username: String?, as userHandle: [UInt8]? = nil) async throws -> SoftwarePasskey {
        let body = username.map { #"{"username":"\#($0)"}"# } ?? "{}"
        let options = try await send("/api/register/options", method: .post, json: body)
        #expect(options.status == .ok)
        let document = try AppTests.object(options)
        let handle = (document["user"] as? [String: Any])?["id"] as? String ?? ""
        let handleBytes = try Base64URLTest.decode(handle)
        if let userHandle { #expect(handleBytes == userHandle) }
        var passkey = SoftwarePasskey(rpId: "localhost", origin: AppTests.origin, userHandle: handleBytes)
        let credential = passkey.register(challenge: document["challenge"] as? String ?? "")
        let verified = try await send("/api/register/verify", method: .post, json: String(decoding: credential, as: UTF8.self))
        #expect(verified.status == .ok)
        return passkey
    }

    mutating func login(_ passkey: inout SoftwarePasskey, username: String?) async throws {
        let body = username.map { #"{"username":"\#($0)"}"# } ?? "{}"
        let options = try await send("/api/login/options", method: .post, json: body)
        #expect(options.status == .ok)
        let assertion = try passkey.assert(challenge: challenge(in: Data(options.body.readableBytesView)) ?? "")
        let verified = try await send("/api/login/verify", method: .post, json: String(decoding: assertion, as: UTF8.self))
        #expect(verified.status == .ok)
    }

    mutating func logout() async throws {
        #expect(try await send("/api/logout", method: .post, json: "{}").status == .ok)
    }
}

enum Base64URLTest {
    static func decode(_ text: String) throws -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Array(try #require(Data(base64Encoded: base64)))
    }
}
