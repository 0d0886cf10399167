import Foundation
import Testing

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// The members issue 29 added to `webauthn-ceremonies/1`: metadata policy
/// (`acceptStale`, `refusedStatuses`, `minimumCertificationLevel`, `previousNumber`,
/// `expect.metadataStale`), `null` expectations (must be absent), `relyingParty.relatedOrigins`,
/// App Attest challenges (`issue`, `issuedAt`, `receivedAt`, an assertion's `challenge`,
/// `policy.challengeLifetime`) and a `verificationTime` with a fraction of a second. Each
/// committed fixture passes as written; each test then changes one member and requires the
/// verdict to change, so none of these members is decoration.
@Suite("Replay: policy members, absent expectations, related origins, App Attest challenges")
struct ReplayPolicyMembersTests: ReplaysOneDocument {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A committed fixture as a JSON object.
    static func committed(_ path: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: fixtures.appendingPathComponent(path).path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A committed fixture with one edit applied through `edit`.
    static func edited(_ path: String, _ edit: (inout [String: Any]) throws -> Void) throws -> [String: Any] {
        var object = try committed(path)
        try edit(&object)
        return object
    }

    /// Edits `policy.metadata`.
    static func editMetadata(_ object: inout [String: Any], _ edit: (inout [String: Any]) -> Void) throws {
        var policy = try #require(object["policy"] as? [String: Any])
        var metadata = try #require(policy["metadata"] as? [String: Any])
        edit(&metadata)
        policy["metadata"] = metadata
        object["policy"] = policy
    }

    /// Edits the ceremony named `name`.
    static func editCeremony(_ object: inout [String: Any], _ name: String, _ edit: (inout [String: Any]) -> Void) throws {
        var ceremonies = try #require(object["ceremonies"] as? [[String: Any]])
        let index = try #require(ceremonies.firstIndex { $0["name"] as? String == name })
        edit(&ceremonies[index])
        object["ceremonies"] = ceremonies
    }

    /// Edits the expectation of the ceremony named `name`.
    static func editExpect(_ object: inout [String: Any], _ name: String, _ edit: @escaping (inout [String: Any]) -> Void) throws {
        try editCeremony(&object, name) { ceremony in
            var expect = ceremony["expect"] as? [String: Any] ?? [:]
            edit(&expect)
            ceremony["expect"] = expect
        }
    }

    /// The result of the ceremony named `name`.
    static func result(_ report: ReplayReport, _ name: String) -> CeremonyResult? {
        report.results.first { $0.name == name }
    }

    @Test(
        "the committed fixtures of every new member pass",
        arguments: [
            "registration/origin-related-origins.json", "registration/verification-time-fraction.json",
            "extensions/absent.json", "metadata/policy-refused-statuses.json", "metadata/policy-minimum-certification-level.json",
            "metadata/policy-stale-refused.json", "metadata/policy-stale-accepted.json", "metadata/blob-rollback.json",
            "metadata/blob-previous-number.json", "app-attest/challenges.json", "registration/fido-conformance-profile.json",
        ])
    func committedPass(_ path: String) async throws {
        let report = await Replayer.replay(paths: [Self.fixtures.appendingPathComponent(path).path])
        #expect(
            report.exitCode == 0, "\(report.fixtureErrors) \(report.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        #expect(!report.results.isEmpty)
    }

    // MARK: The FIDO conformance profile (issue 42)

    @Test("each conformance profile member changes a verdict; an unattested value that names nothing is exit 2")
    func conformanceProfileMembers() async throws {
        let path = "registration/fido-conformance-profile.json"
        func without(_ member: String, value: Any? = nil) throws -> [String: Any] {
            try Self.edited(path) { object in
                var policy = object["policy"] as? [String: Any] ?? [:]
                policy[member] = value
                object["policy"] = policy
            }
        }
        let (committed, _) = try await replay(try Self.committed(path))
        #expect(committed.exitCode == 0)
        let (up, _) = try await replay(try without("userPresenceOptionalInAssertions"))
        #expect(Self.result(up, "login-user-presence-clear")?.error?.category == .userPresence)
        let (tpm, _) = try await replay(try without("tpmNameMayUseItsOwnAlgorithm"))
        #expect(Self.result(tpm, "tpm-name-sha1-nameAlg-sha256")?.error?.category == .attestation)
        let (u2f, _) = try await replay(try without("fidoU2FRequiresZeroAAGUID"))
        #expect(Self.result(u2f, "fido-u2f-non-zero-aaguid")?.actual == "accept")
        let (tokenBinding, _) = try await replay(try without("checkTokenBindingShape"))
        #expect(Self.result(tokenBinding, "token-binding-not-an-object")?.actual == "accept")
        #expect(Self.result(committed, "token-binding-not-an-object")?.error?.category == .malformed)
        let (root, _) = try await replay(try without("refuseAnchorInPath"))
        #expect(Self.result(root, "packed-x5c-carries-its-root")?.actual == "accept")
        let (unattested, _) = try await replay(try without("unattested"))
        #expect(Self.result(unattested, "none-accepted")?.error?.category == .trust)
        #expect(Self.result(unattested, "packed-self-accepted")?.error?.category == .trust)
        let (requested, _) = try await replay(try without("unattested", value: "rejectedWhenRequested"))
        #expect(Self.result(requested, "none-accepted")?.error?.category == .trust)
        #expect(Self.result(requested, "packed-self-accepted")?.actual == "accept")
        let (unusable, _) = try await replay(try without("unattested", value: "none"))
        #expect(unusable.exitCode == 2)
        #expect(unusable.fixtureErrors.first?.member == "policy.unattested")
    }

    @Test("metadataStatements: the profile judged by an unsigned statement's roots gives the same verdicts as by trustAnchors")
    func metadataStatements() async throws {
        let path = "registration/fido-conformance-profile.json"
        let root = try #require((try Self.committed(path)["policy"] as? [String: Any])?["trustAnchors"] as? [String])[0]
        var standard = root.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        let statement: [String: Any] = [
            "aaguid": "01020304-0506-0708-090a-0b0c0d0e0f10", "description": "Fixture Test Key",
            "attestationTypes": ["basic_full", "basic_surrogate", "attca"], "attestationRootCertificates": [standard],
        ]
        func judged(by statements: [Any]?) throws -> [String: Any] {
            try Self.edited(path) { object in
                var policy = object["policy"] as? [String: Any] ?? [:]
                policy["trustAnchors"] = nil
                policy["metadataStatements"] = statements
                object["policy"] = policy
            }
        }
        let (byStatement, _) = try await replay(try judged(by: [statement]))
        #expect(byStatement.exitCode == 0, "\(byStatement.results.filter { !$0.passed }.map { "\($0.name): \($0.mismatches)" })")
        let (noRoots, _) = try await replay(try judged(by: nil))
        #expect(Self.result(noRoots, "packed-x5c-trusted")?.error?.category == .trust)
        let (unusable, _) = try await replay(try judged(by: [["aaguid": "01020304-0506-0708-090a-0b0c0d0e0f10"]]))
        #expect(unusable.exitCode == 2)
        #expect(unusable.fixtureErrors.first?.member == "policy.metadataStatements")
    }

    @Test("the replay members give the preset: VerificationPolicy.fidoConformance sets exactly what the file sets")
    func conformanceProfileIsThePreset() throws {
        let preset = VerificationPolicy.fidoConformance(trust: FixedTrustAnchors([]))
        #expect(preset.userPresenceOptionalInAssertions)
        #expect(preset.attestation.formats.tpmNameMayUseItsOwnAlgorithm)
        #expect(preset.attestation.refusesAnchorInPath)
        #expect(preset.attestation.chain == .required && preset.attestation.unattested == .accepted)
        let policy = try #require(try Self.committed("registration/fido-conformance-profile.json")["policy"] as? [String: Any])
        #expect(policy["requireTrustedAttestation"] as? Bool == true && policy["unattested"] as? String == "accepted")
        #expect(preset.attestation.formats.fidoU2FRequiresZeroAAGUID)
        #expect(preset.checksTokenBindingShape)
        for member in [
            "userPresenceOptionalInAssertions", "tpmNameMayUseItsOwnAlgorithm", "refuseAnchorInPath", "fidoU2FRequiresZeroAAGUID",
            "checkTokenBindingShape",
        ] {
            #expect(policy[member] as? Bool == true, "\(member)")
        }
    }

    // MARK: Related origins

    @Test("relatedOrigins: without the document, the listed origins are origin")
    func relatedOriginsRequired() async throws {
        let json = try Self.edited("registration/origin-related-origins.json") { object in
            var rp = try #require(object["relyingParty"] as? [String: Any])
            rp["relatedOrigins"] = nil
            object["relyingParty"] = rp
        }
        let (report, _) = try await replay(json)
        #expect(report.exitCode == 1)
        #expect(Self.result(report, "register-from-listed-origin")?.error?.category == .origin)
        #expect(Self.result(report, "register-from-second-listed-origin")?.error?.category == .origin)
        #expect(Self.result(report, "register-from-unlisted-origin")?.passed == true)
    }

    @Test(
        "relatedOrigins a browser would not honour, or not a document: exit 2 naming relyingParty.relatedOrigins",
        arguments: [
            #"{"origins": ["https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://f.com"]}"#,
            #"{"origins": ["https://example.com/path"]}"#,
            #"{"origins": "https://example.com"}"#,
            #"["https://example.com"]"#,
        ])
    func relatedOriginsUnusable(_ document: String) async throws {
        let json = try Self.edited("registration/origin-related-origins.json") { object in
            var rp = try #require(object["relyingParty"] as? [String: Any])
            rp["relatedOrigins"] = try JSONSerialization.jsonObject(with: Data(document.utf8))
            object["relyingParty"] = rp
        }
        let (report, _) = try await replay(json)
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.member.hasPrefix("relyingParty.relatedOrigins") == true, "\(report.fixtureErrors)")
    }

