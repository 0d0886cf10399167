import Foundation
import Testing
import WebAuthnRP

/// The package's own version is the changelog's newest release, and a recording says which
/// release judged it.
@Suite("Package version")
struct PackageVersionTests {
    /// The `X.Y.Z` of the first `## [X.Y.Z] - date` heading of CHANGELOG.md (Unreleased is
    /// skipped: it has no number yet).
    static func newestChangelogRelease() throws -> String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("## [") {
            let name = line.dropFirst(4).prefix { $0 != "]" }
            if name != "Unreleased" { return String(name) }
        }
        return nil
    }

    @Test("webAuthnRPVersion is the newest release CHANGELOG.md lists, written X.Y.Z")
    func versionIsTheChangelogsNewestRelease() throws {
        let newest = try #require(try Self.newestChangelogRelease())
        #expect(webAuthnRPVersion == newest)
        let parts = webAuthnRPVersion.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil })
    }

    @Test("a recording's source names the release that wrote it")
    func recordingNamesTheVersion() throws {
        let service = RelyingPartyService(
            relyingParty: RelyingParty(id: "example.org", origins: ["https://example.org"]))
        let body = Data("{}".utf8)
        let error = try #require(throws: WebAuthnError.self) { try AuthenticationResponse(jsonData: body) }
        let recording = CeremonyRecording(
            unparsedBody: body, kind: .authentication, error: error, challenge: .fromClientData,
            service: service, receivedAt: Date(timeIntervalSince1970: 1_780_000_000))
        let document = try JSONSerialization.jsonObject(with: recording.document()) as? [String: Any]
        #expect(document?["source"] as? String == "CeremonyRecording (WebAuthnRP \(webAuthnRPVersion))")
    }
}
