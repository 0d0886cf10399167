import Foundation
import Testing
import WebAuthnReplay

@testable import WebAuthnRP

/// What `webauthn-replay` prints: one line per ceremony, the closing `N passed, N failed`,
/// the `--json` document and the `--explain` step trace.
@Suite("Replay output")
struct ReplayOutputTests {
    typealias J = FixtureJSON

    /// A report with one passing and one failing ceremony (and its file path).
    func mixedReport() async throws -> (ReplayReport, String) {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = try temp.write(
            "mixed.json",
            json: J.document([
                J.registration("register-broken", expect: J.reject("malformed")),
                J.authentication("login-unknown", expect: J.reject("signature")),
            ]))
        return (await Replayer.replay(paths: [path]), path)
    }

    /// The report of replaying an empty folder.
    func emptyReport() async throws -> ReplayReport {
        let temp = try TempFixtures()
        defer { temp.remove() }
        return await Replayer.replay(paths: [temp.folder.path])
    }

    func lines(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    // MARK: Text

    @Test("one line per ceremony with file, name, expected and actual; the last line is the summary")
    func textLines() async throws {
        let (report, path) = try await mixedReport()
        let out = lines(ReplayFormatter.text(report, explain: false))
        #expect(out.first == "PASS \(path) register-broken: expected reject(malformed), got reject(malformed)")
        #expect(out.contains("FAIL \(path) login-unknown: expected reject(signature), got reject(unknownCredential)"))
        #expect(out.last == "1 passed, 1 failed")
    }

    @Test("a failing ceremony is followed by its error and each detail that did not hold")
    func failureDetails() async throws {
        let (report, _) = try await mixedReport()
        let out = lines(ReplayFormatter.text(report, explain: false))
        let fail = try #require(out.firstIndex { $0.hasPrefix("FAIL ") })
        let details = out[(fail + 1)...].prefix { $0.hasPrefix("     ") }
        #expect(details.contains { $0.contains("unknownCredential (§7.2 step 6):") })
        #expect(details.contains("     mismatch: error: expected signature, got unknownCredential"))
        // Passing ceremonies get no detail lines without --explain.
        #expect(out.count == 1 + 1 + details.count + 1)
    }

    @Test("the summary line is exactly `N passed, N failed`, also when nothing ran")
    func summaryLine() async throws {
        let empty = try await emptyReport()
        #expect(ReplayFormatter.text(empty, explain: false) == "0 passed, 0 failed")
        #expect(ReplayFormatter.text(empty, explain: true) == "0 passed, 0 failed")
    }

    @Test("an unusable file prints an ERROR line naming file and member before the summary")
    func fixtureErrorLine() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        var ceremony = J.registration("r", expect: J.reject("malformed"))
        ceremony["expect"] = nil
        let path = try temp.write("broken.json", json: J.document([ceremony]))
        let report = await Replayer.replay(paths: [path])
        let out = lines(ReplayFormatter.text(report, explain: false))
        #expect(out.count == 2)
        #expect(out.first?.hasPrefix("ERROR \(path): ceremonies[0].expect: is missing") == true)
        #expect(out.last == "0 passed, 0 failed")
    }

    // MARK: --explain

    @Test("--explain prints every step under its ceremony: passed, skipped and the failed one")
    func explainTrace() async throws {
        let (report, path) = try await mixedReport()
        let out = lines(ReplayFormatter.text(report, explain: true))
        #expect(out.first == "PASS \(path) register-broken: expected reject(malformed), got reject(malformed)")
        let next = try #require(out.firstIndex { $0.hasPrefix("FAIL ") })
        let trace = Array(out[1..<next])
        #expect(trace.allSatisfy { $0.hasPrefix("     ") })
        let steps = trace.map { $0.dropFirst(5) }
        #expect(steps.first?.hasPrefix("passed   consume: the challenge is outstanding") == true)
        #expect(steps.contains { $0.hasPrefix("passed   §7.1 step 8: C.challenge is the issued challenge") })
        #expect(steps.contains { $0.hasPrefix("passed   §7.1 step 9: C.origin is an expected origin [https://example.org]") })
        #expect(steps.contains("skipped  §7.1 step 11: topOrigin is an expected top origin (no topOrigin in client data)"))
        #expect(steps.last?.hasPrefix("FAILED   §7.1 step 13: attestationObject decodes to fmt, authData, attStmt: ") == true)
        // No step after the failed one.
        #expect(!steps.contains { $0.contains("step 14") })
        // The failing authentication's trace ends at its failed step too.
        #expect(out.contains { $0.hasPrefix("     FAILED   §7.2 step 6: the credential record and user handle belong together: ") })
        #expect(out.last == "1 passed, 1 failed")
    }

