import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Builds `android-key` statements: a credential key, a certificate for that key issued
/// by a test CA and carrying a key description extension, and the signature.
private struct AndroidKeyFixture {
    // AuthorizationList fields, each EXPLICIT context-tagged.
    static func purpose(_ values: [Int]) -> [UInt8] {
        DEREncoder.explicit(1, DEREncoder.set(values.map { DEREncoder.integer($0) }))
    }
    static func origin(_ value: Int) -> [UInt8] { DEREncoder.explicit(702, DEREncoder.integer(value)) }
    static let allApplications = DEREncoder.explicit(600, DEREncoder.null())
    /// Fields the verifier does not read: algorithm [2], keySize [3], creationDateTime [701],
    /// attestationApplicationId [709].
    static let unreadFields: [[UInt8]] = [
        DEREncoder.explicit(2, DEREncoder.integer(3)),
        DEREncoder.explicit(3, DEREncoder.integer(256)),
        DEREncoder.explicit(701, DEREncoder.integer(1_700_000_000_000)),
        DEREncoder.explicit(709, DEREncoder.octetString([0x30, 0x00])),
    ]

    static func keyDescription(
        challenge: [UInt8], software: [[UInt8]], tee: [[UInt8]],
        version: Int = 3
    ) -> [UInt8] {
        DEREncoder.sequence([
            DEREncoder.integer(version), DEREncoder.enumerated(1),
            DEREncoder.integer(4), DEREncoder.enumerated(1),
            DEREncoder.octetString(challenge), DEREncoder.octetString([]),
            DEREncoder.sequence(software), DEREncoder.sequence(tee),
        ])
    }

    var credential: TestCredential
    /// The key whose public half the certificate names (the credential's unless a test swaps it).
    var certifiedKey: PrivateKey
    var challenge = AttestationTestSupport.clientDataHash
    var software: [[UInt8]] = AndroidKeyFixture.unreadFields
    var tee: [[UInt8]] = [AndroidKeyFixture.purpose([2]), AndroidKeyFixture.origin(0)] + AndroidKeyFixture.unreadFields
    /// Replaces the whole extension value (nil: built from the fields above).
    var extensionValue: [UInt8]?
    var includeExtension = true
    var corruptSignature = false
    var policy = AttestationPolicy()

    init() throws {
        credential = try TestCredential()
        certifiedKey = credential.privateKey
    }

    func context() throws -> AttestationContext {
        let ca = try AttestationTestSupport.makeCA()
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Android Keystore Key")]),
            publicKey: certifiedKey.publicKey,
            notBefore: AttestationTestSupport.now.addingTimeInterval(-3600),
            notAfter: AttestationTestSupport.now.addingTimeInterval(86_400))
        builder.issued(by: ca.cert)
        if includeExtension {
            let value = extensionValue ?? Self.keyDescription(challenge: challenge, software: software, tee: tee)
            builder.extraExtensions = [CertificateExtension(oid: "1.3.6.1.4.1.11129.2.1.17", isCritical: false, value: value)]
        }
        let leaf = try builder.sign(with: ca.key)
        let authData = TestAuthData(credentialKey: credential.coseKey).bytes
        var sig = try certifiedKey.sign(authData + AttestationTestSupport.clientDataHash, algorithm: .es256)
        if corruptSignature, let last = sig.indices.last { sig[last] ^= 0x01 }
        let statement = CBORItem.map([
            (.text("alg"), .int(-7)),
            (.text("sig"), .bytes(sig)),
            (.text("x5c"), .array([.bytes(leaf.derBytes), .bytes(ca.cert.derBytes)])),
        ])
        return try AttestationTestSupport.context(format: "android-key", statement: statement, authData: authData, policy: policy)
    }

    func verify() throws -> AttestationOutcome {
        try AndroidKeyAttestation().verify(try context())
    }
}

@Suite("android-key attestation (§8.4)")
struct AndroidKeyAttestationTests {
    /// Expects an `attestation` rejection whose message mentions `fragment`.
    private func expectRejected(
        _ fixture: AndroidKeyFixture, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let context = try fixture.context()
        guard let error = Self.rejection(context) else {
            Issue.record("accepted; expected a rejection mentioning \"\(fragment)\"", sourceLocation: sourceLocation)
            return
        }
        #expect(error.category == .attestation, sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "message: \(error.message)", sourceLocation: sourceLocation)
    }

