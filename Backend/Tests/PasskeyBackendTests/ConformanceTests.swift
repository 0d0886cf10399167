import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoftwarePasskey
import SwiftASN1
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// The FIDO2 Server Conformance Test API under `CONFORMANCE=1` (in process, in memory): the four
/// routes' shapes, their ServerResponse failures, and their absence from the default server.
/// Tests/run-conformance.sh plays the tool's groups against the real binary over HTTP.
@Suite struct ConformanceTests {
    /// A folder with one PEM anchor and one metadata statement naming the same root.
    static func toolFolders() throws -> (anchors: String, metadata: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)").path
        let authority = try SoftwareAppAttestDevice.Authority()
        try FileManager.default.createDirectory(atPath: base + "/anchors", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/metadata", withIntermediateDirectories: true)
        try authority.rootPEM().write(toFile: base + "/anchors/root.pem", atomically: true, encoding: .utf8)
        let der = try Data(authority.root.serializeAsPEM().derBytes).base64EncodedString()
        let statement = """
            {"aaguid":"4e4e4e4e-4e4e-4e4e-4e4e-4e4e4e4e4e4e","description":"test","schema":3,
             "attestationTypes":["basic_full"],"attestationRootCertificates":["\(der)"]}
            """
        try statement.write(toFile: base + "/metadata/statement.json", atomically: true, encoding: .utf8)
        return (base + "/anchors", base + "/metadata")
    }

    /// The conformance profile's configuration (the tool's folders of anchors and statements).
    static func config() throws -> PasskeyBackendConfiguration {
        let folders = try toolFolders()
        return AppTests.config {
            $0.conformance = ConformanceSettings(trustAnchorsDirectory: folders.anchors, metadataDirectory: folders.metadata)
        }
    }

    static func expectFailed(_ response: TestResponse) throws {
        #expect(response.status == .badRequest)
        let body = try AppTests.object(response)
        #expect(body["status"] as? String == "failed")
        #expect((body["errorMessage"] as? String)?.isEmpty == false)
    }

    static func expectOK(_ response: TestResponse) throws -> [String: Any] {
        #expect(response.status == .ok)
        let body = try AppTests.object(response)
        #expect(body["status"] as? String == "ok")
        #expect(body["errorMessage"] as? String == "")
        return body
    }

