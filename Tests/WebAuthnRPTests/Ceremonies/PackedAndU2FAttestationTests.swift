import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The packed (§8.2), fido-u2f (§8.6) and none (§8.7) formats, run through §7.1.
@Suite("Packed, fido-u2f and none attestation through §7.1")
struct PackedAndU2FAttestationTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.RegistrationOptions
    static let challenge = Array(repeating: UInt8(0xA1), count: 32)

    func register(
        _ authenticator: TestAuthenticator, _ attestation: TestAuthenticator.Attestation,
        policy: VerificationPolicy = VerificationPolicy(),
        edit: (inout Options) -> Void = { _ in }
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        var options = Options(attestation: attestation)
        edit(&options)
        return F.register(try authenticator.register(challenge: Self.challenge, options), policy: policy)
    }

    static func trusting(_ ca: TestAuthenticator.CA) -> VerificationPolicy {
        VerificationPolicy(attestation: AttestationPolicy.trusted(by: [ca.certificate]))
    }

    /// Replaces attStmt member `key` with `value` (or removes it when nil).
    static func setMember(_ key: String, _ value: CBORItem?) -> (inout [(CBORItem, CBORItem)]) -> Void {
        { entries in
            entries.removeAll { $0.0.text == key }
            if let value { entries.append((.text(key), value)) }
        }
    }

    @Test("every attestation kind the test authenticator makes verifies, with JSON round trip")
    func smoke() throws {
        let ca = try TestAuthenticator.CA.make()
        var cases: [(TestAuthenticator.Attestation, String, AttestationType)] = [(.packedSelf, "packed", .self)]
        let types: [String: AttestationType] = [
            "none": .none, "packed": .basic, "fido-u2f": .basic, "tpm": .attCA,
            "android-key": .basic, "apple": .anonCA, "compound": .basic,
        ]
        // Every format of the library's one list, as the test authenticator makes it.
        for fmt in AttestationFormatList.identifiers {
            guard let attestation = TestAuthenticator.attestation(format: fmt, ca: ca) else {
                #expect(fmt == "android-safetynet", "the test authenticator cannot make \(fmt)")
                continue
            }
            cases.append((attestation, fmt, try #require(types[fmt], "no expected type for \(fmt)")))
        }
        #expect(cases.count == AttestationFormatList.identifiers.count)
        for (attestation, fmt, type) in cases {
            let authenticator = try TestAuthenticator()
            let json = try authenticator.registerJSON(challenge: Self.challenge, .init(attestation: attestation))
            let decoded = try RegistrationResponseJSON(jsonData: try json.jsonData())
            let outcome = F.register(RegistrationResponse(json: decoded))
            let verified = try #require(outcome.accepted())
            #expect(verified.attestation.format == fmt)
            #expect(verified.attestation.type == type)
        }
    }

    // MARK: packed, x5c

    @Test("packed x5c chaining to the anchor is trusted basic attestation with its trust path")
    func packedTrusted() throws {
        let ca = try TestAuthenticator.CA.make()
        let verified = try #require(try register(try TestAuthenticator(), .packed(ca: ca), policy: Self.trusting(ca)).accepted())
        #expect(verified.attestation.type == .basic)
        #expect(verified.attestation.trusted)
        #expect(verified.attestation.trustAnchor == ca.certificate)
        #expect(verified.attestation.trustPath.count == 1)
        #expect(verified.attestation.trustPath.first?.subject.organizationalUnit == "Authenticator Attestation")
        #expect(verified.record.attestationType == .basic && verified.record.attestationTrusted)
    }

    @Test("packed x5c: a signature that does not verify is rejected (attestation, step 23)")
    func packedBadSignature() throws {
        let ca = try TestAuthenticator.CA.make()
        try register(try TestAuthenticator(), .packed(ca: ca)) { options in
            options.clientDataBytes = { _ in }
            options.statement = { entries in
                entries = entries.map { entry in
                    guard entry.0.text == "sig", var sig = entry.1.bytes.map(Array.init) else { return entry }
                    sig[sig.count - 1] ^= 1
                    return (entry.0, .bytes(sig))
                }
            }
        }.expectRejected(.attestation, step: "§7.1 step 23")
        // Signed correctly, then authData changed: the statement no longer covers it.
        var options = Options(attestation: .packed(ca: ca))
        options.response = { _ in }
        let authenticator = try TestAuthenticator()
        var response = try authenticator.register(challenge: Self.challenge, options)
        response.clientDataJSON += Array(" ".utf8)  // hash changes, JSON still parses
        F.register(response).expectRejected(.attestation, step: "§7.1 step 23")
    }

    @Test("packed x5c: alg that does not fit the certificate key is rejected")
    func packedAlgMismatch() throws {
        let ca = try TestAuthenticator.CA.make()
        try register(try TestAuthenticator(), .packed(ca: ca)) {
            $0.statement = Self.setMember("alg", .int(Int64(COSEAlgorithm.rs256.rawValue)))
        }.expectRejected(.attestation, step: "§7.1 step 23")
    }

    @Test("packed: a missing or mistyped alg or sig is rejected", arguments: ["alg", "sig"])
    func packedMissingMembers(_ member: String) throws {
        let ca = try TestAuthenticator.CA.make()
        try register(try TestAuthenticator(), .packed(ca: ca)) { $0.statement = Self.setMember(member, nil) }
            .expectRejected(.attestation, step: "§7.1 step 23")
        try register(try TestAuthenticator(), .packedSelf) { $0.statement = Self.setMember(member, .text("x")) }
            .expectRejected(.attestation, step: "§7.1 step 23")
    }

    @Test("packed: an x5c that is empty, not an array, or holds a non-certificate is rejected")
    func packedBadX5C() throws {
        let ca = try TestAuthenticator.CA.make()
        for bad: CBORItem in [.array([]), .bytes([1, 2]), .array([.int(1)])] {
            try register(try TestAuthenticator(), .packed(ca: ca)) { $0.statement = Self.setMember("x5c", bad) }
                .expectRejected(.attestation, step: "§7.1 step 23")
        }
        // A certificate that does not parse is a structure that does not parse (fixture spec: malformed).
        try register(try TestAuthenticator(), .packed(ca: ca)) {
            $0.statement = Self.setMember("x5c", .array([.bytes([0x30, 0x00])]))
        }.expectRejected(.malformed, step: "§7.1 step 23")
    }

    @Test("packed: x5c may hold at most 16 certificates (a bound of this library, not the spec's)")
    func packedLongX5C() throws {
        let ca = try TestAuthenticator.CA.make()
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try TestAuthenticator.packedLeaf(key: leafKey, ca: ca, aaguid: TestAuthenticator.defaultAAGUID) { _ in }
        // Repeating the anchor after the leaf leaves the chain valid, so only the count decides.
        let sixteen = [leaf] + Array(repeating: ca.certificate, count: 15)
        let accepted = try #require(
            try register(
                try TestAuthenticator(), .packedChain(leafKey: leafKey, chain: sixteen, alg: .es256),
                policy: Self.trusting(ca)
            ).accepted())
        #expect(accepted.attestation.trusted)
        try register(
            try TestAuthenticator(), .packedChain(leafKey: leafKey, chain: sixteen + [ca.certificate], alg: .es256),
            policy: Self.trusting(ca)
        )
        .expectRejected(.attestation, step: "§7.1 step 23")
    }

    /// A packed registration whose leaf was built with `edit`.
    func packedLeaf(
        aaguid: [UInt8]? = TestAuthenticator.defaultAAGUID, ca: TestAuthenticator.CA,
        edit: (inout CertificateBuilder) -> Void
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try TestAuthenticator.packedLeaf(key: leafKey, ca: ca, aaguid: aaguid, edit: edit)
        return try register(
            try TestAuthenticator(), .packedChain(leafKey: leafKey, chain: [leaf], alg: .es256),
            policy: Self.trusting(ca))
    }

    @Test("§8.2.1: the leaf must be v3 with C, O, OU \"Authenticator Attestation\", CN and CA=false")
    func packedCertificateRequirements() throws {
        let ca = try TestAuthenticator.CA.make()
        _ = try packedLeaf(ca: ca) { _ in }.accepted()
        _ = try packedLeaf(aaguid: nil, ca: ca) { _ in }.accepted()  // the AAGUID extension is optional
        let subjects: [[DistinguishedName.Attribute]] = [
            [.organization("V"), .organizationalUnit("Authenticator Attestation"), .commonName("A")],  // no C
            [.country("AAA"), .organization("V"), .organizationalUnit("Authenticator Attestation"), .commonName("A")],
            [.country("AA"), .organizationalUnit("Authenticator Attestation"), .commonName("A")],  // no O
            [.country("AA"), .organization("V"), .organizationalUnit("Authenticator attestation"), .commonName("A")],
            [.country("AA"), .organization("V"), .commonName("A")],  // no OU
            [.country("AA"), .organization("V"), .organizationalUnit("Authenticator Attestation")],  // no CN
        ]
        for subject in subjects {
            let name = try DistinguishedName(subject)
            try packedLeaf(ca: ca) { $0.subject = name }
                .expectRejected(.attestation, step: "§7.1 step 23")
        }
        try packedLeaf(ca: ca) { $0.basicConstraints = .init(isCA: true) }.expectRejected(.attestation, step: "§7.1 step 23")
        try packedLeaf(ca: ca) { $0.basicConstraints = nil }.expectRejected(.attestation, step: "§7.1 step 23")
        try packedLeaf(aaguid: nil, ca: ca) {
            $0.version = 1; $0.basicConstraints = nil
        }
        .expectRejected(.attestation, step: "§7.1 step 23")
        // The version alone: a v1 or v2 leaf that is right in every other field (its extensions
        // included, which RFC 5280 keeps to v3) is refused for its version, as `attestation`.
        for version in [1, 2] {
            let outcome = try packedLeaf(ca: ca) { $0.version = version }
            outcome.expectRejected(.attestation, step: "§7.1 step 23")
            outcome.expectMessage(containing: "version is \(version), not 3")
        }
    }

    @Test("§8.2: the AAGUID extension must match authData, be an OCTET STRING and not be critical")
    func packedAAGUIDExtension() throws {
        let ca = try TestAuthenticator.CA.make()
        let aaguidOID = PackedAttestation.aaguidExtensionOID
        try packedLeaf(aaguid: Array(repeating: 0x77, count: 16), ca: ca) { _ in }
            .expectRejected(.attestation, step: "§7.1 step 23")
        let aaguid = TestAuthenticator.defaultAAGUID
        try packedLeaf(aaguid: nil, ca: ca) {
            $0.extraExtensions = [CertificateExtension(oid: aaguidOID, isCritical: true, value: [0x04, 0x10] + aaguid)]
        }.expectRejected(.attestation, step: "§7.1 step 23")
        try packedLeaf(aaguid: nil, ca: ca) {
            $0.extraExtensions = [CertificateExtension(oid: aaguidOID, isCritical: false, value: [0x03, 0x11, 0x00] + aaguid)]
        }.expectRejected(.attestation, step: "§7.1 step 23")
        // The right 16 bytes behind another tag, or behind a length that is not 16, are not an OCTET STRING of 16.
        for header: [UInt8] in [[0x05, 0x10], [0x0C, 0x10], [0x04, 0x0F], [0x04, 0x11]] {
            try packedLeaf(aaguid: nil, ca: ca) {
                $0.extraExtensions = [CertificateExtension(oid: aaguidOID, isCritical: false, value: header + aaguid)]
            }.expectRejected(.attestation, step: "§7.1 step 23")
        }
    }

    @Test("packed x5c: an expired leaf verifies but is not trusted")
    func packedExpiredLeaf() throws {
        let ca = try TestAuthenticator.CA.make()
        try packedLeaf(ca: ca) { $0.notAfter = F.now.addingTimeInterval(-1) }.expectRejected(.trust, step: "§7.1 step 29")
    }

    @Test("packed x5c: a leaf the anchor did not sign is not trusted, even if x5c carries the anchor")
    func packedForeignLeaf() throws {
        let ca = try TestAuthenticator.CA.make()
        let impostor = try TestAuthenticator.CA.make(name: "Test Attestation Root")  // same name, other key
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try TestAuthenticator.packedLeaf(key: leafKey, ca: impostor, aaguid: nil)
        try register(
            try TestAuthenticator(), .packedChain(leafKey: leafKey, chain: [leaf, ca.certificate], alg: .es256),
            policy: Self.trusting(ca)
        ).expectRejected(.trust, step: "§7.1 step 29")
        // A self-signed certificate in x5c is never an anchor by itself.
        try register(
            try TestAuthenticator(), .packedChain(leafKey: leafKey, chain: [leaf, impostor.certificate], alg: .es256),
            policy: Self.trusting(ca)
        ).expectRejected(.trust, step: "§7.1 step 29")
    }

    // MARK: packed, self

    @Test("packed self: alg must be the credential key's; signature must verify")
    func packedSelf() throws {
        try register(try TestAuthenticator(), .packedSelf) {
            $0.statement = Self.setMember("alg", .int(Int64(COSEAlgorithm.es384.rawValue)))
        }.expectRejected(.attestation, step: "§7.1 step 23")
        var options = Options(attestation: .packedSelf)
        options.response = { _ in }
        var response = try TestAuthenticator().register(challenge: Self.challenge, options)
        response.clientDataJSON += Array(" ".utf8)
        F.register(response).expectRejected(.attestation, step: "§7.1 step 23")
        // Signed by another key of the same type.
        let other = try TestAuthenticator()
        let authenticator = try TestAuthenticator()
        try register(authenticator, .packedSelf) { opts in
            opts.statement = { entries in
                let sig = (try? other.privateKey.sign([0], algorithm: .es256)) ?? []
                entries = entries.map { $0.0.text == "sig" ? ($0.0, .bytes(sig)) : $0 }
            }
        }.expectRejected(.attestation, step: "§7.1 step 23")
    }

    @Test("packed self with Ed25519 and RS256 credentials", arguments: [TestAuthenticator.KeySpec.edDSA, .rs256, .es512])
    func packedSelfAlgorithms(_ key: TestAuthenticator.KeySpec) throws {
        let verified = try #require(try register(try TestAuthenticator(key: key), .packedSelf).accepted())
        #expect(verified.attestation.type == .self && verified.attestation.trustPath.isEmpty)
    }

    // MARK: fido-u2f

    @Test("fido-u2f chaining to the anchor is trusted basic attestation")
    func u2fTrusted() throws {
        let ca = try TestAuthenticator.CA.make()
        let verified = try #require(try register(try TestAuthenticator(), .fidoU2F(ca: ca), policy: Self.trusting(ca)).accepted())
        #expect(verified.attestation.format == "fido-u2f" && verified.attestation.type == .basic)
        #expect(verified.attestation.trusted)
    }

    @Test("fido-u2f: x5c must hold exactly one certificate")
    func u2fChainLength() throws {
        let ca = try TestAuthenticator.CA.make()
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try TestAuthenticator.u2fLeaf(key: leafKey, ca: ca)
        try register(try TestAuthenticator(), .fidoU2FChain(leafKey: leafKey, chain: [leaf, ca.certificate]))
            .expectRejected(.attestation, step: "§7.1 step 23")
        _ = try register(try TestAuthenticator(), .fidoU2FChain(leafKey: leafKey, chain: [leaf])).accepted()
    }

    @Test("fido-u2f: an attestation key that is not P-256 is rejected")
    func u2fCertificateCurve() throws {
        let ca = try TestAuthenticator.CA.make()
        let leafKey = try PrivateKey.generate(.p384)
        let leaf = try TestAuthenticator.u2fLeaf(key: leafKey, ca: ca)
        // ES256 cannot be computed with a P-384 key, so the signature here is a placeholder;
        // the curve check refuses the certificate before the signature is looked at.
        var options = Options(
            attestation: .custom(
                fmt: "fido-u2f",
                statement: .map([
                    (.text("sig"), .bytes([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01])),
                    (.text("x5c"), .array([.bytes(leaf.derBytes)])),
                ])))
        options.response = { _ in }
        let outcome = F.register(try TestAuthenticator().register(challenge: Self.challenge, options))
        outcome.expectRejected(.attestation, step: "§7.1 step 23")
        outcome.expectMessage(containing: "not EC P-256")
        // secp256k1 coordinates have P-256's length: only the curve itself tells them apart.
        let k1Key = try PrivateKey.generate(.secp256k1)
        let k1Leaf = try TestAuthenticator.u2fLeaf(key: k1Key, ca: ca)
        options.attestation = .custom(
            fmt: "fido-u2f",
            statement: .map([
                (.text("sig"), .bytes(try k1Key.sign([1], algorithm: .es256k))),
                (.text("x5c"), .array([.bytes(k1Leaf.derBytes)])),
            ]))
        let k1 = F.register(try TestAuthenticator().register(challenge: Self.challenge, options))
        k1.expectRejected(.attestation, step: "§7.1 step 23")
        k1.expectMessage(containing: "not EC P-256")
    }

    @Test("fido-u2f: a credential key that is not ES256/P-256 is rejected")
    func u2fCredentialKey() throws {
        let ca = try TestAuthenticator.CA.make()
        try register(try TestAuthenticator(key: .es384), .fidoU2F(ca: ca)).expectRejected(.attestation, step: "§7.1 step 23")
        // An ES256K (secp256k1) credential key has P-256's coordinate length: only its curve tells it apart.
        let k1 = try TestAuthenticator(key: .es256k)
        let acceptsK1 = VerificationPolicy(acceptedAlgorithms: [.es256, .es256k])
        let response = try k1.register(challenge: Self.challenge, Options(attestation: .fidoU2F(ca: ca)))
        let outcome = F.register(response, issued: F.registrationChallenge(offered: [.es256k]), policy: acceptsK1)
        outcome.expectRejected(.attestation, step: "§7.1 step 23")
        outcome.expectMessage(containing: "not an EC2 P-256 key")
        // The same key with fmt none registers under that policy: the refusal is fido-u2f's.
        _ = F.register(
            try k1.register(challenge: Self.challenge), issued: F.registrationChallenge(offered: [.es256k]),
            policy: acceptsK1
        ).accepted()
    }

    @Test("fido-u2f: a signature that does not cover this registration is rejected")
    func u2fSignature() throws {
        let ca = try TestAuthenticator.CA.make()
        var options = Options(attestation: .fidoU2F(ca: ca))
        options.response = { _ in }
        var response = try TestAuthenticator().register(challenge: Self.challenge, options)
        response.clientDataJSON += Array(" ".utf8)
        F.register(response).expectRejected(.attestation, step: "§7.1 step 23")
        try register(try TestAuthenticator(), .fidoU2F(ca: ca)) { $0.statement = Self.setMember("sig", nil) }
            .expectRejected(.attestation, step: "§7.1 step 23")
        try register(try TestAuthenticator(), .fidoU2F(ca: ca)) { $0.statement = Self.setMember("x5c", nil) }
            .expectRejected(.attestation, step: "§7.1 step 23")
    }

    // MARK: none

    @Test("none: attStmt must be empty")
    func noneStatement() throws {
        try register(try TestAuthenticator(), .custom(fmt: "none", statement: .map([(.text("alg"), .int(-7))])))
            .expectRejected(.attestation, step: "§7.1 step 23")
        let verified = try #require(try register(try TestAuthenticator(), .none).accepted())
        #expect(verified.attestation.type == .none && !verified.attestation.trusted)
        #expect(verified.attestation.trustPath.isEmpty)
    }
}
