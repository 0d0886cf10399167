import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Unsigned metadata statements (`MetadataTrust(statements:)`) feed the same trust decision as a
/// BLOB's entries: roots, declared attestation types, statuses; strict on trust fields.
@Suite("Metadata statements as a trust source")
struct MetadataStatementTrustTests {
    typealias F = CeremonyFixture
    static let aaguid = "01020304-0506-0708-090a-0b0c0d0e0f10"

    static func statement(
        roots: [Certificate], types: [String] = ["basic_full", "basic_surrogate"],
        statuses: [String]? = nil, edit: (inout [String: Any]) -> Void = { _ in }
    ) throws -> Data {
        var entry = TestMetadataService.Entry(aaguid: aaguid, description: "Vendor Key")
        entry.roots = roots
        entry.attestationTypes = types
        var statement = try #require(entry.json["metadataStatement"] as? [String: Any])
        if let statuses { statement["statusReports"] = statuses.map { ["status": $0, "effectiveDate": "2024-01-01"] } }
        edit(&statement)
        return try JSONSerialization.data(withJSONObject: statement, options: [.sortedKeys])
    }

    func register(_ attestation: TestAuthenticator.Attestation, policy: VerificationPolicy) throws -> CeremonyOutcome<VerifiedRegistration>
    {
        let authenticator = try TestAuthenticator(seed: "metadata statement credential")
        let issued = F.registrationChallenge()
        return F.register(
            try authenticator.register(challenge: issued.challenge, .init(attestation: attestation)), issued: issued, policy: policy)
    }

    static func category(_ outcome: CeremonyOutcome<VerifiedRegistration>) -> WebAuthnError.Category? {
        if case .failure(let error) = outcome.result { return error.category }
        return nil
    }

    @Test("a statement's roots anchor its authenticator, under the conformance profile and a required chain alike")
    func rootsAnchor() throws {
        let ca = try TestAuthenticator.CA.make(name: "Vendor Attestation Root", seed: "statement vendor")
        let other = try TestAuthenticator.CA.make(name: "Other Root", seed: "statement other")
        let trust = try MetadataTrust(statements: [try Self.statement(roots: [ca.certificate])])
        for policy in [
            VerificationPolicy.fidoConformance(trust: trust),
            VerificationPolicy(attestation: AttestationPolicy(source: trust, chain: .required)),
        ] {
            let verified = try #require(try register(.packed(ca: ca), policy: policy).accepted())
            #expect(verified.attestation.trusted && verified.attestation.trustAnchor == ca.certificate)
            #expect(verified.attestation.metadataName == "Vendor Key")
            #expect(Self.category(try register(.packed(ca: other), policy: policy)) == .trust)
        }
        // The profile accepts none whatever the statements say.
        _ = try register(.none, policy: .fidoConformance(trust: trust)).accepted()
    }

    @Test("declared attestation types and status reports are judged as a BLOB entry's")
    func typesAndStatuses() throws {
        let ca = try TestAuthenticator.CA.make(name: "Vendor Attestation Root", seed: "statement vendor")
        let basicOnly = try MetadataTrust(statements: [try Self.statement(roots: [ca.certificate], types: ["basic_full"])])
        #expect(Self.category(try register(.packedSelf, policy: .fidoConformance(trust: basicOnly))) == .metadata)
        let revoked = try MetadataTrust(statements: [try Self.statement(roots: [ca.certificate], statuses: ["REVOKED"])])
        #expect(Self.category(try register(.packed(ca: ca), policy: .fidoConformance(trust: revoked))) == .metadata)
        let certified = try MetadataTrust(statements: [try Self.statement(roots: [ca.certificate], statuses: ["FIDO_CERTIFIED_L2"])])
        let verified = try #require(try register(.packed(ca: ca), policy: .fidoConformance(trust: certified)).accepted())
        #expect(verified.attestation.metadata?.status == .fidoCertifiedL2)
    }

    @Test("strict on trust fields, lenient on descriptive ones")
    func strictness() throws {
        let ca = try TestAuthenticator.CA.make(name: "Vendor Attestation Root", seed: "statement vendor")
        let refused: [(String, (inout [String: Any]) -> Void)] = [
            ("attestationRootCertificates is missing", { $0["attestationRootCertificates"] = nil }),
            ("is not base64 DER", { $0["attestationRootCertificates"] = ["***"] }),
            ("attestationTypes is missing", { $0["attestationTypes"] = nil }),
            ("is not an AAGUID", { $0["aaguid"] = "not-an-aaguid" }),
            ("has neither aaguid nor attestationCertificateKeyIdentifiers", { $0["aaguid"] = nil }),
            ("status is missing", { $0["statusReports"] = [["effectiveDate": "2024-01-01"]] }),
        ]
        for (mention, edit) in refused {
            let data = try Self.statement(roots: [ca.certificate], edit: edit)
            let error = #expect(throws: WebAuthnError.self) { try MetadataTrust(statements: [data]) }
            #expect(error?.category == .metadata && error?.message.contains(mention) == true, "\(String(describing: error))")
        }
        let notJSON = #expect(throws: WebAuthnError.self) { try MetadataTrust(statements: [Data("{".utf8)]) }
        #expect(notJSON?.category == .metadata)
        // A description that is not text is shown as no name; the statement still anchors.
        let lenient = try MetadataTrust(statements: [try Self.statement(roots: [ca.certificate]) { $0["description"] = 5 }])
        let verified = try #require(try register(.packed(ca: ca), policy: .fidoConformance(trust: lenient)).accepted())
        #expect(verified.attestation.trusted && verified.attestation.metadataName == nil)
    }
}
