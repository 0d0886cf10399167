import Foundation
import Testing

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// Replay of App Attest files (`appAttestation`, `appAssertion`, `app`, `appKeys`).
@Suite("App Attest replay")
struct AppAttestReplayTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/app-attest")

    static let production = (try? Data(contentsOf: fixtures.appendingPathComponent("production.json"))) ?? Data()

    static func document(_ edit: (inout [String: Any]) -> Void) throws -> [String: Any] {
        var object = try #require(try JSONSerialization.jsonObject(with: production) as? [String: Any])
        edit(&object)
        return object
    }

    static func replay(_ json: [String: Any]) async throws -> ReplayReport {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = try temp.write("app.json", json: json)
        return await Replayer.replay(paths: [path])
    }

    @Test("every file of Fixtures/app-attest meets its expectation")
    func fixturesPass() async throws {
        let report = await Replayer.replay(paths: [Self.fixtures.path])
        #expect(report.fixtureErrors.isEmpty)
        #expect(report.results.count >= 40)
        #expect(report.failed == 0, "\(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
    }

    @Test("--explain shows the App Attest steps")
    func explain() async throws {
        let report = await Replayer.replay(paths: [Self.fixtures.appendingPathComponent("production.json").path])
        let text = ReplayFormatter.text(report, explain: true)
        #expect(text.contains("App Attest attestation step 1"))
        #expect(text.contains("App Attest attestation step 9"))
        #expect(text.contains("App Attest assertion step 5"))
    }

    @Test("expect.environment, expect.trusted and expect.signCount are compared")
    func expectationDetails() async throws {
        let json = try Self.document { doc in
            var ceremonies = doc["ceremonies"] as! [[String: Any]]
            ceremonies[0]["expect"] = ["outcome": "accept", "environment": "development"]
            ceremonies[1]["expect"] = ["outcome": "accept", "signCount": 9]
            ceremonies[2]["expect"] = ["outcome": "accept", "environment": "development"]
            doc["ceremonies"] = ceremonies
        }
        let report = try await Self.replay(json)
        #expect(report.results.map(\.passed) == [false, false, false])
        #expect(report.exitCode == 1)
    }

    @Test("the environment of app decides the AAGUID: a production file replayed as development rejects attestation")
    func environmentSwitch() async throws {
        let json = try Self.document { doc in
            doc["app"] = ["teamId": "0352187391", "bundleId": "com.example.app", "environment": "development"]
        }
        let report = try await Self.replay(json)
        #expect(report.results.first?.actual == "reject(attestation)")
        #expect(report.results.dropFirst().allSatisfy { $0.actual == "reject(unknownCredential)" })
    }

    @Test("another teamId gives rpIdHash")
    func otherTeam() async throws {
        let json = try Self.document { doc in doc["app"] = ["teamId": "ABCDE12345", "bundleId": "com.example.app"] }
        #expect(try await Self.replay(json).results.first?.actual == "reject(rpIdHash)")
    }

    @Test("a member that is not base64url is a malformed verdict, not a broken file")
    func undecodable() async throws {
        let json = try Self.document { doc in
            var ceremonies = doc["ceremonies"] as! [[String: Any]]
            ceremonies[0]["attestation"] = "not base64url!"
            doc["ceremonies"] = ceremonies
        }
        let report = try await Self.replay(json)
        #expect(report.fixtureErrors.isEmpty)
        #expect(report.results.first?.actual == "reject(malformed)")
    }

    @Test("unusable App Attest files exit 2 naming the member")
    func unusable() async throws {
        let cases: [(String, ([String: Any]) -> [String: Any])] = [
            (
                "app",
                {
                    var d = $0; d["app"] = ["bundleId": "x"]; return d
                }
            ),
            (
                "app.environment",
                {
                    var d = $0; d["app"] = ["teamId": "T", "bundleId": "b", "environment": "staging"]; return d
                }
            ),
            (
                "appKeys[0].publicKey",
                {
                    var d = $0; d["appKeys"] = [["keyId": "AAAA", "publicKey": "AAAA", "signCount": 0]]; return d
                }
            ),
            (
                "ceremonies[0].kind",
                {
                    var d = $0; var c = d["ceremonies"] as! [[String: Any]]; c[0]["kind"] = "registration"; d["ceremonies"] = c; return d
                }
            ),
            (
                "ceremonies[0]",
                {
                    var d = $0; var c = d["ceremonies"] as! [[String: Any]]; c[0].removeValue(forKey: "challenge"); d["ceremonies"] = c;
                    return d
                }
            ),
        ]
        for (member, edit) in cases {
            let report = try await Self.replay(edit(try Self.document { _ in }))
            #expect(report.exitCode == 2, "\(member)")
            #expect(report.fixtureErrors.first?.member.hasPrefix(member) == true, "\(member): \(report.fixtureErrors)")
        }
    }

    @Test("without policy.trustAnchors the Apple root is the only anchor")
    func defaultRoot() async throws {
        let json = try Self.document { doc in doc["policy"] = ["verificationTime": "2025-06-01T00:00:00Z"] }
        #expect(try await Self.replay(json).results.first?.actual == "reject(trust)")
    }
}