    @Test("without --explain no trace lines are printed")
    func noExplain() async throws {
        let (report, _) = try await mixedReport()
        let text = ReplayFormatter.text(report, explain: false)
        #expect(!text.contains("passed   "))
        #expect(!text.contains("FAILED   "))
    }

    // MARK: --json

    func parse(_ json: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        return try #require(object as? [String: Any])
    }

    @Test("--json: one document with results, fixtureErrors, passed, failed and exitCode")
    func jsonDocument() async throws {
        let (report, path) = try await mixedReport()
        let doc = try parse(ReplayFormatter.json(report, explain: false))
        #expect(Set(doc.keys) == ["results", "fixtureErrors", "passed", "failed", "exitCode"])
        #expect(doc["passed"] as? Int == 1)
        #expect(doc["failed"] as? Int == 1)
        #expect(doc["exitCode"] as? Int == 1)
        #expect((doc["fixtureErrors"] as? [Any])?.isEmpty == true)
        let rows = try #require(doc["results"] as? [[String: Any]])
        #expect(rows.count == 2)
        let pass = rows[0], fail = rows[1]
        #expect(pass["file"] as? String == path)
        #expect(pass["name"] as? String == "register-broken")
        #expect(pass["expected"] as? String == "reject(malformed)")
        #expect(pass["actual"] as? String == "reject(malformed)")
        #expect(pass["passed"] as? Bool == true)
        #expect(pass["category"] as? String == "malformed")
        #expect(pass["step"] as? String == "§7.1 step 13")
        #expect(pass["trace"] == nil)
        #expect(fail["passed"] as? Bool == false)
        #expect(fail["category"] as? String == "unknownCredential")
        #expect(fail["mismatches"] as? [String] == ["error: expected signature, got unknownCredential"])
        #expect((fail["message"] as? String)?.isEmpty == false)
    }

    @Test("--json --explain adds each ceremony's trace with step, title, outcome and reason")
    func jsonTrace() async throws {
        let (report, _) = try await mixedReport()
        let doc = try parse(ReplayFormatter.json(report, explain: true))
        let rows = try #require(doc["results"] as? [[String: Any]])
        let trace = try #require(rows.first?["trace"] as? [[String: Any]])
        #expect(trace.first?["step"] as? String == "consume")
        #expect(trace.first?["outcome"] as? String == "passed")
        let skipped = try #require(trace.first { $0["outcome"] as? String == "skipped" })
        #expect(skipped["step"] as? String == "§7.1 step 11")
        #expect(skipped["reason"] as? String == "no topOrigin in client data")
        #expect(trace.last?["outcome"] as? String == "failed")
        #expect(trace.last?["step"] as? String == "§7.1 step 13")
        #expect((trace.last?["title"] as? String)?.isEmpty == false)
    }

    @Test("--json reports unusable files with file, member and reason, and exit code 2")
    func jsonFixtureErrors() async throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = try temp.write("wrong.json", json: J.document([], extra: ["format": "something/else"]))
        let doc = try parse(ReplayFormatter.json(await Replayer.replay(paths: [path]), explain: false))
        #expect(doc["exitCode"] as? Int == 2)
        let errors = try #require(doc["fixtureErrors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["file"] as? String == path)
        #expect(errors.first?["member"] as? String == "format")
        #expect((errors.first?["reason"] as? String)?.contains("something/else") == true)
    }

    @Test("--json of an empty report is still a complete document")
    func jsonEmpty() async throws {
        let doc = try parse(ReplayFormatter.json(try await emptyReport(), explain: true))
        #expect(doc["passed"] as? Int == 0)
        #expect(doc["failed"] as? Int == 0)
        #expect(doc["exitCode"] as? Int == 0)
        #expect((doc["results"] as? [Any])?.isEmpty == true)
    }
}
