import Foundation
import WebAuthnRP

/// Renders a ``ReplayReport`` for people (text) or machines (JSON).
package enum ReplayFormatter {
    /// One line per ceremony (`PASS|FAIL file name: expected …, got …`), each fixture
    /// error, then the closing `N passed, N failed` line.
    /// - Parameters:
    ///   - report: the report.
    ///   - explain: also print each ceremony's step trace.
    /// - Returns: the text.
    package static func text(_ report: ReplayReport, explain: Bool) -> String {
        var lines: [String] = []
        for result in report.results {
            let mark = result.passed ? "PASS" : "FAIL"
            lines.append("\(mark) \(result.file) \(result.name): expected \(result.expected), got \(result.actual)")
            if !result.passed {
                if let error = result.error { lines.append("     \(error)") }
                for mismatch in result.mismatches where !mismatch.hasPrefix("expected accept, got") {
                    lines.append("     mismatch: \(mismatch)")
                }
            }
            if explain {
                lines += nameLines(result).map { "     " + $0 }
                lines += traceLines(result.trace).map { "     " + $0 }
            }
        }
        for error in report.fixtureErrors {
            lines.append("ERROR \(error.file): \(error.member): \(error.reason)")
        }
        lines.append("\(report.passed) passed, \(report.failed) failed")
        return lines.joined(separator: "\n")
    }

    /// A registration's two names, each labelled with where it comes from: a verified metadata
    /// entry's, and the community AAGUID list's, which is only the authenticator's claim.
    static func nameLines(_ result: CeremonyResult) -> [String] {
        var lines: [String] = []
        if let name = result.metadataName { lines.append("metadata name: \(name)") }
        if let name = result.claimedProviderName { lines.append("claimed provider (AAGUID list, unverified): \(name)") }
        return lines
    }

    /// The trace as lines: `passed  §7.1 step 14  rpIdHash is SHA-256 of the RP ID`.
    static func traceLines(_ trace: CeremonyTrace) -> [String] {
        trace.rows.map { row in
            switch row.outcome {
            case "skipped": return "skipped  \(row.step): \(row.title) (\(row.note ?? ""))"
            case "failed": return "FAILED   \(row.step): \(row.title): \(row.note ?? "")"
            default: return "passed   \(row.step): \(row.title)" + (row.note.map { " [\($0)]" } ?? "")
            }
        }
    }

    /// A JSON document: `{"results": [...], "fixtureErrors": [...], "passed": N, "failed": N}`.
    /// - Parameters:
    ///   - report: the report.
    ///   - explain: include each ceremony's trace.
    /// - Returns: the JSON text.
    package static func json(_ report: ReplayReport, explain: Bool) -> String {
        struct TraceStep: Encodable { var step: String; var title: String; var outcome: String; var reason: String? }
        struct Row: Encodable {
            var file: String; var name: String; var expected: String; var actual: String; var passed: Bool
            var category: String?; var step: String?; var message: String?; var mismatches: [String]
            var trace: [TraceStep]?
            // Two names, never one field: a verified metadata entry's, and the AAGUID list's claim.
            var metadataName: String?; var claimedProviderName: String?
        }
        struct FileError: Encodable { var file: String; var member: String; var reason: String }
        struct Document: Encodable {
            var results: [Row]; var fixtureErrors: [FileError]; var passed: Int; var failed: Int; var exitCode: Int32
        }
        let rows = report.results.map { r in
            Row(
                file: r.file, name: r.name, expected: r.expected, actual: r.actual, passed: r.passed,
                category: r.error?.category.rawValue, step: r.error?.step, message: r.error?.message,
                mismatches: r.mismatches,
                trace: explain
                    ? r.trace.rows.map { TraceStep(step: $0.step, title: $0.title, outcome: $0.outcome, reason: $0.note) } : nil,
                metadataName: r.metadataName, claimedProviderName: r.claimedProviderName)
        }
        let document = Document(
            results: rows,
            fixtureErrors: report.fixtureErrors.map { FileError(file: $0.file, member: $0.member, reason: $0.reason) },
            passed: report.passed, failed: report.failed, exitCode: report.exitCode)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
