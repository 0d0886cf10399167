import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoftwarePasskey
import Testing
import WebAuthnRP

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// Every spelling of every guarded route (README "App Attest", step 2) is asked for an assertion
/// when it reaches the route, and the assertion binds the route's canonical path, not the
/// spelling: the router decides which handler runs, so the guard must go wherever the router goes.
@Suite struct AppAttestRouteTests {
    /// The guarded routes as the README lists them, and whether only a bearer token's request is asked.
    static let guarded: [(path: String, bearerOnly: Bool)] = [
        ("/oauth/token", false), ("/api/register/verify", true), ("/native/register/finish", true),
    ]

    /// Spellings of `path` a client can send, made from its segments: trailing and doubled
    /// slashes at every place, a query, dot segments, percent-encoding, another case, an encoded slash.
    static func spellings(_ path: String) -> [String] {
        let segments = path.split(separator: "/").map(String.init)
        var out = [path + "/", path + "//", "/" + path, path + "?x=1", path + "/?x=1", path + "/.", path + ";x", path.uppercased()]
        for cut in 1..<segments.count {
            let head = segments[..<cut].joined(separator: "/"), tail = segments[cut...].joined(separator: "/")
            out += ["/\(head)//\(tail)", "/\(head)/./\(tail)", "/\(head)/x/../\(tail)", "/\(head)%2F\(tail)"]
        }
        if let last = segments.last, let first = last.unicodeScalars.first {
            let encoded = String(format: "%%%02X", first.value) + String(last.unicodeScalars.dropFirst())
            out.append("/" + (segments.dropLast() + [encoded]).joined(separator: "/"))
        }
        return out
    }

    /// Refused by the guard (401 `missing`) when the spelling reached the route, or not found when
    /// it reached none; anything else means a handler ran without an assertion.
    static func refused(_ response: TestResponse) -> Bool {
        (response.status == .unauthorized && AppAttestTests.code(response) == "missing") || response.status == .notFound
    }

    @Test func spellingsCoverTheRouterNormalisations() {
        let spellings = Self.spellings("/oauth/token")
        for expected in ["/oauth/token/", "//oauth/token", "/oauth//token", "/oauth/token?x=1", "/oauth/%74oken"] {
            #expect(spellings.contains(expected), "\(expected)")
        }
    }

    /// Each adapter in process through its router, and Hummingbird's live over HTTP too (the
    /// server parses the request target itself).
    static let setups: [(Adapter, TestingSetup)] = [(.hummingbird, .router), (.hummingbird, .live), (.vapor, .router)]