    // MARK: Metadata policy

    @Test("refusedStatuses replaces the default set: without it UPDATE_AVAILABLE passes and REVOKED is refused")
    func refusedStatuses() async throws {
        let json = try Self.edited("metadata/policy-refused-statuses.json") { try Self.editMetadata(&$0) { $0["refusedStatuses"] = nil } }
        let (report, _) = try await replay(json)
        #expect(report.exitCode == 1)
        #expect(Self.result(report, "register-update-available")?.actual == "accept")
        #expect(Self.result(report, "register-revoked-not-refused")?.error?.category == .metadata)
        let empty = try Self.edited("metadata/policy-refused-statuses.json") {
            try Self.editMetadata(&$0) { $0["refusedStatuses"] = [String]() }
        }
        let (emptyReport, _) = try await replay(empty)
        #expect(Self.result(emptyReport, "register-update-available")?.actual == "accept")
    }

    @Test("minimumCertificationLevel: without it level 1 passes; a value that is not a certification status is exit 2")
    func minimumCertificationLevel() async throws {
        let json = try Self.edited("metadata/policy-minimum-certification-level.json") {
            try Self.editMetadata(&$0) { $0["minimumCertificationLevel"] = nil }
        }
        let (report, _) = try await replay(json)
        #expect(Self.result(report, "register-level-1")?.actual == "accept")
        let higher = try Self.edited("metadata/policy-minimum-certification-level.json") {
            try Self.editMetadata(&$0) { $0["minimumCertificationLevel"] = "FIDO_CERTIFIED_L3" }
        }
        let (higherReport, _) = try await replay(higher)
        #expect(Self.result(higherReport, "register-level-2")?.error?.category == .metadata)
        for bad in ["L2", "REVOKED", "fido_certified_l2"] {
            let unusable = try Self.edited("metadata/policy-minimum-certification-level.json") {
                try Self.editMetadata(&$0) { $0["minimumCertificationLevel"] = bad }
            }
            let (unusableReport, _) = try await replay(unusable)
            #expect(unusableReport.exitCode == 2)
            #expect(unusableReport.fixtureErrors.first?.member == "policy.metadata.minimumCertificationLevel")
        }
    }

