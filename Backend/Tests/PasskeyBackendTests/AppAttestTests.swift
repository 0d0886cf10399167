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

/// App Attest in process: the challenge and attest routes, the assertion the middleware asks
/// for on token refresh and on an app's new passkey, each refusal (with nothing changed), and
/// the three modes. A software device attests under a test root given to the server as a PEM.
@Suite struct AppAttestTests {
    static let app = AppleApp(teamId: "ABCDE12345", bundleId: "org.example.app")

    static func config(
        _ mode: AppIntegrityMode, authority: SoftwareAppAttestDevice.Authority,
        environment: AppAttestEnvironment = .production, sealed: Bool = false
    ) throws -> PasskeyBackendConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("appattest-root-\(UUID().uuidString).pem").path
        try authority.rootPEM().write(toFile: path, atomically: true, encoding: .utf8)
        return AppTests.config {
            $0.appAttest = AppAttestSettings(mode: mode, app: app, environment: environment, rootPEMPath: path)
            if sealed {
                $0.challengeMode = "sealed"
                $0.sealingKey = Array(repeating: 9, count: 32)
            }
        }
    }

    static func challenge(_ client: any TestClientProtocol) async throws -> String {
        let response = try await client.execute(uri: "/appattest/challenge", method: .post)
        #expect(response.status == .ok)
        return try #require(try AppTests.object(response)["challenge"] as? String)
    }

    static func attest(
        _ client: any TestClientProtocol, _ device: SoftwareAppAttestDevice, challenge given: String? = nil,
        attestation: [UInt8]? = nil
    ) async throws -> TestResponse {
        let challenge: String
        if let given { challenge = given } else { challenge = try await Self.challenge(client) }
        let object = try attestation ?? device.attest(challenge: challenge)
        let body = #"{"keyId":"\#(device.keyIdBase64)","attestation":"\#(Data(object).base64EncodedString())","challenge":"\#(challenge)"}"#
        return try await client.execute(
            uri: "/appattest/attest", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: body))
    }

    /// The canonical client data, written out here as an app would (not the server's function).
    static func clientData(_ method: String, _ path: String, _ body: String, _ binding: String) -> [UInt8] {
        let hash = SHA256.hash(data: Array(body.utf8)).map { String(format: "%02x", $0) }.joined()
        return Array("app-attest-request/1\n\(method)\n\(path)\n\(hash)\n\(binding)".utf8)
    }

    static func headers(_ device: SoftwareAppAttestDevice, _ assertion: [UInt8], challenge: String?) -> HTTPFields {
        var fields: HTTPFields = [
            .contentType: "application/x-www-form-urlencoded",
            HTTPField.Name(AppAttest.Header.keyId)!: device.keyIdBase64,
            HTTPField.Name(AppAttest.Header.assertion)!: Data(assertion).base64EncodedString(),
        ]
        if let challenge { fields[HTTPField.Name(AppAttest.Header.challenge)!] = challenge }
        return fields
    }

    static func refresh(
        _ client: any TestClientProtocol, _ token: String, headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
    )
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/oauth/token", method: .post, headers: headers,
            body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(token)"))
    }

    static func code(_ response: TestResponse) -> String? { response.headers[HTTPField.Name(AppAttest.Header.error)!] }

    /// Signs up `name` on the page, then logs in for tokens as an app does under App Attest: the
    /// token login carries `device`'s assertion bound to a fresh challenge, and the family it
    /// starts is bound to that key.
    static func tokens(
        _ client: any TestClientProtocol, _ name: String, device: inout SoftwareAppAttestDevice
    ) async throws -> (TokenPair, SoftwarePasskey) {
        var browser = Client(client)
        var passkey = try await browser.register(name)
        var app = Client(client)
        let options = try await app.send("/api/login/options", method: .post, json: #"{"username":"\#(name)"}"#)
        let body = String(
            decoding: try passkey.assert(challenge: optionsChallenge(Data(options.body.readableBytesView)) ?? ""), as: UTF8.self)
        let fresh = try await Self.challenge(client)
        let assertion = try device.assert(clientData: Self.clientData("POST", "/api/token/login/verify", body, "challenge=" + fresh))
        var headers = Self.headers(device, assertion, challenge: fresh)
        headers[.contentType] = nil
        let answer = try await app.send("/api/token/login/verify", method: .post, json: body, headers: headers)
        #expect(answer.status == .ok)
        return (try TokenPair(answer), passkey)
    }

    /// Under `required`, tokens are issued only to a request with an assertion (the token login
    /// and the native finish alike), and a family is bound to the key that asserted its sign-in:
    /// another attested key's assertion refreshes nothing and spends nothing.
    @Test(arguments: Adapter.allCases) func tokenIssuanceNeedsAnAssertionAndTheFamilyIsBoundToItsKey(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            var other = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, device).status == .created)
            #expect(try await Self.attest(client, other).status == .created)
            // Without an assertion: no tokens, and the login's challenge is not spent by the refusal.
            var browser = Client(client)
            var passkey = try await browser.register("ivy")
            var app = Client(client)
            let options = try await app.send("/api/login/options", method: .post, json: #"{"username":"ivy"}"#)
            let login = String(
                decoding: try passkey.assert(challenge: optionsChallenge(Data(options.body.readableBytesView)) ?? ""), as: UTF8.self)
            let bare = try await app.send("/api/token/login/verify", method: .post, json: login)
            #expect(bare.status == .unauthorized && Self.code(bare) == "missing")
            let native = try await client.execute(
                uri: "/native/login/finish", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"state":"x","credential":{}}"#))
            #expect(native.status == .unauthorized && Self.code(native) == "missing")

            let (pair, _) = try await Self.tokens(client, "jade", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            // Another genuine, attested key: its assertion verifies, but the family is not its own.
            let first = try await Self.challenge(client)
            let foreign = try other.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + first))
            let refused = try await Self.refresh(client, pair.refresh, headers: Self.headers(other, foreign, challenge: first))
            #expect(refused.status == .badRequest)
            #expect(try TokenTests.error(refused) == "invalid_grant")
            // Nothing was spent: the family's own key refreshes with the same token.
            let second = try await Self.challenge(client)
            let own = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + second))
            let refreshed = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, own, challenge: second))
            #expect(refreshed.status == .ok)
        }
    }

    @Test(arguments: Adapter.allCases) func attestThenRefreshWithAnAssertion(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            let attested = try await Self.attest(client, device)
            #expect(attested.status == .created)
            #expect(try AppTests.object(attested)["environment"] as? String == "production")
            #expect(try AppTests.object(attested)["keyId"] as? String == device.keyIdBase64)
            // The same key attested again: refused.
            let again = try await Self.attest(client, device)
            #expect(again.status == .conflict)

            let (pair, _) = try await Self.tokens(client, "ada", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            let challenge = try await Self.challenge(client)
            let assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            let refreshed = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(refreshed.status == .ok)
            let next = try TokenPair(refreshed)
            #expect(next.refresh != pair.refresh)

            // The same request again (same challenge, same assertion): refused, nothing rotated.
            let replayed = try await Self.refresh(client, next.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(replayed.status == .unauthorized)
            #expect(Self.code(replayed) == "challenge")
            // The next one binds a fresh challenge and works, with the token the replay did not rotate.
            let fresh = try await Self.challenge(client)
            let nextBody = "grant_type=refresh_token&refresh_token=\(next.refresh)"
            let second = try device.assert(clientData: Self.clientData("POST", "/oauth/token", nextBody, "challenge=" + fresh))
            #expect(try await Self.refresh(client, next.refresh, headers: Self.headers(device, second, challenge: fresh)).status == .ok)
        }
    }

    @Test(arguments: Adapter.allCases) func everyRefusalChangesNothing(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, device).status == .created)
            let (pair, _) = try await Self.tokens(client, "bea", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"

            // No assertion where it is required.
            let missing = try await Self.refresh(client, pair.refresh)
            #expect(missing.status == .unauthorized)
            #expect(Self.code(missing) == "missing")
            #expect(try AppTests.object(missing)["error"] as? String != nil)

            // One header without the other, or not base64.
            var half = Self.headers(device, [1], challenge: nil)
            half[HTTPField.Name(AppAttest.Header.assertion)!] = nil
            #expect(Self.code(try await Self.refresh(client, pair.refresh, headers: half)) == "malformed")

            // No challenge and no bearer token to bind.
            let unbound = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge="))
            let noChallenge = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, unbound, challenge: nil))
            #expect(noChallenge.status == .unauthorized && Self.code(noChallenge) == "challenge")
            // A challenge never issued.
            let forged = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, unbound, challenge: "AAAA"))
            #expect(forged.status == .unauthorized && Self.code(forged) == "challenge")

            // An unknown key (never attested).
            var stranger = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            var challenge = try await Self.challenge(client)
            var assertion = try stranger.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            let unknown = try await Self.refresh(client, pair.refresh, headers: Self.headers(stranger, assertion, challenge: challenge))
            #expect(unknown.status == .unauthorized && Self.code(unknown) == "unknown-key")

            // Signed by another key.
            challenge = try await Self.challenge(client)
            assertion = try device.assert(
                clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge),
                signWith: P256.Signing.PrivateKey())
            let badSignature = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(badSignature.status == .unauthorized && Self.code(badSignature) == "signature")

            // Signed over another body (or path): the rebuilt client data differs.
            challenge = try await Self.challenge(client)
            assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body + "x", "challenge=" + challenge))
            let otherBody = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(otherBody.status == .unauthorized && Self.code(otherBody) == "signature")
            challenge = try await Self.challenge(client)
            assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/revoke", body, "challenge=" + challenge))
            #expect(
                Self.code(try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge)))
                    == "signature")

            // Another app's assertion.
            challenge = try await Self.challenge(client)
            assertion = try device.assert(
                clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge),
                appId: "ABCDE12345.org.example.other")
            let otherApp = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(otherApp.status == .forbidden && Self.code(otherApp) == "app")

            // None of those rotated the refresh token: it still refreshes once (a rotated one would end the family).
            challenge = try await Self.challenge(client)
            assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            #expect(
                try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge)).status == .ok)
        }
    }

    @Test(arguments: Adapter.allCases) func replayedCounterIsRefusedAndTheTokenStaysUnrotated(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, device).status == .created)
            let (pair, _) = try await Self.tokens(client, "cleo", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            // Counter 2 (the token login used 1) over a request that is refused by another check: the counter is not stored.
            var challenge = try await Self.challenge(client)
            var assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body + "x", "challenge=" + challenge))
            #expect(
                try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge)).status
                    == .unauthorized)
            // Counter 2 again, now right: accepted (the refused one stored nothing).
            challenge = try await Self.challenge(client)
            assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge), counter: 2)
            let first = try await Self.refresh(client, pair.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(first.status == .ok)
            let next = try TokenPair(first)
            // Counter 2 a third time, on a fresh challenge: replayed.
            let nextBody = "grant_type=refresh_token&refresh_token=\(next.refresh)"
            challenge = try await Self.challenge(client)
            assertion = try device.assert(
                clientData: Self.clientData("POST", "/oauth/token", nextBody, "challenge=" + challenge), counter: 2)
            let replayed = try await Self.refresh(client, next.refresh, headers: Self.headers(device, assertion, challenge: challenge))
            #expect(replayed.status == .unauthorized && Self.code(replayed) == "replayed")
            // Not rotated: the token still refreshes (reuse would have ended the family).
            challenge = try await Self.challenge(client)
            assertion = try device.assert(clientData: Self.clientData("POST", "/oauth/token", nextBody, "challenge=" + challenge))
            #expect(
                try await Self.refresh(client, next.refresh, headers: Self.headers(device, assertion, challenge: challenge)).status == .ok)
        }
    }

    @Test(arguments: Adapter.allCases) func attestationRefusals(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            // A development key on a production server: refused, not stored.
            var development = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID, development: true)
            let refused = try await Self.attest(client, development)
            #expect(refused.status == .forbidden)
            var genuine = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, genuine).status == .created)
            let (pair, _) = try await Self.tokens(client, "dora", device: &genuine)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            let challenge = try await Self.challenge(client)
            let assertion = try development.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            #expect(
                Self.code(try await Self.refresh(client, pair.refresh, headers: Self.headers(development, assertion, challenge: challenge)))
                    == "unknown-key")
            // Under a root the server does not trust.
            let elsewhere = SoftwareAppAttestDevice(authority: try SoftwareAppAttestDevice.Authority(), appId: Self.app.appID)
            #expect(try await Self.attest(client, elsewhere).status == .forbidden)
            // For another app.
            let other = SoftwareAppAttestDevice(authority: authority, appId: "ABCDE12345.org.example.other")
            #expect(try await Self.attest(client, other).status == .forbidden)
            // A challenge used twice, and one never issued.
            let device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            let used = try await Self.challenge(client)
            let first = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, first, challenge: used).status == .created)
            #expect(try await Self.attest(client, device, challenge: used).status == .badRequest)
            #expect(try await Self.attest(client, device, challenge: "never-issued").status == .badRequest)
            // An attestation over another challenge than the one sent.
            let sent = try await Self.challenge(client)
            let overOther = try device.attest(challenge: "something else")
            #expect(try await Self.attest(client, device, challenge: sent, attestation: overOther).status == .forbidden)
            // A keyId that is not 32 bytes.
            let short = try await client.execute(
                uri: "/appattest/attest", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"keyId":"AAAA","attestation":"AAAA","challenge":"x"}"#))
            #expect(short.status == .badRequest)
            // And after all that, the device attests.
            #expect(try await Self.attest(client, device).status == .created)
        }
    }

    @Test(arguments: Adapter.allCases) func addingAPasskeyWithABearerTokenNeedsAnAssertion(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, device).status == .created)
            let (pair, passkey) = try await Self.tokens(client, "edna", device: &device)
            var app = Client(client)
            let bearer = TokenTests.bearer(pair.access)
            func register() async throws -> (String, HTTPFields) {
                let options = try await app.send("/api/register/options", method: .post, json: "{}", headers: bearer)
                #expect(options.status == .ok)
                let document = try AppTests.object(options)
                var added = SoftwarePasskey(rpId: "localhost", origin: AppTests.origin, userHandle: passkey.userHandle)
                let body = String(decoding: added.register(challenge: document["challenge"] as? String ?? ""), as: UTF8.self)
                return (body, bearer)
            }
            func count() async throws -> Int {
                let me = try await client.execute(uri: "/api/me", method: .get, headers: bearer)
                return (try AppTests.object(me)["passkeys"] as? [Any])?.count ?? -1
            }
            #expect(try await count() == 1)
            // Without an assertion: refused, nothing added.
            let (body, headers) = try await register()
            let refused = try await app.send("/api/register/verify", method: .post, json: body, headers: headers)
            #expect(refused.status == .unauthorized && Self.code(refused) == "missing")
            #expect(try await count() == 1)
            // With one bound to the access token's jti.
            let jti =
                try #require(
                    try JSONSerialization.jsonObject(
                        with: Data(Base64URLTest.decode(String(pair.access.split(separator: ".")[1])))) as? [String: Any])["jti"] as? String
            let (body2, headers2) = try await register()
            let wrongJti = try device.assert(clientData: Self.clientData("POST", "/api/register/verify", body2, "jti=someone-else"))
            var withWrong = headers2
            withWrong[HTTPField.Name(AppAttest.Header.keyId)!] = device.keyIdBase64
            withWrong[HTTPField.Name(AppAttest.Header.assertion)!] = Data(wrongJti).base64EncodedString()
            let refusedJti = try await app.send("/api/register/verify", method: .post, json: body2, headers: withWrong)
            #expect(refusedJti.status == .unauthorized && Self.code(refusedJti) == "signature")
            #expect(try await count() == 1)
            let (body3, headers3) = try await register()
            let assertion = try device.assert(clientData: Self.clientData("POST", "/api/register/verify", body3, "jti=" + (jti ?? "")))
            var signed = headers3
            signed[HTTPField.Name(AppAttest.Header.keyId)!] = device.keyIdBase64
            signed[HTTPField.Name(AppAttest.Header.assertion)!] = Data(assertion).base64EncodedString()
            let added = try await app.send("/api/register/verify", method: .post, json: body3, headers: signed)
            #expect(added.status == .ok)
            #expect(try await count() == 2)
            // The web page (cookie session) is not asked for App Attest.
            var browser = Client(client)
            var web = try await browser.register("fern")
            try await browser.login(&web, username: "fern")
            _ = try await browser.register(nil)
        }
    }

    @Test(arguments: Adapter.allCases) func optionalAndOff(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.optional, authority: authority)) { client in
            var device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, device).status == .created)
            let (pair, _) = try await TokenTests.tokens(client, "gus")
            // Without the headers: passes.
            let plain = try await Self.refresh(client, pair.refresh)
            #expect(plain.status == .ok)
            let next = try TokenPair(plain)
            // With them: they must verify.
            let body = "grant_type=refresh_token&refresh_token=\(next.refresh)"
            let challenge = try await Self.challenge(client)
            let bad = try device.assert(
                clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + challenge),
                signWith: P256.Signing.PrivateKey())
            let refused = try await Self.refresh(client, next.refresh, headers: Self.headers(device, bad, challenge: challenge))
            #expect(refused.status == .unauthorized && Self.code(refused) == "signature")
            let fresh = try await Self.challenge(client)
            let good = try device.assert(clientData: Self.clientData("POST", "/oauth/token", body, "challenge=" + fresh))
            #expect(try await Self.refresh(client, next.refresh, headers: Self.headers(device, good, challenge: fresh)).status == .ok)
        }
        try await adapter.test(try Self.config(.off, authority: authority)) { client in
            // Off: no App Attest routes, and refresh asks for nothing.
            #expect(try await client.execute(uri: "/appattest/challenge", method: .post).status == .notFound)
            let (pair, _) = try await TokenTests.tokens(client, "hal")
            #expect(try await Self.refresh(client, pair.refresh).status == .ok)
        }
    }

    @Test(arguments: Adapter.allCases) func sealedChallengesAreSingleUse(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority, sealed: true)) { client in
            let device = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            let challenge = try await Self.challenge(client)
            #expect(challenge.count > 60)  // a sealed token, not a stored challenge's 43 characters
            let attestation = try device.attest(challenge: challenge)
            #expect(try await Self.attest(client, device, challenge: challenge, attestation: attestation).status == .created)
            let second = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, second, challenge: challenge).status == .badRequest)
        }
    }

    @Test(arguments: Adapter.allCases) func developmentServerTakesDevelopmentKeys(adapter: Adapter) async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority, environment: .development)) { client in
            let development = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID, development: true)
            let attested = try await Self.attest(client, development)
            #expect(attested.status == .created)
            #expect(try AppTests.object(attested)["environment"] as? String == "development")
            let production = SoftwareAppAttestDevice(authority: authority, appId: Self.app.appID)
            #expect(try await Self.attest(client, production).status == .forbidden)
        }
    }

    @Test func configuration() async throws {
        #expect(try PasskeyBackendConfiguration.fromEnvironment([:]).appAttest.mode == .off)
        #expect(throws: ConfigurationError.self) { _ = try PasskeyBackendConfiguration.fromEnvironment(["APP_ATTEST": "sometimes"]) }
        #expect(throws: ConfigurationError.self) { _ = try PasskeyBackendConfiguration.fromEnvironment(["APP_ATTEST": "required"]) }
        #expect(throws: ConfigurationError.self) {
            _ = try PasskeyBackendConfiguration.fromEnvironment([
                "APP_ATTEST": "required", "APP_ATTEST_TEAM_ID": "T", "APP_ATTEST_BUNDLE_ID": "b",
                "APP_ATTEST_ENVIRONMENT": "staging",
            ])
        }
        let config = try PasskeyBackendConfiguration.fromEnvironment([
            "APP_ATTEST": "optional", "APPLE_TEAM_ID": "ABCDE12345",
            "APPLE_BUNDLE_IDS": "org.example.app,org.example.two",
        ])
        #expect(config.appAttest.app == Self.app && config.appAttest.environment == .production && config.appAttest.rootPEMPath == nil)
        // Apple's root by default; a PEM that is not there fails the start.
        #expect(try config.appAttest.trustAnchors().count == 1)
        var missing = AppTests.config()
        missing.appAttest = AppAttestSettings(mode: .required, app: Self.app, rootPEMPath: "/nonexistent/root.pem")
        await #expect(throws: ConfigurationError.self) { _ = try await AppTests.app(missing) }
    }
}

/// The challenge of passkey options (the software passkey's reader; `challenge` inside the
/// suite names its App Attest helper).
private func optionsChallenge(_ options: Data) -> String? { challenge(in: options) }
