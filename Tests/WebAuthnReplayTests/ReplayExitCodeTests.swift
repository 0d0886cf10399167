import Foundation
import Testing
import WebAuthnCoding
import WebAuthnReplay

@testable import WebAuthnRP

/// Exit codes of a replay: 0 every ceremony met its expectation, 1 some did not,
/// 2 a fixture file is unusable (naming the file and the member).
@Suite("Replay exit codes")
struct ReplayExitCodeTests: ReplaysOneDocument {
    typealias J = FixtureJSON

    // MARK: 0 and 1

    @Test("every expectation met: exit 0")
    func allPass() async throws {
        let (report, path) = try await replay(
            J.document([
                J.registration("broken-attestation-object", expect: J.reject("malformed")),
                J.authentication("unknown-credential", expect: J.reject("unknownCredential")),
            ]))
        #expect(report.exitCode == 0)
        #expect(report.passed == 2 && report.failed == 0)
        #expect(report.fixtureErrors.isEmpty)
        #expect(report.results.map(\.name) == ["broken-attestation-object", "unknown-credential"])
        #expect(report.results.allSatisfy { $0.file == path })
    }

    @Test("a rejection in another category is a mismatch: exit 1")
    func wrongCategory() async throws {
        let (report, _) = try await replay(J.document([J.registration("r", expect: J.reject("signature"))]))
        #expect(report.exitCode == 1)
        let result = try #require(report.results.first)
        #expect(!result.passed)
        #expect(result.expected == "reject(signature)")
        #expect(result.actual == "reject(malformed)")
        #expect(result.mismatches == ["error: expected signature, got malformed"])
        #expect(result.error?.category == .malformed)
    }

    @Test("expected accept, got a rejection: exit 1")
    func expectedAccept() async throws {
        let (report, _) = try await replay(J.document([J.registration("r", expect: ["outcome": "accept"])]))
        #expect(report.exitCode == 1)
        #expect(report.results.first?.actual == "reject(malformed)")
        #expect(report.results.first?.mismatches.first?.hasPrefix("expected accept, got malformed") == true)
    }

    @Test("one failing ceremony among passing ones still exits 1, and every ceremony runs")
    func mixed() async throws {
        let (report, _) = try await replay(
            J.document([
                J.registration("ok", expect: J.reject("malformed")),
                J.authentication("bad", expect: J.reject("signature")),
                J.authentication(
                    "ok-too", challenge: Base64URL.encode(Array(repeating: 0xC3, count: 32)),
                    expect: J.reject("unknownCredential")),
            ]))
        #expect(report.exitCode == 1)
        #expect(report.passed == 2 && report.failed == 1)
        #expect(report.results.map(\.passed) == [true, false, true])
    }

    @Test("a reject expectation without an error category accepts any rejection")
    func rejectWithoutCategory() async throws {
        let (report, _) = try await replay(J.document([J.registration("r", expect: ["outcome": "reject"])]))
        #expect(report.exitCode == 0)
        #expect(report.results.first?.expected == "reject")
    }

    @Test("issue:false replays an already used challenge: reject(challenge)")
    func replayedChallenge() async throws {
        let (report, _) = try await replay(
            J.document([
                J.registration("first", expect: J.reject("malformed")),
                J.registration("again", issue: false, expect: J.reject("challenge")),
            ]))
        #expect(report.exitCode == 0, "\(report.results.map(\.actual))")
    }

    @Test("a response that is not a valid ResponseJSON is a malformed verdict, not a broken file")
    func undecodableResponse() async throws {
        var response = J.brokenRegistration()
        response["rawId"] = nil
        let (report, _) = try await replay(J.document([J.registration("r", response: response, expect: J.reject("malformed"))]))
        #expect(report.exitCode == 0)
        #expect(report.results.first?.error?.message.contains("rawId") == true)
    }

    @Test("a file with no ceremonies exits 0 with nothing replayed")
    func emptyCeremonies() async throws {
        let (report, _) = try await replay(J.document([]))
        #expect(report.exitCode == 0)
        #expect(report.results.isEmpty)
    }

    // MARK: 2: unusable files