    @Test func everySpellingOfTheRefreshNeedsAnAssertion() async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        for (adapter, setup) in Self.setups {
            try await refreshSpellings(authority: authority, adapter: adapter, setup: setup)
        }
    }

    func refreshSpellings(authority: SoftwareAppAttestDevice.Authority, adapter: Adapter, setup: TestingSetup) async throws {
        try await adapter.test(try AppAttestTests.config(.required, authority: authority), setup: setup) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: AppAttestTests.app.appID)
            #expect(try await AppAttestTests.attest(client, device).status == .created)
            let (pair, _) = try await AppAttestTests.tokens(client, "vera", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            var reached = 0
            for spelling in Self.spellings("/oauth/token") {
                let answer = try await client.execute(
                    uri: spelling, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: body))
                #expect(Self.refused(answer), "\(spelling): \(answer.status)")
                if answer.status == .unauthorized { reached += 1 }
            }
            // Trailing and doubled slashes and the queries reach the route (the router drops empty segments).
            #expect(reached >= 5)
            // None of them spent the token. An assertion signed over the canonical path holds on any
            // spelling that reaches the route; one signed over the spelling holds on none.
            var challenge = try await AppAttestTests.challenge(client)
            var assertion = try device.assert(
                clientData: AppAttestTests.clientData("POST", "/oauth//token/", body, "challenge=" + challenge))
            let bySpelling = try await client.execute(
                uri: "/oauth//token/", method: .post, headers: AppAttestTests.headers(device, assertion, challenge: challenge),
                body: ByteBuffer(string: body))
            #expect(bySpelling.status == .unauthorized && AppAttestTests.code(bySpelling) == "signature")
            challenge = try await AppAttestTests.challenge(client)
            assertion = try device.assert(clientData: AppAttestTests.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            let canonical = try await client.execute(
                uri: "/oauth//token/", method: .post, headers: AppAttestTests.headers(device, assertion, challenge: challenge),
                body: ByteBuffer(string: body))
            #expect(canonical.status == .ok)
        }
    }

    @Test func everySpellingOfAnAppsNewPasskeyNeedsAnAssertion() async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        for (adapter, setup) in Self.setups {
            try await newPasskeySpellings(authority: authority, adapter: adapter, setup: setup)
        }
    }

    func newPasskeySpellings(authority: SoftwareAppAttestDevice.Authority, adapter: Adapter, setup: TestingSetup) async throws {
        try await adapter.test(try AppAttestTests.config(.required, authority: authority), setup: setup) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: AppAttestTests.app.appID)
            #expect(try await AppAttestTests.attest(client, device).status == .created)
            let (pair, passkey) = try await AppAttestTests.tokens(client, "wren", device: &device)
            let bearer = TokenTests.bearer(pair.access)
            let jti =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(Base64URLTest.decode(String(pair.access.split(separator: ".")[1]))))
                        as? [String: Any])["jti"] as? String
            func count() async throws -> Int {
                let me = try await client.execute(uri: "/api/me", method: .get, headers: bearer)
                return (try AppTests.object(me)["passkeys"] as? [Any])?.count ?? -1
            }
            /// A fresh ceremony for one more passkey through `route`'s options: the body (and cookie) to finish it.
            func ceremony(_ route: String) async throws -> (body: String, headers: HTTPFields) {
                var added = SoftwarePasskey(rpId: "localhost", origin: AppTests.origin, userHandle: passkey.userHandle)
                if route.hasPrefix("/native/") {
                    let (options, state) = try NativeTests.options(
                        try await NativeTests.post(client, "/native/register/options", [String: String](), headers: bearer))
                    let credential = String(decoding: added.register(challenge: try NativeTests.challenge(options)), as: UTF8.self)
                    var headers = bearer
                    headers[.contentType] = "application/json"
                    return (#"{"state":"\#(state)","credential":\#(credential)}"#, headers)
                }
                var app = Client(client)
                let options = try await app.send("/api/register/options", method: .post, json: "{}", headers: bearer)
                let document = try AppTests.object(options)
                var headers = bearer
                headers[.contentType] = "application/json"
                headers[.cookie] = "pk_reg=\(app.cookies["pk_reg"] ?? "")"
                return (String(decoding: added.register(challenge: document["challenge"] as? String ?? ""), as: UTF8.self), headers)
            }
            for (route, bearerOnly) in Self.guarded where bearerOnly {
                var reached = 0
                for spelling in Self.spellings(route) {
                    let (body, headers) = try await ceremony(route)
                    let answer = try await client.execute(uri: spelling, method: .post, headers: headers, body: ByteBuffer(string: body))
                    #expect(Self.refused(answer), "\(spelling): \(answer.status)")
                    if answer.status == .unauthorized { reached += 1 }
                }
                #expect(reached >= 5, "\(route)")
                #expect(try await count() == 1, "\(route): no passkey added without an assertion")
            }
            // An assertion for one guarded route does not open another (the canonical path is signed).
            let (body, headers) = try await ceremony("/native/register/finish")
            let forWeb = try device.assert(
                clientData: AppAttestTests.clientData("POST", "/api/register/verify", body, "jti=" + (jti ?? "")))
            var signed = headers
            signed[HTTPField.Name(AppAttest.Header.keyId)!] = device.keyIdBase64
            signed[HTTPField.Name(AppAttest.Header.assertion)!] = Data(forWeb).base64EncodedString()
            let crossed = try await client.execute(
                uri: "/native/register/finish/", method: .post, headers: signed, body: ByteBuffer(string: body))
            #expect(crossed.status == .unauthorized && AppAttestTests.code(crossed) == "signature")
            #expect(try await count() == 1)
        }
    }

    @Test(arguments: Adapter.allCases) func unguardedRoutesAreNotAsked(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try AppAttestTests.config(.required, authority: authority)) { client in
            // Revocation shares the token routes' group but is not guarded.
            var device = SoftwareAppAttestDevice(authority: authority, appId: AppAttestTests.app.appID)
            #expect(try await AppAttestTests.attest(client, device).status == .created)
            let (pair, _) = try await AppAttestTests.tokens(client, "xena", device: &device)
            let revoked = try await TokenTests.form(client, "/oauth/revoke/", "token=\(pair.refresh)")
            #expect(revoked.status == .ok && AppAttestTests.code(revoked) == nil)
        }
    }
}
