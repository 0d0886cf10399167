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
        arguments: ["registration/origin-case.json", "metadata/claimed-provider-name.json", "native-app/bodies.json"])
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

    // MARK: 7d

    @Test("authenticatorName is the metadata entry's name only; the AAGUID list's name is claimedProviderName")
    func claimedProviderName() async throws {
        let path = "metadata/claimed-provider-name.json"
        let (report, _) = try await replay(try Members.committed(path))
        #expect(report.exitCode == 0, "\(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        let claiming = try #require(Members.result(report, "register-none-claiming-a-provider"))
        #expect(claiming.metadataName == nil && claiming.claimedProviderName == "Google Password Manager")
        let listed = try #require(Members.result(report, "register-packed-listed"))
        #expect(listed.metadataName == "Level 1 Test Key" && listed.claimedProviderName == nil)
        // A none attestation's AAGUID is a claim: the entry it names gives no metadata name.
        #expect(try #require(Members.result(report, "register-none-listed-aaguid")).metadataName == nil)

        // Expecting the list's name as authenticatorName is a mismatch.
        let merged = try Members.edited(path) {
            try Members.editExpect(&$0, "register-none-claiming-a-provider") { $0["authenticatorName"] = "Google Password Manager" }
        }
        let (mismatch, _) = try await replay(merged)
        #expect(
            Members.result(mismatch, "register-none-claiming-a-provider")?.mismatches
                == ["authenticatorName: expected Google Password Manager, got no metadata entry"])
        // `metadataName`, the library's name for it, is compared the same way.
        let named = try Members.edited(path) {
            try Members.editExpect(&$0, "register-packed-listed") { $0["metadataName"] = "Level 1 Test Key" }
            try Members.editExpect(&$0, "register-none-claiming-a-provider") { $0["metadataName"] = "Google Password Manager" }
        }
        let (checked, _) = try await replay(named)
        #expect(Members.result(checked, "register-packed-listed")?.passed == true)
        #expect(
            Members.result(checked, "register-none-claiming-a-provider")?.mismatches
                == ["metadataName: expected Google Password Manager, got no metadata entry"])

        // Output: both fields in --json, each labelled in --explain.
        let json = try JSONSerialization.jsonObject(with: Data(ReplayFormatter.json(report, explain: false).utf8)) as? [String: Any]
        let rows = try #require(json?["results"] as? [[String: Any]])
        let row = try #require(rows.first { $0["name"] as? String == "register-none-claiming-a-provider" })
        #expect(row["claimedProviderName"] as? String == "Google Password Manager")
        #expect(row["metadataName"] == nil)
        #expect(rows.first { $0["name"] as? String == "register-packed-listed" }?["metadataName"] as? String == "Level 1 Test Key")
        let text = ReplayFormatter.text(report, explain: true)
        #expect(text.contains("claimed provider (AAGUID list, unverified): Google Password Manager"))
        #expect(text.contains("metadata name: Level 1 Test Key"))
        #expect(!text.contains("metadata name: Google Password Manager"))
    }

    // MARK: 8

    @Test("a native app's body as response replays through the server's decoder, to the server's verdict")
    func nativeBodies() async throws {
        let path = "native-app/bodies.json"
        let (report, _) = try await replay(try Members.committed(path))
        #expect(report.exitCode == 0, "\(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        #expect(Members.result(report, "register-native-body")?.actual == "accept")
        #expect(Members.result(report, "login-native-body")?.actual == "accept")
        #expect(Members.result(report, "login-native-body-counter-went-back")?.actual == "reject(signCount)")
        #expect(Members.result(report, "native-assertion-for-registration")?.actual == "reject(challenge)")
        // The decoder's own error: the native body's member is named, as a server's error names it.
        let unknown = try #require(Members.result(report, "register-native-body-unknown-member")?.error)
        #expect(unknown.category == .malformed && unknown.message.contains("NativeRegistrationBody"), "\(unknown)")

        // Each response is the bytes a server would read: the replay's verdict is the decoder's.
        let fixture = try #require(FileManager.default.contents(atPath: Members.fixtures.appendingPathComponent(path).path))
        let (loaded, _) = try Replayer.load(fixture, file: path)
        for (ceremony, extent) in zip(loaded.ceremonies, ResponseExtents.find(in: [UInt8](fixture))) {
            guard case .bytes(let body) = extent else { Issue.record("\(ceremony.name): no response bytes"); continue }
            switch (ceremony.response, ceremony.kind) {
            case (.registration(let decoded), _):
                #expect(decoded.rawId == (try RegistrationResponse(jsonData: Data(body))).rawId, "\(ceremony.name)")
            case (.authentication(let decoded), _):
                #expect(decoded.rawId == (try AuthenticationResponse(jsonData: Data(body))).rawId, "\(ceremony.name)")
            case (.undecodable(let error), .registration):
                #expect(throws: error) { try RegistrationResponse(jsonData: Data(body)) }
            case (.undecodable, .authentication), (.unread, _):
                Issue.record("\(ceremony.name): \(ceremony.response)")
            }
        }
    }

    @Test("ceremonies given twice: the file is unusable (exit 2), as its responses cannot be told apart")
    func ceremoniesTwice() async throws {
        let object = try Members.committed("native-app/bodies.json")
        let ceremonies = try #require(object["ceremonies"] as? [[String: Any]])
        var text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        // As many ceremonies, in another order: the counts alone cannot tell.
        let other = String(decoding: try JSONSerialization.data(withJSONObject: Array(ceremonies.reversed())), as: UTF8.self)
        let range = try #require(text.range(of: #""ceremonies":"#))
        text.replaceSubrange(range, with: #""ceremonies":\#(other),"ceremonies":"#)
        let (report, _) = try await replay(text: text)
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.member == "ceremonies", "\(report.fixtureErrors)")
    }

    @Test("a response given twice in one ceremony is malformed, whichever of the two a JSON decoder would keep")
    func responseTwice() async throws {
        var object = try Members.committed("native-app/bodies.json")
        var ceremony = try #require((object["ceremonies"] as? [[String: Any]])?.first)
        let response = try #require(ceremony["response"])
        ceremony["response"] = nil
        object["ceremonies"] = [ceremony]
        let real = String(decoding: try JSONSerialization.data(withJSONObject: response, options: [.sortedKeys]), as: UTF8.self)
        for pair in [(real, #"{"credentialID":"AQID"}"#), (#"{"credentialID":"AQID"}"#, real)] {
            var text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            let name = try #require(text.range(of: #""name":"register-native-body""#))
            text.replaceSubrange(name, with: #""response":\#(pair.0),"response":\#(pair.1),"name":"register-native-body""#)
            let (report, _) = try await replay(text: text)
            #expect(report.results.first?.error?.category == .malformed, "\(report.results.first.map { "\($0.actual)" } ?? "")")
        }
    }
}