    /// The tool posts from its own origin: the conformance server answers it, while the default
    /// server refuses the same request as cross-site.
    @Test(arguments: Adapter.allCases) func theToolsOwnOriginIsAnswered(adapter: Adapter) async throws {
        let toolHeaders: HTTPFields = [.origin: "null", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
        let body = #"{"username":"tool","displayName":"Tool"}"#
        try await adapter.test(try Self.config()) { client in
            var tool = Client(client)
            _ = try Self.expectOK(try await tool.send("/attestation/options", method: .post, json: body, headers: toolHeaders))
        }
        try await adapter.test { client in
            var page = Client(client)
            let refused = try await page.send("/api/register/options", method: .post, json: body, headers: toolHeaders)
            #expect(refused.status == .forbidden)
        }
    }

    @Test(arguments: Adapter.allCases) func theDefaultServerHasNoConformanceRoutes(adapter: Adapter) async throws {
        try await adapter.test { client in
            var user = Client(client)
            for path in ["/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result"] {
                let response = try await user.send(path, method: .post, json: #"{"username":"alice"}"#)
                #expect(response.status == .notFound)
            }
        }
    }

    @Test(arguments: Adapter.allCases) func creationOptionsEchoTheRequest(adapter: Adapter) async throws {
        try await adapter.test(try Self.config()) { client in
            var user = Client(client)
            let request = """
                {"username":"alice","displayName":"Alice A","attestation":"direct",
                 "authenticatorSelection":{"requireResidentKey":false,"authenticatorAttachment":"cross-platform","userVerification":"required"},
                 "extensions":{"example.extension":true}}
                """
            let first = try Self.expectOK(try await user.send("/attestation/options", method: .post, json: request))
            #expect(
                first["authenticatorSelection"] as? NSDictionary
                    == ["requireResidentKey": false, "authenticatorAttachment": "cross-platform", "userVerification": "required"])
            #expect(first["attestation"] as? String == "direct")
            #expect(first["extensions"] as? NSDictionary == ["example.extension": true])
            let user_ = try #require(first["user"] as? [String: Any])
            #expect(user_["name"] as? String == "alice")
            #expect(user_["displayName"] as? String == "Alice A")
            let challenge = try Base64URLTest.decode(first["challenge"] as? String ?? "")
            #expect(challenge.count >= 16)
            let algorithms = (first["pubKeyCredParams"] as? [[String: Any]] ?? []).compactMap { $0["alg"] as? Int }
            #expect(algorithms.contains(-65535) && algorithms.contains(-7) && algorithms.contains(-257))
            #expect((first["excludeCredentials"] as? [Any])?.isEmpty == true)
            #expect(user.cookies["pk_reg"] != nil)
            let second = try Self.expectOK(try await user.send("/attestation/options", method: .post, json: request))
            #expect(second["challenge"] as? String != first["challenge"] as? String)
        }
    }

    @Test(arguments: Adapter.allCases) func registerThenAssertThroughTheFourRoutes(adapter: Adapter) async throws {
        try await adapter.test(try Self.config()) { client in
            var user = Client(client)
            let options = try Self.expectOK(
                try await user.send("/attestation/options", method: .post, json: #"{"username":"bob","displayName":"Bob"}"#))
            let handle = try Base64URLTest.decode((options["user"] as? [String: Any])?["id"] as? String ?? "")
            var passkey = SoftwarePasskey(rpId: "localhost", origin: AppTests.origin, userHandle: handle)
            let credential = passkey.register(challenge: options["challenge"] as? String ?? "")
            let json = String(decoding: credential, as: UTF8.self)
            _ = try Self.expectOK(try await user.send("/attestation/result", method: .post, json: json))
            // The ceremony is spent: the same result again fails.
            try Self.expectFailed(try await user.send("/attestation/result", method: .post, json: json))
            // The registered credential is excluded from the next registration and allowed at login.
            let again = try Self.expectOK(try await user.send("/attestation/options", method: .post, json: #"{"username":"bob"}"#))
            let excluded = (again["excludeCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(excluded == [SoftwarePasskey.b64(passkey.credentialId)])
            let login = try Self.expectOK(
                try await user.send(
                    "/assertion/options", method: .post,
                    json: #"{"username":"bob","userVerification":"discouraged","extensions":{"example.extension":"x"}}"#))
            #expect(login["userVerification"] as? String == "discouraged")
            #expect(login["extensions"] as? NSDictionary == ["example.extension": "x"])
            #expect(login["rpId"] as? String == "localhost")
            let allowed = (login["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(allowed == [SoftwarePasskey.b64(passkey.credentialId)])
            let assertion = try passkey.assert(challenge: login["challenge"] as? String ?? "")
            let body = String(decoding: assertion, as: UTF8.self)
            _ = try Self.expectOK(try await user.send("/assertion/result", method: .post, json: body))
            try Self.expectFailed(try await user.send("/assertion/result", method: .post, json: body))
        }
    }

    @Test(arguments: Adapter.allCases) func failuresAreFailedServerResponses(adapter: Adapter) async throws {
        try await adapter.test(try Self.config()) { client in
            var user = Client(client)
            // An unknown user, no username, a username of another JSON kind, a body that is not JSON.
            try Self.expectFailed(try await user.send("/assertion/options", method: .post, json: #"{"username":"nobody"}"#))
            try Self.expectFailed(try await user.send("/attestation/options", method: .post, json: #"{"displayName":"x"}"#))
            try Self.expectFailed(try await user.send("/attestation/options", method: .post, json: #"{"username":5}"#))
            try Self.expectFailed(try await user.send("/attestation/options", method: .post, json: "{not json"))
            try Self.expectFailed(
                try await user.send("/attestation/options", method: .post, json: #"{"username":"carol","extensions":[1]}"#))
            // Results without their options (no ceremony cookie) and results that are not credentials.
            try Self.expectFailed(try await user.send("/attestation/result", method: .post, json: #"{"id":"AA"}"#))
            try Self.expectFailed(try await user.send("/assertion/result", method: .post, json: #"{"id":"AA"}"#))
            _ = try Self.expectOK(try await user.send("/attestation/options", method: .post, json: #"{"username":"carol"}"#))
            try Self.expectFailed(try await user.send("/attestation/result", method: .post, json: #"{"id":"AA","response":7}"#))
            try Self.expectFailed(try await user.send("/attestation/result", method: .post, json: "[]"))
        }
    }

    @Test func theProfileIsConfiguredByEnvironmentAlone() throws {
        #expect(try PasskeyBackendConfiguration.fromEnvironment([:]).conformance == nil)
        let config = try PasskeyBackendConfiguration.fromEnvironment(["CONFORMANCE": "1", "TRUST_ANCHORS_DIR": "/a", "METADATA_DIR": "/m"])
        #expect(config.conformance?.trustAnchorsDirectory == "/a")
        #expect(config.conformance?.metadataDirectory == "/m")
        #expect(throws: ConfigurationError.self) { _ = try PasskeyBackendConfiguration.fromEnvironment(["CONFORMANCE": "1"]) }
        #expect(throws: ConfigurationError.self) {
            _ = try PasskeyBackendConfiguration.fromEnvironment(["CONFORMANCE": "yes", "TRUST_ANCHORS_DIR": "/a", "METADATA_DIR": "/m"])
        }
        #expect(throws: ConfigurationError.self) {
            _ = try PasskeyBackendConfiguration.fromEnvironment([
                "CONFORMANCE": "1", "TRUST_ANCHORS_DIR": "/a", "METADATA_DIR": "/m", "DATABASE_URL": "postgres://u@h/d",
            ])
        }
        // A folder that does not exist, or a PEM file that is not a certificate, stops the start.
        #expect(throws: ConfigurationError.self) {
            _ = try ConformanceSettings(trustAnchorsDirectory: "/nonexistent-anchors", metadataDirectory: "/nonexistent").policy()
        }
        let folders = try Self.toolFolders()
        try "not a certificate".write(toFile: folders.anchors + "/bad.pem", atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) {
            _ = try ConformanceSettings(trustAnchorsDirectory: folders.anchors, metadataDirectory: folders.metadata).policy()
        }
    }
}
