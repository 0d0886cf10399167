package import Foundation
import WebAuthnCrypto
package import WebAuthnRP

/// `webauthn-replay metadata BLOB --root ROOT [--crl CRL]... [--at TIME]`: verifies a downloaded
/// MDS3 BLOB the way a relying party would and lists its entries, for an engineer checking the
/// file before deploying it.
package enum MetadataListing {
    /// The command's usage line.
    package static let usage = "usage: webauthn-replay metadata BLOB --root ROOT [--crl CRL]... [--at 2025-06-01T00:00:00Z]"

    /// Runs the command on its arguments (after `metadata`).
    /// - Returns: the text to print and the exit code: 0 verified, 1 refused, 2 unusable arguments or files.
    package static func run(_ arguments: [String]) -> (text: String, exitCode: Int32) {
        var blobPath: String?, rootPath: String?, crlPaths: [String] = [], time = Date()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--root":
                guard let value = rest.popFirst() else { return (usage, 2) }
                rootPath = value
            case "--crl":
                guard let value = rest.popFirst() else { return (usage, 2) }
                crlPaths.append(value)
            case "--at":
                guard let value = rest.popFirst(), let date = FixtureTime.parse(value) else { return (usage, 2) }
                time = date
            default:
                guard blobPath == nil, !argument.hasPrefix("-") else { return (usage, 2) }
                blobPath = argument
            }
        }
        guard let blobPath, let rootPath else { return (usage, 2) }
        // Read straight into the bytes the verifier takes (the file's Data is released at once), so the
        // process holds the BLOB once while verifying (Docs/Performance.md measures this command's memory).
        guard let blob = FileManager.default.contents(atPath: blobPath).map({ [UInt8]($0) }) else {
            return ("cannot read \(blobPath)", 2)
        }
        let root: Certificate
        do {
            root = try Certificate(derEncoded: try derOrPEM(path: rootPath, label: "CERTIFICATE"))
        } catch {
            return ("\(rootPath) is not a DER or PEM certificate: \(error)", 2)
        }
        var crls: [CertificateRevocationList] = []
        for path in crlPaths {
            do {
                crls.append(try CertificateRevocationList(derEncoded: try derOrPEM(path: path, label: "X509 CRL")))
            } catch {
                return ("\(path) is not a DER or PEM CRL: \(error)", 2)
            }
        }
        let verified: MetadataBLOB
        do {
            verified = try MetadataBLOB(jws: blob, trustAnchor: root, crls: crls, at: time)
        } catch {
            return ("REFUSED \(error)", 1)
        }
        return (describe(verified, at: time), 0)
    }

    /// One header line, then one line per entry: identifier, latest status, level, name; then
    /// one `SKIPPED` line per entry that could not be read, with the reason (such an
    /// authenticator is judged as having no entry), and one `AMBIGUOUS` line per identifier that
    /// more than one entry lists (its registrations are refused).
    package static func describe(_ blob: MetadataBLOB, at time: Date) -> String {
        var lines = [
            "VERIFIED BLOB no \(blob.number), nextUpdate \(fullDate(blob.nextUpdate))"
                + (blob.isStale(at: time) ? " (STALE)" : "") + ", \(blob.entries.count) entries"
                + (blob.skippedEntries.isEmpty ? "" : " (\(blob.skippedEntries.count) skipped)") + ", signed by "
                + (blob.signingChain.first.map { "\($0.subject)" } ?? "?")
        ]
        for entry in blob.entries {
            let identifier =
                entry.aaguid?.uuidString
                ?? entry.attestationCertificateKeyIdentifiers.first.map { "keyid \($0)" } ?? "(no aaguid or key identifier)"
            let level = entry.certificationLevel(at: nil).map { "\($0)" } ?? "-"
            lines.append("\(identifier)  \(entry.latestStatusReport?.status.rawValue ?? "-")  \(level)  \(entry.name ?? "(no statement)")")
        }
        for skipped in blob.skippedEntries { lines.append("SKIPPED \(skipped)") }
        for (identifier, entries) in blob.ambiguousIdentifiers {
            lines.append(
                "AMBIGUOUS \(identifier) is listed by entries \(entries.map { "[\($0)]" }.joined(separator: ", ")): "
                    + "it names no entry, and its registrations are refused (metadata)")
        }
        return lines.joined(separator: "\n")
    }

    /// `YYYY-MM-DD` in UTC, computed directly (a date formatter would load ICU, several megabytes,
    /// into a process whose memory Docs/Performance.md measures).
    static func fullDate(_ date: Date) -> String {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    private static func derOrPEM(path: String, label: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN \(label)-----") else { return Array(data) }
        let body = text.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let decoded = Data(base64Encoded: body.replacingOccurrences(of: "\r", with: "")) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return Array(decoded)
    }
}
