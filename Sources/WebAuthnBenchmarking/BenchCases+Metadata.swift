import Foundation
import WebAuthnCrypto
import WebAuthnRP
import WebAuthnTestSupport

/// A BLOB shaped like the production MDS3 BLOB: 200 entries of about 9.5 KB each (an icon,
/// two attestation roots, user verification details, status reports), about 2.5 MB of JWS,
/// ES256 under a root, an intermediate and a signing certificate.
enum MetadataBenchBLOB {
    static let entryCount = 200

    static func make() throws -> (text: String, root: Certificate, aaguids: [AAGUID]) {
        let mds = try TestMetadataService.make(seed: "bench metadata")
        let vendors = try (0..<4).map { try TestAuthenticator.CA.make(name: "Bench Vendor \($0)", seed: "bench vendor \($0)") }
        var entries: [[String: Any]] = []
        var aaguids: [AAGUID] = []
        for index in 0..<entryCount {
            var bytes = Digest.sha256.hash(Array("bench aaguid \(index)".utf8)).prefix(16).map { $0 }
            bytes[6] = (bytes[6] & 0x0f) | 0x40
            guard let aaguid = AAGUID(bytes: bytes) else { throw BenchFailure("AAGUID") }
            aaguids.append(aaguid)
            var entry = TestMetadataService.Entry(aaguid: aaguid.uuidString, description: "Bench Authenticator \(index)")
            entry.roots = [vendors[index % 4].certificate, vendors[(index + 1) % 4].certificate]
            entry.statuses = [
                .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init("UPDATE_AVAILABLE", effectiveDate: "2024-01-01"),
            ]
            var json = entry.json
            if var statement = json["metadataStatement"] as? [String: Any] {
                // A PNG-sized icon, as most production entries carry.
                var icon: [UInt8] = []
                var block = Digest.sha256.hash(Array("bench icon \(index)".utf8))
                while icon.count < 6_000 {
                    icon += block
                    block = Digest.sha256.hash(block)
                }
                statement["icon"] = "data:image/png;base64," + Data(icon).base64EncodedString()
                json["metadataStatement"] = statement
            }
            entries.append(json)
        }
        let payload = try TestMetadataService.payload(entries: entries, nextUpdate: "2025-07-01")
        return (try mds.blob(payload: payload), mds.root.certificate, aaguids)
    }
}

/// Verifies and indexes the whole BLOB: JWS split, base64url, chain to the root, ES256, JSON, entries.
final class MetadataBLOBCase: BenchCase {
    let name = "metadata.blob.verify-index"
    let operationsPerRound = 1
    let text: [UInt8]
    let root: Certificate

    init() throws {
        let made = try MetadataBenchBLOB.make()
        text = Array(made.text.utf8)
        root = made.root
        // For the memory measurement in Docs/Performance.md: the BLOB and its root as files, so a
        // separate process (`webauthn-replay metadata`) can verify them with nothing else in memory.
        if let path = ProcessInfo.processInfo.environment["WEBAUTHN_BENCH_WRITE_BLOB"] {
            try Data(text).write(to: URL(fileURLWithPath: path))
            try Data(root.derBytes).write(to: URL(fileURLWithPath: path + ".root.der"))
        }
    }

    func run(operations: Int) async throws {
        for _ in 0..<operations {
            let blob = try MetadataBLOB(jws: text, trustAnchor: root, at: BenchCases.now)
            guard blob.entries.count == MetadataBenchBLOB.entryCount else { throw BenchFailure("entries") }
        }
    }
}

/// One entry found by AAGUID in the indexed BLOB.
final class MetadataLookupCase: BenchCase {
    let name = "metadata.lookup.aaguid"
    let operationsPerRound = 100_000
    let blob: MetadataBLOB
    let aaguids: [AAGUID]

    init() throws {
        let made = try MetadataBenchBLOB.make()
        blob = try MetadataBLOB(jws: made.text.utf8, trustAnchor: made.root, at: BenchCases.now)
        aaguids = made.aaguids
    }

    func run(operations: Int) async throws {
        var found = 0
        for index in 0..<operations where blob.entry(aaguid: aaguids[index % aaguids.count]) != nil { found += 1 }
        guard found == operations else { throw BenchFailure("lookup missed") }
    }
}
