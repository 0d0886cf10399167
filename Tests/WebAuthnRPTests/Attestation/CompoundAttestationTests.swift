import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Sub-statements about one credential and one authenticator data, for compound statements.
struct CompoundStatementFactory {
    let apple: AppleStatementFactory

    init() throws { apple = try AppleStatementFactory() }

    /// `{ fmt, attStmt }`.
    static func entry(_ fmt: String, _ attStmt: CBORItem) -> CBORItem {
        .map([(.text("fmt"), .text(fmt)), (.text("attStmt"), attStmt)])
    }

    /// A valid `apple` sub-statement (credCert + CA).
    func appleEntry() throws -> CBORItem { Self.entry("apple", try apple.validStatement()) }

    /// A `packed` self-attestation sub-statement: valid, or with a signature over other data.
    func packedSelfEntry(valid: Bool = true) throws -> CBORItem {
        let signed = valid ? apple.authData + AttestationTestSupport.clientDataHash : Array("something else".utf8)
        let sig = try apple.credential.privateKey.sign(signed, algorithm: .es256)
        return Self.entry("packed", .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(sig))]))
    }

    /// A valid `none` sub-statement.
    static var noneEntry: CBORItem { entry("none", .map([])) }

    func context(
        _ entries: [CBORItem], requirement: AttestationFormatOptions.CompoundRequirement = .all,
        trustAnchors: [Certificate] = [], allowedFormats: Set<String>? = nil
    ) throws -> AttestationContext {
        try apple.context(
            .array(entries), format: "compound",
            policy: AttestationPolicy(
                source: FixedTrustAnchors(trustAnchors), formats: AttestationFormatOptions(compoundRequirement: requirement),
                allowedFormats: allowedFormats))
    }

    func verify(
        _ entries: [CBORItem], requirement: AttestationFormatOptions.CompoundRequirement = .all,
        allowedFormats: Set<String>? = nil
    ) throws -> AttestationOutcome {
        try CompoundAttestation().verify(try context(entries, requirement: requirement, allowedFormats: allowedFormats))
    }
}

@Suite("compound attestation (§8.9)")
struct CompoundAttestationTests {
    typealias Requirement = AttestationFormatOptions.CompoundRequirement

    @Test(
        "two valid sub-statements verify under both policies, each kept as a component",
        arguments: [Requirement.all, .any])
    func validCompound(_ requirement: Requirement) throws {
        let factory = try CompoundStatementFactory()
        let outcome = try factory.verify([try factory.appleEntry(), try factory.packedSelfEntry()], requirement: requirement)
        #expect(outcome.components.map(\.format) == ["apple", "packed"])
        #expect(outcome.components.map(\.outcome.type) == [.anonCA, .self])
        #expect(outcome.components.first?.outcome.trustPath.count == 2)
        #expect(outcome.trustPath.isEmpty)
        #expect(outcome.type == .anonCA)
    }

    @Test("the table selects compound")
    func inTable() throws {
        let factory = try CompoundStatementFactory()
        let format = try #require(AttestationFormatTable.standard.format("compound"))
        let outcome = try format.verify(try factory.context([CompoundStatementFactory.noneEntry, try factory.appleEntry()]))
        #expect(outcome.components.count == 2)
    }

    @Test("the reported type is the strongest verified claim: first chain type, else self, else none")
    func reportedType() throws {
        let factory = try CompoundStatementFactory()
        let none = CompoundStatementFactory.noneEntry
        #expect(try factory.verify([try factory.packedSelfEntry(), try factory.appleEntry()]).type == .anonCA)
        #expect(try factory.verify([none, try factory.packedSelfEntry()]).type == .self)
        #expect(try factory.verify([none, none]).type == .none)
        // Under .any a failing chain-bearing statement does not lend its type.
        let anyOutcome = try factory.verify(
            [try factory.packedSelfEntry(valid: false), none, try factory.packedSelfEntry()],
            requirement: .any)
        #expect(anyOutcome.type == .self)
        #expect(anyOutcome.components.map(\.format) == ["none", "packed"])
    }

    @Test("fewer than two sub-statements are rejected under both policies", arguments: [Requirement.all, .any])
    func tooFew(_ requirement: Requirement) throws {
        let factory = try CompoundStatementFactory()
        expectAttestationFailure("at least 2") { _ = try factory.verify([], requirement: requirement) }
        expectAttestationFailure("at least 2") { _ = try factory.verify([try factory.appleEntry()], requirement: requirement) }
    }