    /// Asserts the report has exactly one fixture error, for `path`, naming `member`.
    func expectFixtureError(
        _ report: ReplayReport, path: String, member: String, reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(report.exitCode == 2, sourceLocation: sourceLocation)
        #expect(report.results.isEmpty, sourceLocation: sourceLocation)
        guard report.fixtureErrors.count == 1, let error = report.fixtureErrors.first else {
            Issue.record("expected one fixture error, got \(report.fixtureErrors)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.file == path, sourceLocation: sourceLocation)
        #expect(error.member == member, "\(error)", sourceLocation: sourceLocation)
        if let reason { #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation) }
        #expect(error.description.hasPrefix("\(path): \(member): "), sourceLocation: sourceLocation)
    }

    @Test("not JSON: exit 2, the file itself is named")
    func notJSON() async throws {
        let (report, path) = try await replay(text: "this is not { json")
        expectFixtureError(report, path: path, member: "(file)", reason: "is not JSON")
    }

    @Test("an empty file: exit 2")
    func emptyFile() async throws {
        let (report, path) = try await replay(text: "")
        expectFixtureError(report, path: path, member: "(file)")
    }

    @Test("wrong format string: exit 2 naming format")
    func wrongFormat() async throws {
        let (report, path) = try await replay(J.document([], extra: ["format": "webauthn-ceremonies/2"]))
        expectFixtureError(report, path: path, member: "format", reason: "webauthn-ceremonies/2")
    }

    @Test("missing format: exit 2 naming format")
    func missingFormat() async throws {
        var doc = J.passingDocument
        doc["format"] = nil
        let (report, path) = try await replay(doc)
        expectFixtureError(report, path: path, member: "format", reason: "is missing")
    }

    @Test("missing ceremony member expect: exit 2 naming ceremonies[0].expect")
    func missingExpect() async throws {
        var ceremony = J.registration("r", expect: J.reject("malformed"))
        ceremony["expect"] = nil
        let (report, path) = try await replay(J.document([ceremony]))
        expectFixtureError(report, path: path, member: "ceremonies[0].expect", reason: "is missing")
    }

    @Test("missing response in the second ceremony: exit 2 naming ceremonies[1].response")
    func missingResponse() async throws {
        var second = J.authentication("a", expect: J.reject("unknownCredential"))
        second["response"] = nil
        let (report, path) = try await replay(J.document([J.registration("r", expect: J.reject("malformed")), second]))
        expectFixtureError(report, path: path, member: "ceremonies[1].response", reason: "is missing")
    }

    @Test("missing expect.outcome: exit 2 naming ceremonies[0].expect.outcome")
    func missingOutcome() async throws {
        let (report, path) = try await replay(J.document([J.registration("r", expect: ["error": "signature"])]))
        expectFixtureError(report, path: path, member: "ceremonies[0].expect.outcome", reason: "is missing")
    }

    @Test("an unknown error category: exit 2 naming ceremonies[0].expect.error")
    func unknownCategory() async throws {
        let (report, path) = try await replay(J.document([J.registration("r", expect: J.reject("cosmicRays"))]))
        expectFixtureError(report, path: path, member: "ceremonies[0].expect.error")
    }

    @Test("missing relyingParty.origins: exit 2 naming it")
    func missingOrigins() async throws {
        let (report, path) = try await replay(J.document([], extra: ["relyingParty": ["id": "example.org"]]))
        expectFixtureError(report, path: path, member: "relyingParty.origins", reason: "is missing")
    }

    @Test("ceremonies of the wrong type: exit 2 naming ceremonies")
    func wrongType() async throws {
        let (report, path) = try await replay(J.document([], extra: ["ceremonies": "none"]))
        expectFixtureError(report, path: path, member: "ceremonies", reason: "not of the expected type")
    }

    @Test("an unknown ceremony kind: exit 2 naming ceremonies[0].kind")
    func unknownKind() async throws {
        var ceremony = J.registration("r", expect: J.reject("malformed"))
        ceremony["kind"] = "deletion"
        let (report, path) = try await replay(J.document([ceremony]))
        expectFixtureError(report, path: path, member: "ceremonies[0].kind", reason: "deletion")
    }

    @Test("options that are not options: exit 2 naming ceremonies[0].options…")
    func badOptions() async throws {
        var ceremony = J.registration("r", expect: J.reject("malformed"))
        ceremony["options"] = ["challenge": J.challengeA]
        let (report, path) = try await replay(J.document([ceremony]))
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.file == path)
        #expect(report.fixtureErrors.first?.member.hasPrefix("ceremonies[0].options") == true)
    }

    @Test("duplicate ceremony names: exit 2 naming the second")
    func duplicateNames() async throws {
        let (report, path) = try await replay(
            J.document([
                J.registration("same", expect: J.reject("malformed")),
                J.authentication("same", expect: J.reject("unknownCredential")),
            ]))
        expectFixtureError(report, path: path, member: "ceremonies[1].name", reason: "not unique")
    }

    @Test("a verificationTime that is not ISO 8601: exit 2 naming policy.verificationTime")
    func badTime() async throws {
        let (report, path) = try await replay(J.document([], extra: ["policy": ["verificationTime": "June 1st"]]))
        expectFixtureError(report, path: path, member: "policy.verificationTime")
    }

    @Test("a trust anchor that is not a certificate: exit 2 naming policy.trustAnchors[1]")
    func badTrustAnchor() async throws {
        let (report, path) = try await replay(J.document([], extra: ["policy": ["trustAnchors": ["", "AAAA"]]]))
        // The first (empty) entry fails first.
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.file == path)
        #expect(report.fixtureErrors.first?.member.hasPrefix("policy.trustAnchors[") == true)
    }

    @Test("a credential whose id is not base64url: exit 2 naming credentials[0].id")
    func badCredential() async throws {
        let (report, path) = try await replay(
            J.document(
                [],
                extra: [
                    "credentials": [["id": "not base64!", "publicKey": "AA", "signCount": 0]]
                ]))
        expectFixtureError(report, path: path, member: "credentials[0].id")
    }

    @Test("a path that does not exist: exit 2")
    func missingPath() async throws {
        let path = "/nonexistent/\(UUID().uuidString).json"
        let report = await Replayer.replay(paths: [path])
        expectFixtureError(report, path: path, member: "(file)", reason: "no such file")
    }

    @Test("an unusable file wins over failures: exit 2 even when ceremonies also failed")
    func twoOverOne() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let failing = try temp.write("a.json", json: J.document([J.registration("r", expect: J.reject("signature"))]))
        let broken = try temp.write("b.json", "[1, 2")
        let report = await Replayer.replay(paths: [failing, broken])
        #expect(report.exitCode == 2)
        #expect(report.failed == 1)
        #expect(report.fixtureErrors.map(\.file) == [broken])
    }

