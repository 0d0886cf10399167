import Foundation
import Testing

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// Issue 41, items 7c, 7d and 8 as the replay sees them: origins written by people compared as
/// serialized origins, a registration's two names (metadata's and the AAGUID list's claim) kept
/// apart, and a native app's body read as `response` by the decoder a server uses.
@Suite("Replay: origin case, claimed provider names, native app bodies")
struct ReplayHardeningTests: ReplaysOneDocument {
    typealias Members = ReplayPolicyMembersTests

    @Test(
        "the committed fixtures pass",
        arguments: ["registration/origin-case.json"])
    func committedPass(_ path: String) async throws {
        let report = await Replayer.replay(paths: [Members.fixtures.appendingPathComponent(path).path])
        #expect(
            report.exitCode == 0, "\(report.fixtureErrors) \(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        #expect(report.results.count >= 3)
    }

    // MARK: 7c

    @Test("origins in another case: the browsers' lowercase origins are accepted, in relyingParty.origins and the document")
    func originCase() async throws {
        let (report, _) = try await replay(try Members.committed("registration/origin-case.json"))
        for name in ["register-from-rp-id-origin", "register-from-listed-origin", "register-from-second-listed-origin"] {
            #expect(Members.result(report, name)?.actual == "accept", "\(name)")
        }
        #expect(Members.result(report, "register-from-android-payload-case-changed")?.error?.category == .origin)
        #expect(Members.result(report, "register-from-origin-in-upper-case")?.error?.category == .origin)
        // Without the document, its origins (whatever their case) are not allowed.
        let json = try Members.edited("registration/origin-case.json") { object in
            var rp = try #require(object["relyingParty"] as? [String: Any])
            rp["relatedOrigins"] = nil
            object["relyingParty"] = rp
        }
        let (without, _) = try await replay(json)
        #expect(Members.result(without, "register-from-listed-origin")?.error?.category == .origin)
        #expect(Members.result(without, "register-from-rp-id-origin")?.passed == true)
    }
}