    @Test(
        "more than eight sub-statements are rejected before any is verified (a bound of this library, not the spec's)",
        arguments: [Requirement.all, .any])
    func tooMany(_ requirement: Requirement) throws {
        let factory = try CompoundStatementFactory()
        let eight = Array(repeating: try factory.packedSelfEntry(), count: 8)
        #expect(try factory.verify(eight, requirement: requirement).components.count == 8)
        expectAttestationFailure("attStmt holds 9 statements, more than 8") {
            _ = try factory.verify(eight + [try factory.packedSelfEntry()], requirement: requirement)
        }
    }

    @Test("attStmt that is not an array is rejected")
    func notAnArray() throws {
        let factory = try CompoundStatementFactory()
        let context = try factory.apple.context(.map([(.text("fmt"), .text("apple"))]))
        expectAttestationFailure("not an array") { _ = try CompoundAttestation().verify(context) }
    }

    @Test("a nested compound statement is rejected under both policies", arguments: [Requirement.all, .any])
    func nestedCompound(_ requirement: Requirement) throws {
        let factory = try CompoundStatementFactory()
        let inner = CompoundStatementFactory.entry("compound", .array([try factory.appleEntry(), try factory.packedSelfEntry()]))
        expectAttestationFailure("attStmt[2] is itself a compound") {
            _ = try factory.verify([try factory.appleEntry(), try factory.packedSelfEntry(), inner], requirement: requirement)
        }
    }

