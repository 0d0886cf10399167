import Foundation
import Testing
import WebAuthnFuzzing
import WebAuthnRP

/// The fuzz package's harness folders (`Fuzz/Sources/fuzz-<name>/`) are the one list of harnesses
/// kept by hand: `Fuzz/Package.swift` and `Fuzz/run.sh` read them. This holds that list to
/// WebAuthnFuzzing's targets (`FuzzTarget.all`) and to the attestation formats
/// (`AttestationFormatList`), so a target or a format added without its harness, seeds or corpus
/// folder, or a harness left behind by a removed target, fails here rather than being skipped by
/// every campaign.
@Suite struct FuzzHarnessListTests {
    static let fuzzFolder = CorpusReplayTests.fuzzFolder

    /// The harness names, from the folders `Fuzz/Sources/fuzz-<name>`.
    static func harnessNames() throws -> [String] {
        let sources = fuzzFolder.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path)
            .filter { $0.hasPrefix("fuzz-") }.map { String($0.dropFirst("fuzz-".count)) }.sorted()
    }

    /// What a target needs: its harness, and its seed and kept-corpus folders; empty when complete.
    static func missing(for name: String, harnesses: [String]) -> [String] {
        var missing: [String] = []
        if !harnesses.contains(name) { missing.append("Fuzz/Sources/fuzz-\(name)/") }
        for folder in ["Seeds", "Corpus"] {
            var isDirectory: ObjCBool = false
            let path = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(name).path
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) || !isDirectory.boolValue {
                missing.append("Fuzz/\(folder)/\(name)/")
            }
        }
        return missing
    }

    @Test("every fuzz target has its harness, seed folder and corpus folder")
    func everyTargetHasAHarness() throws {
        let harnesses = try Self.harnessNames()
        #expect(!FuzzTarget.all.isEmpty)
        for target in FuzzTarget.all {
            #expect(Self.missing(for: target.name, harnesses: harnesses) == [], "fuzz target \(target.name)")
        }
    }

    @Test("every attestation format but none has an attstmt- target and harness")
    func everyFormatHasAHarness() throws {
        let harnesses = try Self.harnessNames()
        let formats = AttestationFormatList.identifiers.filter { $0 != "none" }
        #expect(formats.count >= 7)
        for format in formats {
            let name = "attstmt-\(format)"
            #expect(FuzzTarget.named(name) != nil, "format \(format) has no fuzz target \(name)")
            #expect(Self.missing(for: name, harnesses: harnesses) == [], "format \(format)")
        }
        // And no attstmt- harness outlives its format.
        for harness in harnesses where harness.hasPrefix("attstmt-") {
            #expect(formats.contains(String(harness.dropFirst("attstmt-".count))), "Fuzz/Sources/fuzz-\(harness) names no format")
        }
    }

    @Test("every harness folder runs the target it is named after, and that target exists")
    func everyHarnessNamesATarget() throws {
        let harnesses = try Self.harnessNames()
        #expect(harnesses.count == FuzzTarget.all.count)
        for name in harnesses {
            #expect(FuzzTarget.named(name) != nil, "Fuzz/Sources/fuzz-\(name) names no fuzz target")
            let main = Self.fuzzFolder.appendingPathComponent("Sources/fuzz-\(name)/main.swift")
            let text = (try? String(contentsOf: main, encoding: .utf8)) ?? ""
            #expect(text.contains("runFuzzer(target: \"\(name)\""), "fuzz-\(name)/main.swift runs another target")
            let symbol = "fuzz_" + name.replacingOccurrences(of: "-", with: "_") + "_main"
            #expect(text.contains("@_cdecl(\"\(symbol)\")"), "fuzz-\(name)/main.swift lacks the entry point \(symbol)")
        }
    }

    @Test("Fuzz/Package.swift and Fuzz/run.sh read the harness folders instead of keeping a list")
    func noSecondList() throws {
        let manifest = try String(contentsOf: Self.fuzzFolder.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"$0.hasPrefix("fuzz-")"#), "Fuzz/Package.swift no longer reads Sources/fuzz-*")
        for target in FuzzTarget.all where target.name.contains("-") {
            // A hyphenated target name in the manifest would be a hand-kept entry.
            #expect(!manifest.contains("\"\(target.name)\""), "Fuzz/Package.swift names \(target.name): a second list")
        }
        let script = try String(contentsOf: Self.fuzzFolder.appendingPathComponent("run.sh"), encoding: .utf8)
        let lines = script.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.contains("for dir in Sources/fuzz-*/") }, "Fuzz/run.sh no longer reads Sources/fuzz-*")
        #expect(lines.filter { $0.hasPrefix("HARNESSES=(") } == ["HARNESSES=()"], "Fuzz/run.sh keeps a list of harnesses")
    }

    @Test("every harness Fuzz/run.sh picks a dictionary for names a fuzz target")
    func dictionaryEntriesNameTargets() throws {
        let script = try String(contentsOf: Self.fuzzFolder.appendingPathComponent("run.sh"), encoding: .utf8)
        let body = try #require(script.components(separatedBy: "dictionary() {").dropFirst().first?.components(separatedBy: "esac").first)
        var named = 0
        for line in body.split(separator: "\n") {
            let label = line.trimmingCharacters(in: .whitespaces)
            guard let close = label.firstIndex(of: ")"), !label.hasPrefix("*"), !label.hasPrefix("case") else { continue }
            for name in label[..<close].split(separator: "|") {
                named += 1
                #expect(FuzzTarget.named(String(name)) != nil, "Fuzz/run.sh picks a dictionary for \(name), which names no fuzz target")
            }
        }
        #expect(named > 0)
    }
}
