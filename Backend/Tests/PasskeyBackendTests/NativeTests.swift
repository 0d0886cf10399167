import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoftwarePasskey
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// The native ceremonies in process: an iOS app's body (AuthenticationServices names, `Data` as
/// `JSONEncoder` writes it) with the origin `https://<rp id>`, the ceremony state handed back in
/// the body, no cookie, tokens in answer; and their refusals.
@Suite struct NativeTests {
    static let appOrigin = "https://localhost"

    static func config() throws -> PasskeyBackendConfiguration {
        try PasskeyBackendConfiguration.fromEnvironment([
            "ORIGINS": "http://localhost:8080,\(appOrigin)", "SESSION_KEY": String(repeating: "cd", count: 32),
            "APPLE_TEAM_ID": "ABCDE12345", "APPLE_BUNDLE_IDS": "org.example.app",
        ])
    }

    /// What `ASAuthorizationPlatformPublicKeyCredentialRegistration` gives, as the app encodes it.
    struct AppRegistration: Encodable { var credentialID: Data; var rawClientDataJSON: Data; var rawAttestationObject: Data }
    /// What `ASAuthorizationPlatformPublicKeyCredentialAssertion` gives.
    struct AppAssertion: Encodable {
        var credentialID: Data; var rawClientDataJSON: Data; var rawAuthenticatorData: Data; var signature: Data; var userID: Data
    }
    struct Finish<Credential: Encodable>: Encodable { var state: String; var credential: Credential }

