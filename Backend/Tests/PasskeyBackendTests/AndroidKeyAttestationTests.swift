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

/// Android key attestation in process, on both adapters: the challenge and register routes, the
/// assertion the app-integrity guard asks for on token issuance and refresh, each refusal (with
/// nothing changed), a debug-signed app's key refused, the family bound to its Android key, and
/// the settings read from the environment. A software device attests under a test root given to
/// the server as a PEM.
@Suite struct AndroidKeyAttestationTests {
    static let package = "org.example.app"

    static func config(
        _ mode: AppIntegrityMode, authority: SoftwareAndroidDevice.Authority, appAttest: AppAttestSettings = AppAttestSettings()
    ) throws -> PasskeyBackendConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("android-root-\(UUID().uuidString).pem").path
        try authority.rootPEM().write(toFile: path, atomically: true, encoding: .utf8)
        let release = SoftwareAndroidDevice(authority: authority, packageName: package, signer: "release")
        let app = try AndroidApp(packageName: package, sha256Fingerprint: release.fingerprint)
        return AppTests.config {
            $0.androidApps = [app]
            $0.androidKeyAttestation = AndroidKeyAttestationSettings(mode: mode, rootPEMPath: path)
            $0.appAttest = appAttest
        }
    }

    static func challenge(_ client: any TestClientProtocol) async throws -> String {
        let response = try await client.execute(uri: "/android/challenge", method: .post)
        #expect(response.status == .ok)
        return try #require(try AppTests.object(response)["challenge"] as? String)
    }

    static func register(
        _ client: any TestClientProtocol, _ device: SoftwareAndroidDevice, challenge given: String? = nil, locked: Bool = true
    ) async throws -> TestResponse {
        let challenge: String
        if let given { challenge = given } else { challenge = try await Self.challenge(client) }
        let chain = try device.chain(challenge: challenge, locked: locked).map { "\"\($0)\"" }.joined(separator: ",")
        return try await client.execute(
            uri: "/android/register", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"challenge":"\#(challenge)","certificateChain":[\#(chain)]}"#))
    }

    static func headers(
        _ device: SoftwareAndroidDevice, _ signed: (counter: UInt32, signature: String), challenge: String?,
        contentType: String? = "application/x-www-form-urlencoded"
    ) -> HTTPFields {
        var fields: HTTPFields = [
            HTTPField.Name(AndroidKeyAttestation.Header.keyId)!: device.keyIdBase64,
            HTTPField.Name(AndroidKeyAttestation.Header.counter)!: "\(signed.counter)",
            HTTPField.Name(AndroidKeyAttestation.Header.signature)!: signed.signature,
        ]
        if let contentType { fields[.contentType] = contentType }
        if let challenge { fields[HTTPField.Name(AndroidKeyAttestation.Header.challenge)!] = challenge }
        return fields
    }

    static func code(_ response: TestResponse) -> String? { response.headers[HTTPField.Name(AndroidKeyAttestation.Header.error)!] }

    /// Signs up `name` on the page, then logs in for tokens as an Android app does: the token
    /// login carries `device`'s assertion bound to a fresh challenge.
    static func tokens(
        _ client: any TestClientProtocol, _ name: String, device: inout SoftwareAndroidDevice
    ) async throws -> TokenPair {
        var browser = Client(client)
        var passkey = try await browser.register(name)
        var app = Client(client)
        let options = try await app.send("/api/login/options", method: .post, json: #"{"username":"\#(name)"}"#)
        let body = String(
            decoding: try passkey.assert(challenge: passkeyChallenge(Data(options.body.readableBytesView)) ?? ""), as: UTF8.self)
        let fresh = try await Self.challenge(client)
        let signed = try device.sign(binding: fresh, path: "/api/token/login/verify", body: body)
        let answer = try await app.send(
            "/api/token/login/verify", method: .post, json: body, headers: Self.headers(device, signed, challenge: fresh, contentType: nil))
        #expect(answer.status == .ok)
        return try TokenPair(answer)
    }

    @Test(arguments: Adapter.allCases) func registerThenRefreshWithAnAssertion(adapter: Adapter) async throws {
        let authority = try SoftwareAndroidDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            let registered = try await Self.register(client, device)
            #expect(registered.status == .created)
            let facts = try AppTests.object(registered)
            #expect(facts["keyId"] as? String == device.keyIdBase64)
            #expect(facts["packageName"] as? String == Self.package)
            #expect(facts["securityLevel"] as? String == "trustedEnvironment")
            #expect(facts["verifiedBootState"] as? String == "verified")
            #expect(facts["osPatchLevel"] as? Int == 202_510)
            // The same key registered again: refused.
            #expect(try await Self.register(client, device).status == .conflict)

            let pair = try await Self.tokens(client, "ada", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            let challenge = try await Self.challenge(client)
            let signed = try device.sign(binding: challenge, path: "/oauth/token", body: body)
            let refreshed = try await AppAttestTests.refresh(
                client, pair.refresh, headers: Self.headers(device, signed, challenge: challenge))
            #expect(refreshed.status == .ok)
            let next = try TokenPair(refreshed)
            // The same request again: its challenge is spent.
            let replayed = try await AppAttestTests.refresh(
                client, next.refresh, headers: Self.headers(device, signed, challenge: challenge))
            #expect(replayed.status == .unauthorized && Self.code(replayed) == "challenge")
        }
    }

    @Test(arguments: Adapter.allCases) func attestationRefusals(adapter: Adapter) async throws {
        let authority = try SoftwareAndroidDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            // A debug build: signed with another certificate than the declared one.
            let debug = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "debug")
            let refused = try await Self.register(client, debug)
            #expect(refused.status == .forbidden)
            #expect(try AppTests.object(refused)["error"] as? String != nil)
            // Another package, an unlocked bootloader, another root: refused too.
            let other = SoftwareAndroidDevice(authority: authority, packageName: "org.example.other", signer: "release")
            #expect(try await Self.register(client, other).status == .forbidden)
            let unlocked = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, unlocked, locked: false).status == .forbidden)
            let stranger = SoftwareAndroidDevice(
                authority: try SoftwareAndroidDevice.Authority(), packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, stranger).status == .forbidden)
            // A challenge never issued, or used by a refused attestation already.
            let device = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, device, challenge: "AAAA").status == .badRequest)
            let challenge = try await Self.challenge(client)
            #expect(try await Self.register(client, debug, challenge: challenge).status == .forbidden)
            #expect(try await Self.register(client, device, challenge: challenge).status == .badRequest)
            // Not a chain.
            let empty = try await client.execute(
                uri: "/android/register", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"challenge":"x","certificateChain":["AAAA"]}"#))
            #expect(empty.status == .badRequest)
            // The refused ones stored nothing: the genuine key still registers.
            #expect(try await Self.register(client, device).status == .created)
        }
    }

    @Test(arguments: Adapter.allCases) func everyAssertionRefusalChangesNothing(adapter: Adapter) async throws {
        let authority = try SoftwareAndroidDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            var other = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, device).status == .created)
            #expect(try await Self.register(client, other).status == .created)
            let pair = try await Self.tokens(client, "bea", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            func refresh(_ headers: HTTPFields) async throws -> TestResponse {
                try await AppAttestTests.refresh(client, pair.refresh, headers: headers)
            }

            // No assertion where it is required.
            let missing = try await AppAttestTests.refresh(client, pair.refresh)
            #expect(missing.status == .unauthorized && Self.code(missing) == "missing")
            // A header missing, or a counter that is not a number.
            var half = Self.headers(device, (1, "AAAA"), challenge: nil)
            half[HTTPField.Name(AndroidKeyAttestation.Header.signature)!] = nil
            #expect(Self.code(try await refresh(half)) == "malformed")
            #expect(Self.code(try await refresh(Self.headers(device, (1, "AAAA"), challenge: nil).replacing(counter: "-1"))) == "malformed")
            // No challenge and no bearer token to bind.
            let unbound = try device.sign(binding: "", path: "/oauth/token", body: body)
            #expect(Self.code(try await refresh(Self.headers(device, unbound, challenge: nil))) == "challenge")
            // A key never registered.
            var stranger = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            var challenge = try await Self.challenge(client)
            let unknown = try await refresh(
                Self.headers(stranger, try stranger.sign(binding: challenge, path: "/oauth/token", body: body), challenge: challenge))
            #expect(unknown.status == .unauthorized && Self.code(unknown) == "unknown-key")
            // Signed by another key, over another body, over another path.
            challenge = try await Self.challenge(client)
            var signed = try device.sign(binding: challenge, path: "/oauth/token", body: body, signWith: P256.Signing.PrivateKey())
            #expect(Self.code(try await refresh(Self.headers(device, signed, challenge: challenge))) == "signature")
            challenge = try await Self.challenge(client)
            signed = try device.sign(binding: challenge, path: "/oauth/token", body: body + "x")
            #expect(Self.code(try await refresh(Self.headers(device, signed, challenge: challenge))) == "signature")
            challenge = try await Self.challenge(client)
            signed = try device.sign(binding: challenge, path: "/oauth/revoke", body: body)
            #expect(Self.code(try await refresh(Self.headers(device, signed, challenge: challenge))) == "signature")
            // A counter not above the last accepted one (the token login used 1).
            challenge = try await Self.challenge(client)
            signed = try device.sign(binding: challenge, path: "/oauth/token", body: body, counter: 1)
            let replayed = try await refresh(Self.headers(device, signed, challenge: challenge))
            #expect(replayed.status == .unauthorized && Self.code(replayed) == "replayed")
            // Another registered key: its assertion verifies, but the family is bound to the sign-in's key.
            challenge = try await Self.challenge(client)
            signed = try other.sign(binding: challenge, path: "/oauth/token", body: body)
            let foreign = try await refresh(Self.headers(other, signed, challenge: challenge))
            #expect(foreign.status == .badRequest)
            #expect(try TokenTests.error(foreign) == "invalid_grant")
            // None of those rotated the token: the family's own key refreshes it once.
            challenge = try await Self.challenge(client)
            signed = try device.sign(binding: challenge, path: "/oauth/token", body: body)
            #expect(try await refresh(Self.headers(device, signed, challenge: challenge)).status == .ok)
        }
    }

    /// The guard is the route's own for Android as for App Attest: every spelling of the refresh
    /// that reaches the route is asked (401 `missing`), the others are 404, none rotates the
    /// token, and an assertion over the canonical path holds on a spelling.
    @Test(arguments: Adapter.allCases) func everySpellingOfTheRefreshNeedsAnAssertion(adapter: Adapter) async throws {
        let authority = try SoftwareAndroidDevice.Authority()
        try await adapter.test(try Self.config(.required, authority: authority)) { client in
            var device = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, device).status == .created)
            let pair = try await Self.tokens(client, "gia", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            var reached = 0
            for spelling in AppAttestRouteTests.spellings("/oauth/token") {
                let answer = try await client.execute(
                    uri: spelling, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: body))
                let asked = answer.status == .unauthorized && Self.code(answer) == "missing"
                #expect(asked || answer.status == .notFound, "\(spelling): \(answer.status)")
                if asked { reached += 1 }
            }
            #expect(reached >= 5)
            let challenge = try await Self.challenge(client)
            let signed = try device.sign(binding: challenge, path: "/oauth/token", body: body)
            let refreshed = try await client.execute(
                uri: "/oauth/token/", method: .post, headers: Self.headers(device, signed, challenge: challenge),
                body: ByteBuffer(string: body))
            #expect(refreshed.status == .ok)
        }
    }

    /// `optional`: a family bound to its key at sign-in still refreshes only with an assertion
    /// by that key, an assertion that is sent is verified (a wrong one is `signature`), and a
    /// browser's sign-up, which sends none, passes.
    @Test(arguments: Adapter.allCases) func optionalPassesWithoutHeadersButVerifiesThem(adapter: Adapter) async throws {
        let authority = try SoftwareAndroidDevice.Authority()
        try await adapter.test(try Self.config(.optional, authority: authority)) { client in
            var device = SoftwareAndroidDevice(authority: authority, packageName: Self.package, signer: "release")
            #expect(try await Self.register(client, device).status == .created)
            let pair = try await Self.tokens(client, "cleo", device: &device)
            let body = "grant_type=refresh_token&refresh_token=\(pair.refresh)"
            // Bound to the key at sign-in: without an assertion the family does not refresh.
            #expect(try await AppAttestTests.refresh(client, pair.refresh).status == .badRequest)
            // With a wrong one: refused by the guard.
            let challenge = try await Self.challenge(client)
            let bad = try device.sign(binding: challenge, path: "/oauth/token", body: body + "x")
            #expect(
                Self.code(try await AppAttestTests.refresh(client, pair.refresh, headers: Self.headers(device, bad, challenge: challenge)))
                    == "signature")
            // A browser's sign-up and cookie session pass without any.
            var browser = Client(client)
            _ = try await browser.register("dina")
        }
    }

    /// Both platforms on one server: an iOS app's request asserted by App Attest and an Android
    /// app's by its key pass the same guard; a request with neither is refused.
    @Test func bothPlatformsShareTheGuard() async throws {
        let android = try SoftwareAndroidDevice.Authority()
        let apple = try SoftwareAppAttestDevice.Authority()
        let appAttest = try AppAttestTests.config(.required, authority: apple).appAttest
        try await Adapter.hummingbird.test(try Self.config(.required, authority: android, appAttest: appAttest)) { client in
            var device = SoftwareAndroidDevice(authority: android, packageName: Self.package, signer: "release")
            var iPhone = SoftwareAppAttestDevice(authority: apple, appId: AppAttestTests.app.appID)
            #expect(try await Self.register(client, device).status == .created)
            #expect(try await AppAttestTests.attest(client, iPhone).status == .created)
            let androidPair = try await Self.tokens(client, "eve", device: &device)
            let (iosPair, _) = try await AppAttestTests.tokens(client, "fay", device: &iPhone)
            #expect(androidPair.refresh != iosPair.refresh)
            let bare = try await AppAttestTests.refresh(client, androidPair.refresh)
            #expect(bare.status == .unauthorized)
            // An Android family does not refresh with the iPhone's key.
            let body = "grant_type=refresh_token&refresh_token=\(androidPair.refresh)"
            let challenge = try await AppAttestTests.challenge(client)
            let assertion = try iPhone.assert(clientData: AppAttestTests.clientData("POST", "/oauth/token", body, "challenge=" + challenge))
            let crossed = try await AppAttestTests.refresh(
                client, androidPair.refresh, headers: AppAttestTests.headers(iPhone, assertion, challenge: challenge))
            #expect(crossed.status == .badRequest)
            // Both platforms' headers at once: refused before either is checked.
            let fresh = try await Self.challenge(client)
            var both = Self.headers(device, try device.sign(binding: fresh, path: "/oauth/token", body: body), challenge: fresh)
            both[HTTPField.Name(AppAttest.Header.keyId)!] = iPhone.keyIdBase64
            #expect(try await AppAttestTests.refresh(client, androidPair.refresh, headers: both).status == .badRequest)
        }
    }

    @Test func settingsFromTheEnvironment() throws {
        let fingerprint = String(repeating: "AB:", count: 31) + "AB"
        let base = ["SESSION_KEY": String(repeating: "07", count: 32), "ANDROID_APPS": "org.example.app=\(fingerprint)"]
        let off = try PasskeyBackendConfiguration.fromEnvironment(base)
        #expect(off.androidKeyAttestation.mode == .off)
        var env = base
        env["ANDROID_KEY_ATTESTATION"] = "required"
        env["ANDROID_KEY_ATTESTATION_SECURITY_LEVELS"] = "strongBox"
        env["ANDROID_KEY_ATTESTATION_LOCKED_BOOTLOADER"] = "0"
        env["ANDROID_KEY_ATTESTATION_MIN_PATCH_LEVEL"] = "202501"
        let on = try PasskeyBackendConfiguration.fromEnvironment(env)
        #expect(on.androidKeyAttestation.mode == .required)
        #expect(on.androidKeyAttestation.policy.securityLevels == [.strongBox])
        #expect(on.androidKeyAttestation.policy.requireLockedBootloader == false)
        #expect(on.androidKeyAttestation.policy.requireVerifiedBoot == true)
        #expect(on.androidKeyAttestation.policy.minimumPatchLevel == 202501)
        for (name, value) in [
            ("ANDROID_KEY_ATTESTATION", "sometimes"), ("ANDROID_KEY_ATTESTATION_SECURITY_LEVELS", "software"),
            ("ANDROID_KEY_ATTESTATION_VERIFIED_BOOT", "yes"), ("ANDROID_KEY_ATTESTATION_MIN_OS_VERSION", "x"),
        ] {
            var bad = env
            bad[name] = value
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { _ = try PasskeyBackendConfiguration.fromEnvironment(bad) }
        }
        var noApps = env
        noApps["ANDROID_APPS"] = nil
        #expect(throws: ConfigurationError.self) { _ = try PasskeyBackendConfiguration.fromEnvironment(noApps) }
    }
}

extension HTTPFields {
    /// The same fields with another `Android-Key-Counter`.
    func replacing(counter: String) -> HTTPFields {
        var copy = self
        copy[HTTPField.Name(AndroidKeyAttestation.Header.counter)!] = counter
        return copy
    }
}

/// The challenge of passkey options (`challenge` inside the suite names its Android helper).
private func passkeyChallenge(_ options: Data) -> String? { challenge(in: options) }
