package import Foundation
import WebAuthnCrypto

/// Compares the fields `Certificate` reads from its own DER walk with what libcrypto's
/// getters report for the same bytes (`LibCryptoCertificateFields`), and finds the
/// certificates held in JSON files (x5c in attestation objects, JWS headers, PEM or base64
/// roots) to compare them on. For the differential tests only.
package enum CertificateDifferential {
    /// Every difference between the two readers for `der`, as text; empty when they agree.
    /// A certificate libcrypto refuses gives no difference when `Certificate` refuses it too.
    /// - Parameter der: one certificate.
    package static func differences(_ der: [UInt8]) -> [String] {
        let swift: Certificate
        let lib: LibCryptoCertificateFields
        do {
            lib = try LibCryptoCertificateFields(derEncoded: der)
        } catch {
            if let accepted = try? Certificate(derEncoded: der) {
                return ["libcrypto refuses (\(error)) what Certificate accepts: serial \(accepted.serialNumber)"]
            }
            return []
        }
        do {
            swift = try Certificate(derEncoded: der)
        } catch {
            return ["Certificate refuses what libcrypto accepts: \(error)"]
        }
        var out: [String] = []
        func check<T: Equatable>(_ what: String, _ mine: T, _ theirs: T) {
            if mine != theirs { out.append("\(what): DER walk \(mine), libcrypto \(theirs)") }
        }
        check("version", swift.version, lib.version)
        check("serialNumber", swift.serialNumber, lib.serialNumberDER)
        check("subject", swift.subject.derBytes, lib.subjectDER)
        check("issuer", swift.issuer.derBytes, lib.issuerDER)
        check("notBefore", Int(swift.notBefore.timeIntervalSince1970), lib.notBefore)
        check("notAfter", Int(swift.notAfter.timeIntervalSince1970), lib.notAfter)
        check("extensions", swift.extensions, lib.extensions)
        check("signatureAlgorithm", swift.signatureAlgorithmOID, lib.signatureAlgorithmOID)
        check("tbs signature", swift.signatureAlgorithmOID, lib.tbsSignatureAlgorithmOID)
        check("subjectPublicKeyInfo", swift.subjectPublicKeyInfoDER, lib.subjectPublicKeyInfoDER)
        check("tbsCertificate", swift.tbsCertificateBytes, lib.tbsCertificateDER)
        check("isSelfIssued", swift.isSelfIssued, lib.isSelfIssued)
        return out
    }

    /// The distinct certificates held in the JSON files under `folder` (recursively),
    /// each with the first file it was found in. A byte string counts when it starts a
    /// DER SEQUENCE of three values that libcrypto parses as a certificate.
    /// - Parameter folder: a directory of `.json` files.
    package static func certificates(inJSONFilesUnder folder: URL) -> [(der: [UInt8], file: String)] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found: [(der: [UInt8], file: String)] = []
        var seen: Set<[UInt8]> = []
        let files = enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
            .sorted { $0.path < $1.path }
        for url in files {
            guard let data = try? Data(contentsOf: url),
                let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            else { continue }
            var blobs: [[UInt8]] = []
            collect(json, into: &blobs, depth: 0)
            for blob in blobs {
                for der in embeddedCertificates(blob) where seen.insert(der).inserted {
                    found.append((der, url.lastPathComponent))
                }
            }
        }
        return found
    }

    /// Byte strings that may hold certificates: every string decoded as base64 or base64url,
    /// each part of a compact JWS, PEM bodies; decoded JSON (a JWS header) is searched again.
    private static func collect(_ value: Any, into blobs: inout [[UInt8]], depth: Int) {
        guard depth < 64 else { return }
        switch value {
        case let object as [String: Any]:
            for key in object.keys.sorted() { if let member = object[key] { collect(member, into: &blobs, depth: depth + 1) } }
        case let array as [Any]:
            for member in array { collect(member, into: &blobs, depth: depth + 1) }
        case let text as String:
            if text.contains("-----BEGIN CERTIFICATE-----") {
                for block in text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst() {
                    if let body = block.components(separatedBy: "-----END CERTIFICATE-----").first,
                        let bytes = decode(body.filter { !$0.isWhitespace })
                    {
                        blobs.append(bytes)
                    }
                }
                return
            }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            for part in parts.count == 3 ? parts : [Substring(text)] {
                guard part.utf8.count >= 40, let bytes = decode(String(part)) else { continue }
                blobs.append(bytes)
                if bytes.first == UInt8(ascii: "{"),
                    let inner = try? JSONSerialization.jsonObject(with: Data(bytes))
                {
                    collect(inner, into: &blobs, depth: depth + 1)
                }
            }
        default:
            return
        }
    }

    /// base64 or base64url, padded or not.
    private static func decode(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        guard standard.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=") }) else {
            return nil
        }
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// Every DER certificate that starts somewhere in `blob` (at a `30 82` or `30 81`).
    private static func embeddedCertificates(_ blob: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var index = blob.startIndex
        while index + 1 < blob.endIndex {
            defer { index += 1 }
            guard blob[index] == 0x30, blob[index + 1] == 0x82 || blob[index + 1] == 0x81 else { continue }
            // The SEQUENCE's end, from its one- or two-byte long-form length.
            let lengthBytes = Int(blob[index + 1] & 0x7F)
            guard index + 2 + lengthBytes <= blob.endIndex else { continue }
            let length = blob[(index + 2)..<(index + 2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
            let end = index + 2 + lengthBytes + length
            guard end <= blob.endIndex, let node = try? DER.parse(blob[index..<end]),
                let parts = try? node.children(), parts.count == 3, parts[0].tag == .sequence
            else { continue }
            let der = Array(node.encodedBytes)
            guard (try? LibCryptoCertificateFields(derEncoded: der)) != nil else { continue }
            out.append(der)
        }
        return out
    }
}