    /// The error `verify` throws, or nil when it accepts.
    private static func rejection(_ context: AttestationContext) -> WebAuthnError? {
        do throws(WebAuthnError) {
            _ = try AndroidKeyAttestation().verify(context)
            return nil
        } catch {
            return error
        }
    }

    @Test("a valid statement verifies as basic with the x5c trust path")
    func valid() throws {
        let fixture = try AndroidKeyFixture()
        let context = try fixture.context()
        let outcome = try AndroidKeyAttestation().verify(context)
        #expect(outcome.type == .basic)
        #expect(outcome.trustPath.count == 2)
        #expect(outcome.trustPath.first?.subject.commonName == "Android Keystore Key")
    }

    @Test("the format is registered in the standard table")
    func registered() {
        #expect(AttestationFormatTable.standard.format("android-key") is AndroidKeyAttestation)
    }

    @Test("origin and purpose may come from softwareEnforced under the union policy")
    func softwareListsUnderUnion() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software = [AndroidKeyFixture.purpose([2]), AndroidKeyFixture.origin(0)]
        fixture.tee = []
        #expect(try fixture.verify().type == .basic)
    }

    @Test("TEE-only policy accepts origin and purpose in teeEnforced")
    func teeOnlyAccepts() throws {
        var fixture = try AndroidKeyFixture()
        fixture.policy = AttestationPolicy(formats: AttestationFormatOptions(androidKeyAuthorizations: .teeEnforcedOnly))
        #expect(try fixture.verify().type == .basic)
    }

    @Test("TEE-only policy rejects origin and purpose only in softwareEnforced")
    func teeOnlyRejectsSoftwareFields() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software = [AndroidKeyFixture.purpose([2]), AndroidKeyFixture.origin(0)]
        fixture.tee = AndroidKeyFixture.unreadFields
        fixture.policy = AttestationPolicy(formats: AttestationFormatOptions(androidKeyAuthorizations: .teeEnforcedOnly))
        try expectRejected(fixture, "no origin in teeEnforced")
    }

    @Test("TEE-only policy rejects purpose only in softwareEnforced")
    func teeOnlyRejectsSoftwarePurpose() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software = [AndroidKeyFixture.purpose([2])]
        fixture.tee = [AndroidKeyFixture.origin(0)]
        fixture.policy = AttestationPolicy(formats: AttestationFormatOptions(androidKeyAuthorizations: .teeEnforcedOnly))
        try expectRejected(fixture, "no purpose in teeEnforced")
    }

    @Test("attestationChallenge differing from clientDataHash is rejected")
    func wrongChallenge() throws {
        var fixture = try AndroidKeyFixture()
        fixture.challenge = Digest.sha256.hash(Array("another challenge".utf8))
        try expectRejected(fixture, "attestationChallenge")
    }

    @Test("allApplications in softwareEnforced is rejected")
    func allApplicationsSoftware() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software += [AndroidKeyFixture.allApplications]
        try expectRejected(fixture, "softwareEnforced has allApplications")
    }

    @Test("allApplications in teeEnforced is rejected")
    func allApplicationsTee() throws {
        var fixture = try AndroidKeyFixture()
        fixture.tee += [AndroidKeyFixture.allApplications]
        try expectRejected(fixture, "teeEnforced has allApplications")
    }

    @Test("an origin other than KM_ORIGIN_GENERATED is rejected", arguments: [2, 3, 4])
    func importedOrigin(origin: Int) throws {
        var fixture = try AndroidKeyFixture()
        fixture.tee = [AndroidKeyFixture.purpose([2]), AndroidKeyFixture.origin(origin)]
        try expectRejected(fixture, "origin is \(origin)")
    }

    @Test("softwareEnforced contradicting a generated origin is rejected under the union policy")
    func contradictoryOrigin() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software = [AndroidKeyFixture.origin(2)]
        try expectRejected(fixture, "softwareEnforced origin is 2")
    }

    @Test("a purpose set without KM_PURPOSE_SIGN is rejected")
    func purposeLacksSign() throws {
        var fixture = try AndroidKeyFixture()
        fixture.tee = [AndroidKeyFixture.purpose([0, 1, 3]), AndroidKeyFixture.origin(0)]
        try expectRejected(fixture, "KM_PURPOSE_SIGN")
    }

    @Test("empty authorization lists lack origin and purpose and are rejected")
    func emptyLists() throws {
        var fixture = try AndroidKeyFixture()
        fixture.software = []
        fixture.tee = []
        try expectRejected(fixture, "no origin")
    }

    @Test("a certificate key other than the credential key is rejected")
    func keyMismatch() throws {
        var fixture = try AndroidKeyFixture()
        fixture.certifiedKey = try PrivateKey.generate(.p256)
        try expectRejected(fixture, "not the credential public key")
    }

    @Test("a signature that does not verify is rejected")
    func badSignature() throws {
        var fixture = try AndroidKeyFixture()
        fixture.corruptSignature = true
        try expectRejected(fixture, "signature")
    }

    @Test("a certificate without the key description extension is rejected")
    func missingExtension() throws {
        var fixture = try AndroidKeyFixture()
        fixture.includeExtension = false
        try expectRejected(fixture, "lacks the key description extension")
    }

    @Test(
        "a garbled key description extension is rejected",
        arguments: [
            [0x04, 0x00],  // not a SEQUENCE
            DEREncoder.sequence([DEREncoder.integer(3), DEREncoder.enumerated(1)]),  // too few fields
            DEREncoder.sequence([
                DEREncoder.integer(3), DEREncoder.integer(1), DEREncoder.integer(4),  // INTEGER for ENUMERATED
                DEREncoder.enumerated(1), DEREncoder.octetString([]), DEREncoder.octetString([]),
                DEREncoder.sequence([]), DEREncoder.sequence([]),
            ]),
            AndroidKeyFixture.keyDescription(
                challenge: AttestationTestSupport.clientDataHash, software: [],
                tee: [DEREncoder.integer(2)]),  // untagged field
            AndroidKeyFixture.keyDescription(
                challenge: AttestationTestSupport.clientDataHash, software: [],
                tee: [AndroidKeyFixture.origin(0), AndroidKeyFixture.origin(0)]),  // twice
            AndroidKeyFixture.keyDescription(
                challenge: AttestationTestSupport.clientDataHash, software: [],
                tee: [DEREncoder.explicit(702, DEREncoder.octetString([0]))]),  // origin not INTEGER
        ] as [[UInt8]])
    func garbledExtension(value: [UInt8]) throws {
        var fixture = try AndroidKeyFixture()
        fixture.extensionValue = value
        try expectRejected(fixture, "does not parse")
    }

    @Test("a key description with fields after the eighth still parses")
    func trailingFieldsIgnored() throws {
        var fixture = try AndroidKeyFixture()
        var fields = try DER.parseSequence(
            AndroidKeyFixture.keyDescription(
                challenge: AttestationTestSupport.clientDataHash, software: [],
                tee: [AndroidKeyFixture.purpose([2]), AndroidKeyFixture.origin(0)])
        ).map { Array($0.encodedBytes) }
        fields.append(DEREncoder.integer(7))
        fixture.extensionValue = DEREncoder.sequence(fields)
        #expect(try fixture.verify().type == .basic)
    }

    @Test("a missing x5c, sig or alg is rejected", arguments: ["x5c", "sig", "alg"])
    func missingMember(member: String) throws {
        let fixture = try AndroidKeyFixture()
        let context = try fixture.context()
        let entries = (context.statement.mapEntries ?? []).filter { $0.key.text != member }
        var trimmed = context
        trimmed.statement = .map(entries.map { ($0.key, $0.value) })
        #expect(throws: WebAuthnError(.attestation, "")) { try AndroidKeyAttestation().verify(trimmed) }
    }

    @Test("the key description parser reads every AuthorizationList field it needs")
    func parserReadsFields() throws {
        let value = AndroidKeyFixture.keyDescription(
            challenge: [1, 2, 3],
            software: [AndroidKeyFixture.allApplications] + AndroidKeyFixture.unreadFields,
            tee: [AndroidKeyFixture.purpose([3, 2]), AndroidKeyFixture.origin(0)], version: 300)
        let description = try AndroidKeyDescription(derEncoded: value)
        #expect(description.attestationVersion == 300)
        #expect(description.attestationChallenge == [1, 2, 3])
        // The fields android-key reads; algorithm [2] and attestationApplicationId [709] are the app-key checks'.
        let software = description.softwareEnforced
        #expect(software.allApplications && software.purposes == nil && software.origin == nil)
        #expect(software.algorithm == 3 && software.attestationApplicationIdDER == [0x30, 0x00])
        #expect(description.teeEnforced == AndroidAuthorizationList(purposes: [2, 3], origin: 0))
    }
}
