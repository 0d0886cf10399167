import Foundation
import WebAuthnRP

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
        guard let blob = FileManager.default.contents(atPath: blobPath) else { return ("cannot read \(blobPath)", 2) }
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
            verified = try MetadataBLOB(jws: Array(blob), trustAnchor: root, crls: crls, at: time)
        } catch {
            return ("REFUSED \(error)", 1)
        }
        return (describe(verified, at: time), 0)
    }

    /// One header line, then one line per entry: identifier, latest status, level, name.
    package static func describe(_ blob: MetadataBLOB, at time: Date) -> String {
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        var lines = ["VERIFIED BLOB no \(blob.number), nextUpdate \(day.string(from: blob.nextUpdate))"
            + (blob.isStale(at: time) ? " (STALE)" : "") + ", \(blob.entries.count) entries, signed by "
            + (blob.signingChain.first.map { "\($0.subject)" } ?? "?")]
        for entry in blob.entries {
            let identifier = entry.aaguid?.uuidString
                ?? entry.attestationCertificateKeyIdentifiers.first.map { "keyid \($0)" } ?? "(no aaguid or key identifier)"
            let level = entry.certificationLevel.map { "\($0)" } ?? "-"
            lines.append("\(identifier)  \(entry.status?.rawValue ?? "-")  \(level)  \(entry.name ?? "(no statement)")")
        }
        return lines.joined(separator: "\n")
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
