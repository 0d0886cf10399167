import Foundation
import Testing

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// `expect.extensions` (fixture spec, replay semantics 9) and the extension lines of `--explain`.
@Suite("Replay: expect.extensions")
struct ReplayExtensionsTests {
    static let registrationFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/extensions/registration.json").standardized.path

    @Test("the recorded extension outputs match; a changed expected value, or one never reported, is a mismatch")
    func mismatches() async throws {
        let text = try String(contentsOfFile: Self.registrationFile, encoding: .utf8)
        let results = try await Replayer.replay(file: Self.registrationFile)
        let allPassed = results.allSatisfy { $0.passed }
        #expect(allPassed)
        let temp = try TempFixtures()
        defer { temp.remove() }
        let changed = try temp.write("changed.json", text.replacingOccurrences(of: "\"minPinLength\": 6", with: "\"minPinLength\": 7"))
        let first = try #require(try await Replayer.replay(file: changed).first)
        #expect(!first.passed)
        #expect(first.mismatches == ["extensions.minPinLength: expected 7, got 6"])
        let unreported = try temp.write(
            "unreported.json",
            text.replacingOccurrences(
                of: "\"minPinLength\": 6", with: "\"minPinLength\": 6, \"largeBlobKey\": true"))
        let second = try #require(try await Replayer.replay(file: unreported).first)
        #expect(second.mismatches == ["extensions.largeBlobKey: expected true, not reported"])
    }

    /// Fuzz/FailingCases/fixture/expect-extensions-error-order-00f6059f19d3: `expect.extensions`
    /// with several members that are not JSON values named a different one from one load to the
    /// next (a `[String: JSONValue]` decodes in dictionary order). It is now read in name order.
    @Test("of several malformed expect.extensions members the load error always names the first by name")
    func expectedExtensionsErrorIsDeterministic() throws {
        let text = try String(contentsOfFile: Self.registrationFile, encoding: .utf8)
        let bad = ["zeta", "mu", "alpha", "omega", "beta"].map { #""\#($0)": {"\udc00": true}"# }.joined(separator: ", ")
        let original = "\"minPinLength\": 6"
        #expect(text.contains(original))
        let data = Data(text.replacingOccurrences(of: original, with: original + ", " + bad).utf8)
        for _ in 0..<30 {
            do {
                _ = try Replayer.describeFixture(data, file: "bad.json")
                Issue.record("a lone surrogate in expect.extensions loaded")
            } catch {
                #expect("\(error)".contains("expect.extensions.alpha"), "\(error)")
            }
        }
    }

    @Test("--explain lists each verified extension under the extension step")
    func explain() async throws {
        let report = await Replayer.replay(paths: [Self.registrationFile])
        let text = ReplayFormatter.text(report, explain: true)
        #expect(text.contains("passed   §7.1 step 21: extension credProps [rk true]"))
        #expect(text.contains("passed   §7.1 step 21: extension credProtect [level 2]"))
        #expect(
            text.contains(
                "FAILED   §7.1 step 21: extension outputs fit their definitions and what was asked: credProtect level 2 is below the enforced level 3"
            ))
    }
}