    @Test("malformed sub-statement entries are rejected under both policies", arguments: [Requirement.all, .any])
    func malformedEntries(_ requirement: Requirement) throws {
        let factory = try CompoundStatementFactory()
        let valid = try factory.appleEntry()
        let cases: [(CBORItem, String)] = [
            (.array([]), "attStmt[1] is not a map"),
            (.map([(.text("attStmt"), .map([]))]), "attStmt[1].fmt is missing"),
            (.map([(.text("fmt"), .int(1)), (.text("attStmt"), .map([]))]), "attStmt[1].fmt is not a text string"),
            (.map([(.text("fmt"), .text("none"))]), "attStmt[1].attStmt is missing"),
            (
                .map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes([1]))]),
                "only fmt and attStmt"
            ),
        ]
        for (entry, fragment) in cases {
            expectAttestationFailure(fragment) { _ = try factory.verify([valid, entry], requirement: requirement) }
        }
    }

    @Test("an unknown sub-format fails that sub-statement: the whole under .all, tolerated under .any")
    func unknownSubFormat() throws {
        let factory = try CompoundStatementFactory()
        let unknown = CompoundStatementFactory.entry("vendor-x", .map([]))
        expectAttestationFailure("attStmt[1] (vendor-x): vendor-x: unsupported attestation format") {
            _ = try factory.verify([try factory.appleEntry(), unknown])
        }
        let outcome = try factory.verify([try factory.appleEntry(), unknown], requirement: .any)
        #expect(outcome.components.map(\.format) == ["apple"])
    }

    @Test("a sub-format the policy does not allow fails that sub-statement")
    func disallowedSubFormat() throws {
        let factory = try CompoundStatementFactory()
        let entries = [try factory.appleEntry(), try factory.packedSelfEntry()]
        expectAttestationFailure("attStmt[1] (packed): packed: format is not allowed by policy") {
            _ = try factory.verify(entries, allowedFormats: ["compound", "apple"])
        }
        let outcome = try factory.verify(entries, requirement: .any, allowedFormats: ["compound", "apple"])
        #expect(outcome.components.map(\.format) == ["apple"])
    }

    @Test("under .all one failing sub-statement fails the whole, naming it")
    func oneFailingUnderAll() throws {
        let factory = try CompoundStatementFactory()
        expectAttestationFailure("1 of 2 did not: attStmt[1] (packed): packed: self attestation signature does not verify") {
            _ = try factory.verify([try factory.appleEntry(), try factory.packedSelfEntry(valid: false)])
        }
    }

    @Test("under .any one failing sub-statement is tolerated and left out of the components")
    func oneFailingUnderAny() throws {
        let factory = try CompoundStatementFactory()
        let outcome = try factory.verify([try factory.packedSelfEntry(valid: false), try factory.appleEntry()], requirement: .any)
        #expect(outcome.components.map(\.format) == ["apple"])
        #expect(outcome.type == .anonCA)
    }

    @Test("under .any every sub-statement failing fails the whole, naming each")
    func allFailingUnderAny() throws {
        let factory = try CompoundStatementFactory()
        let wrongNonce = AppleStatementFactory.nonceExtensionValue([UInt8](repeating: 7, count: 32))
        let badCert = try factory.apple.credCert(nonceExtension: .value(wrongNonce))
        let badApple = CompoundStatementFactory.entry("apple", AppleStatementFactory.statement([badCert]))
        let error = #expect(throws: WebAuthnError.self) {
            _ = try factory.verify([badApple, try factory.packedSelfEntry(valid: false)], requirement: .any)
        }
        #expect(error?.category == .attestation)
        #expect(error?.message.contains("no sub-statement verified") == true)
        #expect(error?.message.contains("attStmt[0] (apple)") == true)
        #expect(error?.message.contains("attStmt[1] (packed)") == true)
    }

    @Test(
        "trust is judged per component: .all needs every chained one trusted, self and none neither block nor count; .any one trusted chain"
    )
    func trustPerComponent() throws {
        let factory = try CompoundStatementFactory()
        let entries = [try factory.appleEntry(), try factory.packedSelfEntry()]
        let anchors = [factory.apple.ca.cert]
        func verdict(_ entries: [CBORItem], _ requirement: Requirement, anchors: [Certificate]) throws -> AttestationTrustEvaluator.Verdict
        {
            let outcome = try CompoundAttestation().verify(try factory.context(entries, requirement: requirement, trustAnchors: anchors))
            return AttestationTrustEvaluator.judge(
                outcome, format: "compound", compoundRequirement: requirement, at: AttestationTestSupport.now
            ) { _, _ in
                AuthenticatorTrust(anchors: anchors)
            }.0
        }
        // The chained component is trusted and the self one claims no chain: trusted, as each alone
        // would be under a policy that accepts self attestation.
        let allVerdict = try verdict(entries, .all, anchors: anchors)
        #expect(allVerdict.trusted)
        #expect(allVerdict.anchor?.derBytes == factory.apple.ca.cert.derBytes)
        #expect(allVerdict.components.map(\.trusted) == [true, false])
        // The chained component's path ends nowhere: untrusted, for the chain's reason.
        let unanchored = try verdict(entries, .all, anchors: [])
        #expect(!unanchored.trusted)
        #expect(unanchored.reason == "the policy has no trust anchors for this authenticator")
        // No component claims a chain: nothing is trusted.
        #expect(try !verdict([CompoundStatementFactory.noneEntry, try factory.packedSelfEntry()], .all, anchors: anchors).trusted)
        let anyOutcome = try CompoundAttestation().verify(try factory.context(entries, requirement: .any, trustAnchors: anchors))
        let anyVerdict = AttestationTrustEvaluator.judge(
            anyOutcome, format: "compound", compoundRequirement: .any, at: AttestationTestSupport.now
        ) { _, _ in
            AuthenticatorTrust(anchors: anchors)
        }.0
        #expect(anyVerdict.trusted)
        #expect(anyVerdict.anchor?.derBytes == factory.apple.ca.cert.derBytes)
        // One verdict per component, so the public result reports each sub-statement's trust.
        let result = AttestationResult(format: "compound", outcome: anyOutcome, verdict: anyVerdict)
        #expect(result.components.map(\.format) == ["apple", "packed"])
        #expect(result.components.map(\.trusted) == [true, false])
    }

    @Test(
        "through §7.1: a trusted chain beside self attestation is trusted; beside a rogue chain it is trust under .all, trusted under .any")
    func ceremonyTrust() throws {
        let ca = try TestAuthenticator.CA.make(seed: "compound trust ca")
        let rogue = try TestAuthenticator.CA.make(seed: "compound rogue ca")
        func register(
            _ components: [TestAuthenticator.Attestation],
            _ requirement: Requirement
        ) throws -> CeremonyOutcome<VerifiedRegistration> {
            let authenticator = try TestAuthenticator(seed: "compound trust credential")
            let issued = CeremonyFixture.registrationChallenge()
            let response = try authenticator.register(
                challenge: issued.challenge,
                TestAuthenticator.RegistrationOptions(attestation: .compound(components)))
            // Trust required; self attestation alone would be accepted (unattested .accepted).
            let policy = VerificationPolicy(
                attestation: AttestationPolicy(
                    source: FixedTrustAnchors([ca.certificate]), chain: .required,
                    formats: AttestationFormatOptions(compoundRequirement: requirement)))
            return CeremonyFixture.register(response, issued: issued, policy: policy)
        }
        for requirement in [Requirement.all, .any] {
            let withSelf = try #require(try register([.packed(ca: ca), .packedSelf], requirement).accepted())
            #expect(withSelf.attestation.trusted && withSelf.attestation.type == .basic)
            #expect(withSelf.attestation.components.map(\.trusted) == [true, false])
            try register([.packed(ca: rogue), .packedSelf], requirement).expectRejected(.trust, step: "§7.1 step 29")
        }
        try register([.packed(ca: ca), .packed(ca: rogue)], .all).expectRejected(.trust, step: "§7.1 step 29")
        #expect(try register([.packed(ca: ca), .packed(ca: rogue)], .any).accepted()?.attestation.trusted == true)
    }
}
