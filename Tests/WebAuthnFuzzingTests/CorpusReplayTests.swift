import Foundation
import Testing
import WebAuthnFuzzing

/// Every file of `Fuzz/FailingCases/<target>/` (inputs the fuzzers once broke a property or
/// crashed with), of `Fuzz/Seeds/<target>/` and of the kept corpus `Fuzz/Corpus/<target>/` (the
/// minimised inputs of every campaign so far, which reach paths the seeds do not) goes through its
/// target; none may break a property.
@Suite struct CorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `<folder>/<target>/`, by name.
    static func inputs(_ folder: String, _ target: String) -> [URL] {
        let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { directory.appendingPathComponent($0) }
    }

    static func replay(_ folder: String, _ target: FuzzTarget) throws -> Int {
        var count = 0
        for file in inputs(folder, target.name) {
            let bytes = try [UInt8](Data(contentsOf: file))
            let violation = target.run(bytes)
            #expect(violation == nil, "\(folder)/\(target.name)/\(file.lastPathComponent): \(violation.map { "\($0)" } ?? "")")
            count += 1
        }
        return count
    }

    @Test("every failing case holds every property", arguments: FuzzTarget.all.map(\.name))
    func failingCases(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        _ = try Self.replay("FailingCases", target)
    }

    @Test("every seed holds every property", arguments: FuzzTarget.all.map(\.name))
    func seeds(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let count = try Self.replay("Seeds", target)
        #expect(count > 0, "Fuzz/Seeds/\(name) is empty: run Fuzz/make-seeds.py")
    }

    @Test("every kept corpus input holds every property", arguments: FuzzTarget.all.map(\.name))
    func keptCorpus(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        _ = try Self.replay("Corpus", target)
    }

    @Test("the failing-cases, seed and corpus folders name only known targets")
    func foldersNameTargets() throws {
        for folder in ["FailingCases", "Seeds", "Corpus"] {
            let url = Self.fuzzFolder.appendingPathComponent(folder)
            let entries = try FileManager.default.contentsOfDirectory(atPath: url.path)
            for entry in entries where !entry.hasPrefix(".") && entry != "README.md" {
                #expect(FuzzTarget.named(entry) != nil, "Fuzz/\(folder)/\(entry) names no fuzz target")
            }
        }
    }

    @Test("target names are unique and match the harness list")
    func names() {
        let names = FuzzTarget.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(
            names == [
                "cbor", "authenticator-data", "attestation-object", "cose-key", "client-data", "x509", "response-json",
                "registration", "authentication", "fixture",
                "attstmt-packed", "attstmt-fido-u2f", "attstmt-tpm", "attstmt-android-key", "attstmt-android-safetynet",
                "attstmt-apple", "attstmt-compound", "appattest-attestation", "appattest-assertion",
                "metadata-blob", "metadata-payload",
                "extension-outputs", "android-key-description", "play-integrity-token",
            ])
    }
}
