import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// `policy.metadata`, `expect.authenticatorName` and `expect.metadataStatus` (the signed
/// registrations judged with metadata are in `Fixtures/metadata/`).
@Suite("Replay: policy.metadata")
struct ReplayMetadataTests: ReplaysOneDocument {
    typealias J = FixtureJSON

    /// The `policy.metadata` of a committed fixture.
    static func committedMetadata() throws -> [String: Any] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/metadata/judged-by-entry.json").path
        let data = try #require(FileManager.default.contents(atPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let policy = try #require(object["policy"] as? [String: Any])
        return try #require(policy["metadata"] as? [String: Any])
    }

    @Test(
        "a trust anchor or CRL that does not parse makes the file unusable (exit 2, member named)",
        arguments: [("trustAnchor", "policy.metadata.trustAnchor"), ("crls", "policy.metadata.crls[0]")])
    func unusable(_ member: String, _ named: String) async throws {
        var metadata = try Self.committedMetadata()
        metadata[member] = member == "crls" ? ["AAAA"] : "AAAA"
        let (report, path) = try await replay(
            J.document(
                [],
                extra: [
                    "policy": [
                        "verificationTime": "2025-06-01T00:00:00Z",
                        "metadata": metadata,
                    ]
                ]))
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.file == path)
        #expect(report.fixtureErrors.first?.member == named)
    }

    @Test("a BLOB that does not verify refuses every registration with metadata, not the file")
    func refusedBLOB() async throws {
        var metadata = try Self.committedMetadata()
        metadata["blob"] = "not.a.jws"
        // The registration's response is broken; with a refused BLOB it never gets past parsing
        // either way, so a valid registration is taken from the committed fixture instead.
        let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/metadata/judged-by-entry.json").path
        let data = try #require(FileManager.default.contents(atPath: fixturePath))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var ceremonies = try #require(object["ceremonies"] as? [[String: Any]])
        var first = try #require(ceremonies.first)
        first["expect"] = J.reject("metadata")
        ceremonies = [first]
        object["ceremonies"] = ceremonies
        var policy = try #require(object["policy"] as? [String: Any])
        policy["metadata"] = metadata
        object["policy"] = policy
        let (report, _) = try await replay(object)
        #expect(report.exitCode == 0)
        #expect(report.results.first?.error?.category == .metadata)
    }

    @Test("authenticatorName and metadataStatus are compared: a different value is a mismatch")
    func expectationsCompared() async throws {
        let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/metadata/judged-by-entry.json").path
        let data = try #require(FileManager.default.contents(atPath: fixturePath))
        for (member, value) in [("authenticatorName", "Another Key"), ("metadataStatus", "FIDO_CERTIFIED_L3")] {
            var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var ceremonies = try #require(object["ceremonies"] as? [[String: Any]])
            var first = try #require(ceremonies.first)
            var expect = try #require(first["expect"] as? [String: Any])
            expect[member] = value
            first["expect"] = expect
            ceremonies = [first]
            object["ceremonies"] = ceremonies
            let (report, _) = try await replay(object)
            #expect(report.exitCode == 1)
            #expect(report.results.first?.mismatches.first?.hasPrefix(member) == true, "\(report.results.first?.mismatches ?? [])")
        }
    }

    @Test("webauthn-replay metadata: verified and listed, refused, unusable arguments")
    func listing() throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let metadata = try Self.committedMetadata()
        let blobPath = try temp.write("blob.jws", try #require(metadata["blob"] as? String))
        let anchor = try Base64URL.decode(try #require(metadata["trustAnchor"] as? String))
        let rootPath = temp.folder.appendingPathComponent("root.der").path
        try Data(anchor).write(to: URL(fileURLWithPath: rootPath))
        let (text, code) = MetadataListing.run([blobPath, "--root", rootPath, "--at", "2025-06-01T00:00:00Z"])
        #expect(code == 0)
        #expect(text.hasPrefix("VERIFIED BLOB no 7, nextUpdate 2025-07-01, 6 entries"))
        #expect(text.contains("4d455441-0000-4000-8000-000000000002  REVOKED  -  Revoked Test Key"))
        let (stale, _) = MetadataListing.run([blobPath, "--root", rootPath, "--at", "2025-08-01T00:00:00Z"])
        #expect(stale.contains("(STALE)"))
        let (refused, refusedCode) = MetadataListing.run([blobPath, "--root", rootPath, "--at", "2040-01-01T00:00:00Z"])
        #expect(refusedCode == 1)
        #expect(refused.hasPrefix("REFUSED metadata"))
        #expect(MetadataListing.run([blobPath]).exitCode == 2)
        #expect(MetadataListing.run([blobPath, "--root", blobPath]).exitCode == 2)
    }

    @Test("webauthn-replay metadata names an identifier two entries list as AMBIGUOUS, with their positions")
    func listingAmbiguous() throws {
        let temp = try TempFixtures()
        defer { temp.remove() }
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/metadata/identity-duplicate-aaguid.json").path
        let data = try #require(FileManager.default.contents(atPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metadata = try #require((object["policy"] as? [String: Any])?["metadata"] as? [String: Any])
        let blobPath = try temp.write("blob.jws", try #require(metadata["blob"] as? String))
        let rootPath = temp.folder.appendingPathComponent("root.der").path
        try Data(try Base64URL.decode(try #require(metadata["trustAnchor"] as? String))).write(to: URL(fileURLWithPath: rootPath))
        let (text, code) = MetadataListing.run([blobPath, "--root", rootPath, "--at", "2025-06-01T00:00:00Z"])
        #expect(code == 0)
        let ambiguous = text.split(separator: "\n").filter { $0.hasPrefix("AMBIGUOUS ") }
        #expect(ambiguous.count == 1, "\(text)")
        #expect(ambiguous.first?.contains("is listed by entries [2], [5]: it names no entry") == true, "\(text)")
        // A BLOB without duplicates lists none.
        let clean = try Self.committedMetadata()
        let cleanPath = try temp.write("clean.jws", try #require(clean["blob"] as? String))
        try Data(try Base64URL.decode(try #require(clean["trustAnchor"] as? String))).write(to: URL(fileURLWithPath: rootPath))
        #expect(!MetadataListing.run([cleanPath, "--root", rootPath, "--at", "2025-06-01T00:00:00Z"]).text.contains("AMBIGUOUS"))
    }

    @Test("webauthn-replay metadata lists an entry it could not read as SKIPPED, with its identifier and the reason")
    func listingShowsSkippedEntries() throws {
        let mds = try TestMetadataService.make(seed: "listing skipped entries")
        var broken = TestMetadataService.Entry(aaguid: "4d455441-0000-4000-8000-0000000000aa", description: "Broken Key").json
        broken["statusReports"] = [["status": 5]]
        let good = TestMetadataService.Entry(aaguid: "4d455441-0000-4000-8000-0000000000bb", description: "Good Key").json
        let jws = try mds.blob(payload: try TestMetadataService.payload(entries: [good, broken], number: 3, nextUpdate: "2099-01-01"))
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let blob = try MetadataBLOB(jws: jws.utf8, trustAnchor: mds.root.certificate, at: now)
        let text = MetadataListing.describe(blob, at: now)
        #expect(text.contains(", 1 entries (1 skipped), signed by"))
        #expect(text.contains("4d455441-0000-4000-8000-0000000000bb  FIDO_CERTIFIED_L1  l1  Good Key"))
        #expect(text.contains("SKIPPED entries[1] 4d455441-0000-4000-8000-0000000000aa: "), "\(text)")
        #expect(text.contains("statusReports[0].status"), "\(text)")
    }
}