    static func challenge(_ options: [String: Any]) throws -> String { try #require(options["challenge"] as? String) }

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The browser JSON the software passkey writes, turned into the app's fields.
    static func field(_ json: [String: Any], _ name: String) throws -> Data {
        let response = try #require(json["response"] as? [String: Any])
        let text = try #require((response[name] ?? json[name]) as? String)
        return Data(try Base64URLTest.decode(text))
    }

    static func post(
        _ client: any TestClientProtocol, _ uri: String, _ body: some Encodable,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        headers[.contentType] = "application/json"
        return try await client.execute(
            uri: uri, method: .post, headers: headers,
            body: ByteBuffer(bytes: try JSONEncoder().encode(body)))
    }

    static func options(_ response: TestResponse) throws -> (options: [String: Any], state: String) {
        #expect(response.status == .ok)
        #expect(response.headers[.setCookie] == nil)
        let object = try AppTests.object(response)
        return (try #require(object["options"] as? [String: Any]), try #require(object["state"] as? String))
    }

    /// Signs up `name` the way the app does; answers its tokens and its passkey.
    static func signUp(_ client: any TestClientProtocol, _ name: String) async throws -> (TokenPair, SoftwarePasskey) {
        let (options, state) = try Self.options(try await post(client, "/native/register/options", ["username": name]))
        let userText = try #require((options["user"] as? [String: Any])?["id"] as? String)
        let userID = try Base64URLTest.decode(userText)
        var passkey = SoftwarePasskey(rpId: "localhost", origin: appOrigin, userHandle: userID)
        let browser = try Self.json(passkey.register(challenge: try Self.challenge(options)))
        let body = Finish(
            state: state,
            credential: AppRegistration(
                credentialID: try field(browser, "rawId"), rawClientDataJSON: try field(browser, "clientDataJSON"),
                rawAttestationObject: try field(browser, "attestationObject")))
        let finished = try await post(client, "/native/register/finish", body)
        #expect(finished.status == .ok)
        return (try TokenPair(finished), passkey)
    }

    static func assertion(_ passkey: inout SoftwarePasskey, _ options: [String: Any]) throws -> AppAssertion {
        let browser = try Self.json(try passkey.assert(challenge: try Self.challenge(options)))
        return AppAssertion(
            credentialID: try field(browser, "rawId"), rawClientDataJSON: try field(browser, "clientDataJSON"),
            rawAuthenticatorData: try field(browser, "authenticatorData"), signature: try field(browser, "signature"),
            userID: Data(passkey.userHandle))
    }

    @Test(arguments: Adapter.allCases) func signUpSignInWithTheAppsBody(adapter: Adapter) async throws {
        try await adapter.test(try Self.config()) { client in
            let (first, passkey) = try await Self.signUp(client, "ivy")
            let me = try await client.execute(uri: "/api/me", method: .get, headers: TokenTests.bearer(first.access))
            #expect(try AppTests.object(me)["username"] as? String == "ivy")
            // Usernameless, then username-first: any node could finish (the state is in the body).
            var copy = passkey
            for name in [nil, "Ivy"] as [String?] {
                let (options, state) = try Self.options(
                    try await Self.post(
                        client, "/native/login/options",
                        name.map { ["username": $0] } ?? [:]))
                let answer = try await Self.post(
                    client, "/native/login/finish",
                    Finish(state: state, credential: try Self.assertion(&copy, options)))
                #expect(answer.status == .ok)
                let tokens = try TokenPair(answer)
                #expect(try await client.execute(uri: "/api/me", method: .get, headers: TokenTests.bearer(tokens.access)).status == .ok)
            }
            // One more passkey, added by the signed-in app with its bearer token.
            let (options, state) = try Self.options(
                try await Self.post(
                    client, "/native/register/options", [String: String](),
                    headers: TokenTests.bearer(first.access)))
            var second = SoftwarePasskey(rpId: "localhost", origin: Self.appOrigin, userHandle: passkey.userHandle)
            let browser = try Self.json(second.register(challenge: try Self.challenge(options)))
            let added = try await Self.post(
                client, "/native/register/finish",
                Finish(
                    state: state,
                    credential: AppRegistration(
                        credentialID: try Self.field(browser, "rawId"), rawClientDataJSON: try Self.field(browser, "clientDataJSON"),
                        rawAttestationObject: try Self.field(browser, "attestationObject"))), headers: TokenTests.bearer(first.access))
            #expect(added.status == .ok)
            #expect(try AppTests.object(added)["username"] as? String == "ivy")
        }
    }

    @Test(arguments: Adapter.allCases) func refusals(adapter: Adapter) async throws {
        try await adapter.test(try Self.config()) { client in
            var (_, passkey) = try await Self.signUp(client, "jay")
            let (options, state) = try Self.options(try await Self.post(client, "/native/login/options", ["username": "jay"]))
            let assertion = try Self.assertion(&passkey, options)
            // A forged or missing state, a body that is not {state, credential}, a replay.
            let forged = try await Self.post(client, "/native/login/finish", Finish(state: "e30.AAAA", credential: assertion))
            #expect(forged.status == .badRequest)
            let registrationState = try await Self.post(
                client, "/native/login/finish",
                Finish(
                    state: try Self.options(
                        try await Self.post(
                            client, "/native/register/options", ["username": "kim"])
                    ).state,
                    credential: assertion))
            #expect(registrationState.status == .badRequest)
            #expect(try await Self.post(client, "/native/login/finish", ["state": state]).status == .badRequest)
            #expect(try await Self.post(client, "/native/login/finish", assertion).status == .badRequest)
            let duplicate = try await client.execute(
                uri: "/native/login/finish", method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"state":"a","state":"b","credential":{}}"#))
            #expect(duplicate.status == .badRequest)
            #expect(try await Self.post(client, "/native/login/finish", Finish(state: state, credential: assertion)).status == .ok)
            #expect(
                try await Self.post(client, "/native/login/finish", Finish(state: state, credential: assertion)).status
                    == .badRequest)
            // Adding a passkey needs the account's bearer token.
            let (addOptions, addState) = try Self.options(try await Self.post(client, "/native/register/options", ["username": "lee"]))
            _ = addOptions
            let other = try await Self.post(
                client, "/native/register/finish",
                Finish(state: addState, credential: ["credentialID": "AAAA"]))
            #expect(other.status == .badRequest)
        }
    }
}
