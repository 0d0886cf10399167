import Foundation
import WebAuthnCoding
import WebAuthnReplay

@testable import WebAuthnRP

/// Builds small `webauthn-ceremonies/1` documents in temporary folders. The
/// responses here are deliberately broken (no real authenticator): the verdicts
/// they earn are decided before any signature, which is what exit-code and output
/// tests need. Real, signed ceremonies live in the project's `Fixtures/`.
struct TempFixtures {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("webauthn-replay-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Removes the folder (call from `defer`).
    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Writes `text` to `name` (subfolders created) and returns the path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Writes a JSON object to `name` and returns the path.
    @discardableResult
    func write(_ name: String, json: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        return try write(name, String(decoding: data, as: UTF8.self))
    }
}

/// Pieces of fixture documents.
enum FixtureJSON {
    static let challengeA = Base64URL.encode(Array(repeating: 0xA1, count: 32))
    static let challengeB = Base64URL.encode(Array(repeating: 0xB2, count: 32))

    static var relyingParty: [String: Any] { ["id": "example.org", "name": "Example", "origins": ["https://example.org"]] }

    static func creationOptions(challenge: String = challengeA) -> [String: Any] {
        [
            "rp": ["id": "example.org", "name": "Example"],
            "user": ["id": Base64URL.encode(Array("user-a".utf8)), "name": "a@example.org", "displayName": "A"],
            "challenge": challenge,
            "pubKeyCredParams": [["type": "public-key", "alg": -7]],
        ]
    }

    static func requestOptions(challenge: String = challengeB) -> [String: Any] {
        ["challenge": challenge, "rpId": "example.org"]
    }

    /// Client data that parses and matches `challenge`: the ceremony then fails later,
    /// at the attestation object (registration) or credential lookup (authentication).
    static func clientData(type: String = "webauthn.create", challenge: String = challengeA) -> String {
        Base64URL.encode(Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"https://example.org"}"#.utf8))
    }

    /// A registration response with valid client data and an attestation object that
    /// is not CBOR: `reject(malformed)` at §7.1 step 13.
    static func brokenRegistration(challenge: String = challengeA) -> [String: Any] {
        [
            "id": "AQID", "rawId": "AQID", "type": "public-key", "clientExtensionResults": [String: Any](),
            "response": ["clientDataJSON": clientData(challenge: challenge), "attestationObject": "_w"],
        ]
    }

    /// An assertion for a credential nobody registered: `reject(unknownCredential)`.
    static func unknownAssertion(challenge: String = challengeB) -> [String: Any] {
        [
            "id": "AQID", "rawId": "AQID", "type": "public-key", "clientExtensionResults": [String: Any](),
            "response": [
                "clientDataJSON": clientData(type: "webauthn.get", challenge: challenge),
                "authenticatorData": "AA", "signature": "AA",
            ],
        ]
    }

    static func registration(
        _ name: String, challenge: String = challengeA, issue: Bool? = nil,
        response: [String: Any]? = nil, expect: [String: Any]
    ) -> [String: Any] {
        var ceremony: [String: Any] = [
            "name": name, "kind": "registration", "options": creationOptions(challenge: challenge),
            "response": response ?? brokenRegistration(challenge: challenge), "expect": expect,
        ]
        if let issue { ceremony["issue"] = issue }
        return ceremony
    }

    static func authentication(
        _ name: String, challenge: String = challengeB,
        response: [String: Any]? = nil, expect: [String: Any]
    ) -> [String: Any] {
        [
            "name": name, "kind": "authentication", "options": requestOptions(challenge: challenge),
            "response": response ?? unknownAssertion(challenge: challenge), "expect": expect,
        ]
    }

    static func reject(_ category: String) -> [String: Any] { ["outcome": "reject", "error": category] }

    static func document(_ ceremonies: [[String: Any]], extra: [String: Any] = [:]) -> [String: Any] {
        var doc: [String: Any] = [
            "format": "webauthn-ceremonies/1", "description": "replay test", "relyingParty": relyingParty,
            "policy": ["verificationTime": "2025-06-01T00:00:00Z"], "ceremonies": ceremonies,
        ]
        for (key, value) in extra { doc[key] = value }
        return doc
    }

    /// One ceremony that meets its expectation.
    static var passingDocument: [String: Any] {
        document([registration("broken-attestation-object", expect: reject("malformed"))])
    }
}

/// Suites that replay one fixture document written to a temporary file.
protocol ReplaysOneDocument {}

extension ReplaysOneDocument {
    /// Writes `json` as a fixture file, replays it, and returns the report and the file's path.
    func replay(_ json: [String: Any]) async throws -> (ReplayReport, String) {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = try temp.write("fixture.json", json: json)
        return (await Replayer.replay(paths: [path]), path)
    }

    /// Writes `text` as a fixture file, replays it, and returns the report and the file's path.
    func replay(text: String) async throws -> (ReplayReport, String) {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = try temp.write("fixture.json", text)
        return (await Replayer.replay(paths: [path]), path)
    }
}