    // MARK: Folders

    @Test("a folder is walked recursively for *.json in name order; other files are ignored")
    func folderWalk() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        try temp.write("b.json", json: J.document([J.registration("b1", expect: J.reject("malformed"))]))
        try temp.write("a.json", json: J.document([J.authentication("a1", expect: J.reject("unknownCredential"))]))
        try temp.write("sub/c.json", json: J.document([J.registration("c1", expect: J.reject("malformed"))]))
        try temp.write("notes.txt", "not a fixture")
        try temp.write("README.md", "# not a fixture")
        let report = await Replayer.replay(paths: [temp.folder.path])
        #expect(report.exitCode == 0)
        #expect(report.results.map(\.name) == ["a1", "b1", "c1"])
        #expect(report.results.map { ($0.file as NSString).lastPathComponent } == ["a.json", "b.json", "c.json"])
    }

    @Test("in a walked folder a JSON array (another corpus) is skipped; given directly it is an error")
    func arraySkippedWhenWalked() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        try temp.write("a.json", json: J.passingDocument)
        let vectors = try temp.write("vectors.json", "  [ {\"hex\": \"00\"} ]")
        let walked = await Replayer.replay(paths: [temp.folder.path])
        #expect(walked.exitCode == 0)
        #expect(walked.results.count == 1)
        let direct = await Replayer.replay(paths: [vectors])
        #expect(direct.exitCode == 2)
        #expect(direct.fixtureErrors.first?.file == vectors)
    }

    @Test("a broken file inside a walked folder is still exit 2, and the other files still run")
    func brokenInFolder() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        try temp.write("a.json", json: J.passingDocument)
        let broken = try temp.write("b.json", "{\"format\": \"webauthn-ceremonies/1\"")
        try temp.write("c.json", json: J.passingDocument)
        let report = await Replayer.replay(paths: [temp.folder.path])
        #expect(report.exitCode == 2)
        #expect(report.passed == 2)
        #expect(report.fixtureErrors.map(\.file) == [broken])
    }

    @Test("an empty folder replays nothing: exit 0")
    func emptyFolder() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let report = await Replayer.replay(paths: [temp.folder.path])
        #expect(report.exitCode == 0)
        #expect(report.results.isEmpty && report.fixtureErrors.isEmpty)
    }

    @Test("each file starts with a fresh registry: a record of one file is unknown in the next")
    func filesAreIsolated() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        // File a holds a record for AQID: its discoverable assertion finds it and fails because
        // it returns no user handle. File b has no records: the same assertion is unknown.
        try temp.write(
            "a.json",
            json: J.document(
                [J.authentication("known", expect: J.reject("userHandle"))],
                extra: [
                    "credentials": [["id": "AQID", "publicKey": "oA", "signCount": 0]]
                ]))
        try temp.write("b.json", json: J.document([J.authentication("unknown", expect: J.reject("unknownCredential"))]))
        let report = await Replayer.replay(paths: [temp.folder.path])
        #expect(report.exitCode == 0, "\(report.results.map(\.actual))")
        #expect(report.results.map(\.actual) == ["reject(userHandle)", "reject(unknownCredential)"])
    }
}
