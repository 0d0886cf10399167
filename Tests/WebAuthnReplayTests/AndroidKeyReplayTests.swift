import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// Replay of Android key attestation files (`androidKeyAttestation`, `androidKeyAssertion`,
/// `androidApps`, `androidKeys`): the real device chains of `Fixtures/recorded/android-key-attestation`
/// and generated ones, with the facts `--explain` shows.
@Suite("Android key attestation replay")
struct AndroidKeyReplayTests {
    static let recorded = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/recorded/android-key-attestation")

    /// base64url without padding, as fixture files write bytes.
    static func b64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func replay(_ json: [String: Any]) async throws -> ReplayReport {
        let temp = try TempFixtures()
        defer { temp.remove() }
        return await Replayer.replay(paths: [try temp.write("android.json", json: json)])
    }

    /// A file with the test device's attestation over `challenge` and two signed requests.
    static func document(_ phone: TestAndroidDevice, edit: (inout [[String: Any]]) -> Void = { _ in }) throws -> [String: Any] {
        let challenge = Array("replayed challenge".utf8)
        let chain = try phone.chain(phone.keyDescription(challenge: challenge))
        let body = Array(#"{"n":1}"#.utf8)
        func assertion(_ name: String, counter: UInt32, expect: [String: Any]) throws -> [String: Any] {
            [
                "name": name, "kind": "androidKeyAssertion", "keyId": Self.b64url(phone.keyId), "counter": counter,
                "signature": Self.b64url(try phone.sign(counter: counter, binding: "tok", method: "POST", path: "/p", body: body)),
                "binding": "tok", "method": "POST", "path": "/p", "body": Self.b64url(body), "expect": expect,
            ]
        }
        var ceremonies: [[String: Any]] = [
            [
                "name": "attest", "kind": "androidKeyAttestation", "certificateChain": chain.map(Self.b64url),
                "challenge": Self.b64url(challenge),
                "expect": [
                    "outcome": "accept", "securityLevel": "trustedEnvironment", "verifiedBootState": "verified", "deviceLocked": true,
                    "packageName": "com.example.app", "attestationVersion": 300, "keyId": Self.b64url(phone.keyId),
                ],
            ],
            try assertion("assert 1", counter: 1, expect: ["outcome": "accept", "counter": 1]),
            try assertion("assert 1 again", counter: 1, expect: ["outcome": "reject", "error": "signCount"]),
        ]
        edit(&ceremonies)
        return [
            "format": "webauthn-ceremonies/1",
            "androidApps": [["packageName": phone.packageName, "sha256Fingerprint": try phone.app.sha256Fingerprint]],
            "policy": [
                "verificationTime": "2025-01-01T00:00:00Z", "trustAnchors": [Self.b64url(phone.rootDER)],
            ],
            "ceremonies": ceremonies,
        ]
    }

    /// Google's test data; the second source, the devices' WebAuthn recordings of the shared
    /// conformance corpus, is replayed by `.ci/run` (the corpus is not copied into the project).
    @Test("the real device chains meet their expectations, accepted and refused by their facts")
    func recordedChains() async throws {
        let report = await Replayer.replay(paths: [Self.recorded.path])
        #expect(report.fixtureErrors.isEmpty)
        #expect(report.results.count >= 8)
        #expect(report.failed == 0, "\(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        #expect(Set(report.results.map(\.file)).count == 2)
        #expect(report.results.contains { $0.actual == "reject(trust)" } && report.results.contains { $0.actual == "reject(attestation)" })
    }

    @Test("--explain shows every check and what the attestation established")
    func explain() async throws {
        let report = await Replayer.replay(paths: [Self.recorded.appendingPathComponent("google-keyattestation.json").path])
        let text = ReplayFormatter.text(report, explain: true)
        for step in [
            AndroidKeyStep.chain, AndroidKeyStep.revocation, AndroidKeyStep.rootOfTrust, AndroidKeyStep.app, AndroidKeyStep.established,
        ] {
            #expect(text.contains(step))
        }
        #expect(text.contains("security strongBox, keystore strongBox; boot verified, locked; package com.google.android.attestation"))
    }

    @Test("a generated attestation and its requests replay: stored key, counter, a replayed counter refused")
    func generated() async throws {
        let phone = try TestAndroidDevice(seed: "replay")
        let report = try await Self.replay(try Self.document(phone))
        #expect(report.fixtureErrors.isEmpty && report.results.count == 3)
        #expect(report.failed == 0, "\(report.results.map { "\($0.name): \($0.actual) \($0.mismatches)" })")
    }

    @Test("expected facts are compared: a wrong one fails the ceremony")
    func factsCompared() async throws {
        let phone = try TestAndroidDevice(seed: "replay facts")
        for (member, value) in [
            ("securityLevel", "strongBox" as Any), ("deviceLocked", false), ("attestationVersion", 4), ("packageName", "x"),
        ] {
            let json = try Self.document(phone) { ceremonies in
                var expect = ceremonies[0]["expect"] as? [String: Any] ?? [:]
                expect[member] = value
                ceremonies[0]["expect"] = expect
                ceremonies = [ceremonies[0]]
            }
            let report = try await Self.replay(json)
            #expect(report.failed == 1, "\(member)")
        }
    }

    @Test("a member that is not base64url is a malformed verdict; an unusable file exits 2 naming the member")
    func unusable() async throws {
        let phone = try TestAndroidDevice(seed: "replay unusable")
        let undecodable = try Self.document(phone) { ceremonies in
            ceremonies = [ceremonies[0]]
            ceremonies[0]["challenge"] = "not base64url!"
            ceremonies[0]["expect"] = ["outcome": "reject", "error": "malformed"]
        }
        #expect(try await Self.replay(undecodable).failed == 0)
        var badApp = try Self.document(phone)
        badApp["androidApps"] = [["packageName": "a", "sha256Fingerprint": "zz"]]
        let report = try await Self.replay(badApp)
        #expect(report.exitCode == 2 && report.fixtureErrors.first?.member == "androidApps[0].sha256Fingerprint")
        var badLevel = try Self.document(phone)
        badLevel["policy"] = ["securityLevels": ["tee"]]
        #expect(try await Self.replay(badLevel).fixtureErrors.first?.member == "policy.securityLevels[0]")
    }
}