    @Test("acceptStale: absent means true (files before it judged stale BLOBs as fresh); metadataStale is compared")
    func acceptStale() async throws {
        let json = try Self.edited("metadata/policy-stale-refused.json") { try Self.editMetadata(&$0) { $0["acceptStale"] = nil } }
        let (report, _) = try await replay(json)
        #expect(Self.result(report, "received-the-day-after")?.actual == "accept")
        #expect(Self.result(report, "unlisted-received-the-day-after")?.actual == "accept")
        let wrong = try Self.edited("metadata/policy-stale-accepted.json") {
            try Self.editExpect(&$0, "received-the-day-after") { $0["metadataStale"] = false }
        }
        let (wrongReport, _) = try await replay(wrong)
        #expect(wrongReport.exitCode == 1)
        #expect(Self.result(wrongReport, "received-the-day-after")?.mismatches == ["metadataStale: expected false, got true"])
    }

    @Test("previousNumber: a BLOB below it is refused, at or above it used; a negative one is exit 2")
    func previousNumber() async throws {
        for (previous, verdict) in [(8, "reject(metadata)"), (7, "accept"), (6, "accept")] {
            let json = try Self.edited("metadata/blob-previous-number.json") {
                try Self.editMetadata(&$0) { $0["previousNumber"] = previous }
            }
            let (report, _) = try await replay(json)
            #expect(Self.result(report, "register-level-2")?.actual == verdict, "previousNumber \(previous)")
        }
        let unusable = try Self.edited("metadata/blob-previous-number.json") { try Self.editMetadata(&$0) { $0["previousNumber"] = -1 } }
        let (report, _) = try await replay(unusable)
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.member == "policy.metadata.previousNumber")
    }

    // MARK: Must be absent

    @Test("authenticatorName and metadataStatus null: the verifier must report none; a named entry breaks it")
    func absentMetadataExpectations() async throws {
        for member in ["authenticatorName", "metadataStatus"] {
            let json = try Self.edited("metadata/policy-minimum-certification-level.json") {
                try Self.editExpect(&$0, "register-level-2") { $0[member] = NSNull() }
            }
            let (report, _) = try await replay(json)
            #expect(report.exitCode == 1)
            let mismatches = Self.result(report, "register-level-2")?.mismatches ?? []
            #expect(mismatches.count == 1 && mismatches[0].hasPrefix("\(member): expected none, got "), "\(mismatches)")
        }
        // A value where none is reported is a mismatch too.
        let named = try Self.edited("metadata/policy-minimum-certification-level.json") {
            try Self.editExpect(&$0, "register-unlisted") { $0["authenticatorName"] = "Level 2 Test Key" }
        }
        let (report, _) = try await replay(named)
        #expect(
            Self.result(report, "register-unlisted")?.mismatches == ["authenticatorName: expected Level 2 Test Key, got no metadata entry"])
    }

    @Test("an extension output expected null must not be reported; extensions null demands none at all")
    func absentExtensions() async throws {
        let reported = try Self.edited("extensions/absent.json") {
            try Self.editExpect(&$0, "unsolicited-prf-results-not-reported") { expect in
                var extensions = expect["extensions"] as? [String: Any] ?? [:]
                extensions["credProps"] = NSNull()
                expect["extensions"] = extensions
            }
        }
        let (report, _) = try await replay(reported)
        #expect(
            Self.result(report, "unsolicited-prf-results-not-reported")?.mismatches
                == ["extensions.credProps: expected none, got {rk: true}"])
        let none = try Self.edited("extensions/absent.json") {
            try Self.editExpect(&$0, "unsolicited-prf-results-not-reported") { $0["extensions"] = NSNull() }
        }
        let (noneReport, _) = try await replay(none)
        let mismatches = Self.result(noneReport, "unsolicited-prf-results-not-reported")?.mismatches ?? []
        #expect(mismatches.count == 1 && mismatches[0].hasPrefix("extensions: expected none, got {credProps"), "\(mismatches)")
        // Leaving the member out still compares nothing.
        let unchecked = try Self.edited("extensions/absent.json") {
            try Self.editExpect(&$0, "unsolicited-prf-results-not-reported") { $0["extensions"] = nil }
        }
        #expect(try await replay(unchecked).0.exitCode == 0)
    }

    // MARK: Fractions of a second

    @Test(
        "verificationTime's fraction counts: read as a whole second, the late challenge is in time",
        arguments: [
            ("registration/verification-time-fraction.json", "issued-300.001s-before"),
            ("app-attest/challenges.json", "attest-issued-60.001s-before"),
        ])
    func fractionalClock(_ path: String, _ name: String) async throws {
        let json = try Self.edited(path) { object in
            var policy = try #require(object["policy"] as? [String: Any])
            policy["verificationTime"] = "2025-06-01T00:00:00Z"
            object["policy"] = policy
        }
        let (report, _) = try await replay(json)
        #expect(Self.result(report, name)?.actual == "accept")
    }

    // MARK: App Attest challenges

    @Test("issue true on a used challenge issues it again: the replayed attestation gets through")
    func appAttestReissued() async throws {
        let json = try Self.edited("app-attest/challenges.json") {
            try Self.editCeremony(&$0, "attest-challenge-used-again") { $0["issue"] = true }
        }
        let (report, _) = try await replay(json)
        #expect(Self.result(report, "attest-challenge-used-again")?.actual == "accept")
    }

    @Test("without issue and issuedAt the challenge is not tracked, as in files before these members")
    func appAttestUntracked() async throws {
        let json = try Self.edited("app-attest/challenges.json") { object in
            var ceremonies = try #require(object["ceremonies"] as? [[String: Any]])
            for index in ceremonies.indices {
                ceremonies[index]["issue"] = nil
                ceremonies[index]["issuedAt"] = nil
            }
            object["ceremonies"] = ceremonies
        }
        let (report, _) = try await replay(json)
        // The used challenge passes now; the key it attests is then stored, so the next attestation of it is a duplicate.
        #expect(Self.result(report, "attest-challenge-used-again")?.actual == "accept")
        #expect(Self.result(report, "attest-challenge-never-issued")?.error?.category == .credentialExists)
        #expect(Self.result(report, "assert-challenge-never-issued")?.actual == "accept")
        // Step 6 still runs whenever the assertion names its challenge.
        #expect(Self.result(report, "assert-client-data-without-the-challenge")?.error?.category == .challenge)
    }

    @Test("receivedAt is the App Attest verifier's clock: certificates are judged at it")
    func appAttestReceivedAt() async throws {
        let json = try Self.edited("app-attest/challenges.json") {
            try Self.editCeremony(&$0, "attest-issued-and-received-later-accepted") {
                $0["issuedAt"] = "2040-01-01T00:00:00Z"
                $0["receivedAt"] = "2040-01-01T00:00:10Z"
            }
        }
        let (report, _) = try await replay(json)
        let result = try #require(Self.result(report, "attest-issued-and-received-later-accepted"))
        // The test root has expired by 2040: the chain is judged at receivedAt, not at verificationTime.
        #expect(result.error?.category == .trust)
        #expect(result.error?.message.contains("expired") == true, "\(String(describing: result.error))")
    }

    @Test(
        "unusable App Attest challenge members: exit 2 naming the member",
        arguments: [
            ("assert-issued-accepted", "challenge", nil as String?, "ceremonies[6].challenge"),
            ("assert-late", "receivedAt", "tomorrow", "ceremonies[9].receivedAt"),
            ("assert-late", "issue", "yes", "ceremonies[9].issue"),
        ])
    func appAttestUnusable(_ name: String, _ member: String, _ value: String?, _ named: String) async throws {
        let json = try Self.edited("app-attest/challenges.json") { try Self.editCeremony(&$0, name) { $0[member] = value } }
        let (report, _) = try await replay(json)
        #expect(report.exitCode == 2)
        #expect(report.fixtureErrors.first?.member == named, "\(report.fixtureErrors)")
        let lifetime = try Self.edited("app-attest/challenges.json") { object in
            var policy = try #require(object["policy"] as? [String: Any])
            policy["challengeLifetime"] = -1
            object["policy"] = policy
        }
        let (lifetimeReport, _) = try await replay(lifetime)
        #expect(lifetimeReport.fixtureErrors.first?.member == "policy.challengeLifetime")
    }
}
