import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

// Every statement here is built by the test: a CA, an AIK certificate it issues (empty subject,
// TPM SAN directoryName, tcg-kp-AIKCertificate EKU, CA=false), a pubArea and certInfo from
// TPMStructureEncoder, and the AIK's signature over certInfo.

/// Keys are generated once per test run; RSA generation is the slow part.
private enum TPMTestKeys {
    static let rsaCredential = Result { try PrivateKey.generate(.rsa(bits: 2048)) }
    static let eccCredential = Result { try PrivateKey.generate(.p256) }
    static let rsaAIK = Result { try PrivateKey.generate(.rsa(bits: 2048)) }
    static let eccAIK = Result { try PrivateKey.generate(.p256) }
    static let ca = Result { try AttestationTestSupport.makeCA(name: "Test TPM Attestation CA") }
}

/// A `tpm` attestation statement with knobs for breaking each requirement.
private struct TPMStatement {
    enum Credential { case rsa, ecc }

    var credential: Credential
    /// The AIK signature algorithm (`alg`).
    var alg: COSEAlgorithm
    var aaguid: [UInt8] = Array(repeating: 0x42, count: 16)

    // attStmt members
    var ver: CBORItem = .text("2.0")
    var omitted: Set<String> = []
    var extraMembers: [(String, CBORItem)] = []

    // pubArea
    var nameAlg: TPMHashAlgorithm = .sha256
    var rsaExponent: UInt32 = 0  // 0 means 65537
    var modulusEdit: ([UInt8]) -> [UInt8] = { $0 }
    var eccCurveID: UInt16 = TPMECCCurve.p256.rawValue
    var xEdit: ([UInt8]) -> [UInt8] = { $0 }
    var yEdit: ([UInt8]) -> [UInt8] = { $0 }
    /// Replaces the pubArea built from the credential key.
    var pubAreaOverride: [UInt8]?

    // certInfo
    var magic = TPMAttest.generatedValue
    var attestType = TPMAttest.attestCertifyType
    /// Replaces extraData (default: the `alg` hash of authenticatorData || clientDataHash).
    var extraDataOverride: [UInt8]?
    /// Replaces the Name (default: nameAlg || nameAlg digest of pubArea).
    var nameOverride: ((_ pubArea: [UInt8]) -> [UInt8])?

    // sig
    var corruptSignature = false

    // aikCert
    var manufacturer: String? = TPMManufacturer.fidoConformanceTestingID
    var model: String? = "WebAuthnRP test TPM"
    var firmwareVersion: String? = "id:13"
    var oneRDNPerAttribute = false
    var editCertificate: (inout CertificateBuilder) throws -> Void = { _ in }

    init(_ credential: Credential, alg: COSEAlgorithm) {
        self.credential = credential
        self.alg = alg
    }

    var credentialKey: PrivateKey {
        get throws { try (credential == .rsa ? TPMTestKeys.rsaCredential : TPMTestKeys.eccCredential).get() }
    }

    var aikKey: PrivateKey {
        get throws {
            switch alg {
            case .es256: return try TPMTestKeys.eccAIK.get()
            default: return try TPMTestKeys.rsaAIK.get()
            }
        }
    }

    func coseKey() throws -> [UInt8] {
        try credentialKey.coseKey(algorithm: credential == .rsa ? .rs256 : .es256)
    }

    func pubArea() throws -> [UInt8] {
        if let pubAreaOverride { return pubAreaOverride }
        let key = try credentialKey.publicKey
        switch credential {
        case .rsa:
            let n = try #require(key.rsaParameters).n
            return TPMStructureEncoder.rsaPublicArea(
                nameAlg: nameAlg.tpmAlgID,
                scheme: TPMScheme(scheme: 0x0014, hashAlgorithm: 0x000B),
                keyBits: 2048, exponent: rsaExponent, modulus: modulusEdit(n))
        case .ecc:
            let point = try #require(key.ecCoordinates)
            return TPMStructureEncoder.eccPublicArea(
                nameAlg: nameAlg.tpmAlgID,
                scheme: TPMScheme(scheme: 0x0018, hashAlgorithm: 0x000B),
                curveID: eccCurveID, x: xEdit(point.x), y: yEdit(point.y))
        }
    }

    func aikCertificate() throws -> (aik: Certificate, ca: Certificate) {
        let ca = try TPMTestKeys.ca.get()
        var attributes: [DistinguishedName.Attribute] = []
        if let manufacturer { attributes.append(.init(DistinguishedName.tpmManufacturerOID, manufacturer)) }
        if let model { attributes.append(.init(DistinguishedName.tpmModelOID, model)) }
        if let firmwareVersion { attributes.append(.init(DistinguishedName.tpmVersionOID, firmwareVersion)) }
        let directory = oneRDNPerAttribute ? try DistinguishedName(attributes) : try DistinguishedName(rdns: [attributes])
        var builder = CertificateBuilder(
            subject: try DistinguishedName([]), publicKey: try aikKey.publicKey,
            notBefore: AttestationTestSupport.now.addingTimeInterval(-86_400),
            notAfter: AttestationTestSupport.now.addingTimeInterval(86_400 * 365))
        builder.serialNumber = [0x0A, 0x1C]
        builder.issued(by: ca.cert)
        builder.basicConstraints = .init(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [TPMAttestation.aikCertificateKeyPurposeOID]
        builder.subjectAlternativeNames = [.directoryName(directory)]
        builder.subjectAlternativeNamesAreCritical = true
        try editCertificate(&builder)
        return (try builder.sign(with: ca.key), ca.cert)
    }

    func authData() throws -> [UInt8] {
        TestAuthData(aaguid: aaguid, credentialKey: try coseKey()).bytes
    }

    func statement() throws -> CBORItem {
        let authData = try authData()
        let pubArea = try pubArea()
        let hash = TPMAttestation.hashAlgorithm(for: alg) ?? .sha256
        let extraData = extraDataOverride ?? hash.hash(authData + AttestationTestSupport.clientDataHash)
        let name =
            nameOverride?(pubArea)
            ?? (TPMWriter.bigEndian(nameAlg.tpmAlgID) + TPMAttestation.digest(for: nameAlg).hash(pubArea))
        let certInfo = TPMStructureEncoder.certifyAttest(
            magic: magic, type: attestType, extraData: extraData,
            clock: 1234, resetCount: 2, restartCount: 3, safe: 1,
            firmwareVersion: 0x0001_0002, name: name)
        var sig = try aikKey.sign(certInfo, algorithm: alg)
        if corruptSignature, let last = sig.indices.last { sig[last] ^= 0x01 }
        let (aik, ca) = try aikCertificate()
        var members: [(String, CBORItem)] = [
            ("ver", ver), ("alg", .int(Int64(alg.rawValue))),
            ("x5c", .array([.bytes(aik.derBytes), .bytes(ca.derBytes)])),
            ("sig", .bytes(sig)), ("certInfo", .bytes(certInfo)), ("pubArea", .bytes(pubArea)),
        ]
        members.removeAll { omitted.contains($0.0) }
        members += extraMembers
        return .map(members.map { (.text($0.0), $0.1) })
    }

    func verify(policy: AttestationPolicy = AttestationPolicy()) throws -> AttestationOutcome {
        let context = try AttestationTestSupport.context(
            format: "tpm",
            statement: try statement(), authData: try authData(),
            policy: policy)
        return try TPMAttestation().verify(context)
    }
}

/// Runs the statement and returns the `WebAuthnError` it threw (nil when it verified or threw another type).
private func rejection(_ statement: TPMStatement, policy: AttestationPolicy = AttestationPolicy()) -> WebAuthnError? {
    do {
        _ = try statement.verify(policy: policy)
        return nil
    } catch let error as WebAuthnError {
        return error
    } catch {
        Issue.record("building the statement failed: \(error)")
        return nil
    }
}

/// Expects an `attestation` rejection whose message starts "tpm: " and contains `fragment`.
private func expectRejection(
    _ statement: TPMStatement, _ fragment: String, policy: AttestationPolicy = AttestationPolicy(),
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = rejection(statement, policy: policy)
    #expect(
        error?.category == .attestation, "expected an attestation error, got \(String(describing: error))",
        sourceLocation: sourceLocation)
    #expect(error?.message.hasPrefix("tpm: ") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(
        error?.message.contains(fragment) == true, "\(String(describing: error)) lacks \"\(fragment)\"",
        sourceLocation: sourceLocation)
}

@Suite("tpm attestation: valid statements")
struct TPMAttestationAcceptTests {
    @Test("the format is registered under \"tpm\"")
    func registered() {
        #expect(AttestationFormatTable.standard.format("tpm") is TPMAttestation)
    }

    @Test("RSA credential, RS256 AIK signature: AttCA with x5c as the trust path")
    func rsaCredentialRS256() throws {
        let statement = TPMStatement(.rsa, alg: .rs256)
        let outcome = try statement.verify()
        #expect(outcome.type == .attCA)
        // The CA signs with ECDSA, so a rebuilt AIK certificate differs: compare keys and the CA.
        #expect(outcome.trustPath.count == 2)
        #expect(outcome.trustPath.first?.publicKey.isEqual(to: try statement.aikKey.publicKey) == true)
        #expect(outcome.trustPath.first?.subject.isEmpty == true)
        #expect(outcome.trustPath.last == (try TPMTestKeys.ca.get().cert))
    }

    @Test("ECC credential, ES256 AIK signature")
    func eccCredentialES256() throws {
        let outcome = try TPMStatement(.ecc, alg: .es256).verify()
        #expect(outcome.type == .attCA)
        #expect(outcome.trustPath.count == 2)
    }

    @Test("RS1 AIK signature with a SHA-1 extraData")
    func rs1() throws {
        #expect(try TPMStatement(.rsa, alg: .rs1).verify().type == .attCA)
        #expect(try TPMStatement(.ecc, alg: .rs1).verify().type == .attCA)
    }

    @Test("RS384, RS512, PS256 AIK signatures hash extraData with their own SHA-2")
    func otherRSAAlgorithms() throws {
        for alg: COSEAlgorithm in [.rs384, .rs512, .ps256] {
            #expect(try TPMStatement(.rsa, alg: alg).verify().type == .attCA, "\(alg)")
        }
    }

    @Test("each Name algorithm computes the Name")
    func nameAlgorithms() throws {
        for algorithm in TPMHashAlgorithm.allCases {
            var statement = TPMStatement(.ecc, alg: .es256)
            statement.nameAlg = algorithm
            #expect(try statement.verify().type == .attCA, "\(algorithm)")
        }
    }

    @Test("an explicit exponent 65537 matches the credential's e like the default 0")
    func explicitExponent() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.rsaExponent = 65537
        #expect(try statement.verify().type == .attCA)
    }

    @Test("the TPM attributes may be one multi-valued RDN or one RDN each")
    func sanLayouts() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.oneRDNPerAttribute = true
        #expect(try statement.verify().type == .attCA)
    }

    @Test("a matching id-fido-gen-ce-aaguid extension is accepted")
    func matchingAAGUIDExtension() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        let aaguid = statement.aaguid
        statement.editCertificate = { builder in
            builder.extraExtensions = [
                CertificateExtension(
                    oid: PackedAttestation.aaguidExtensionOID, isCritical: false,
                    value: [0x04, 0x10] + aaguid)
            ]
        }
        #expect(try statement.verify().type == .attCA)
    }

    @Test("an unregistered TPM manufacturer passes when the policy relaxes the registry check")
    func unknownManufacturerRelaxed() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.manufacturer = "id:12345678"
        #expect(
            try statement.verify(policy: AttestationPolicy(formats: AttestationFormatOptions(requireKnownTPMManufacturer: false))).type
                == .attCA)
    }

    @Test("the W3C L3 test vectors' TPMManufacturer id:00000000 passes by default")
    func webAuthnTestVectorManufacturer() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.manufacturer = "id:00000000"
        #expect(try statement.verify().type == .attCA)
    }

    @Test("requireKnownTPMManufacturer accepts a registered vendor")
    func knownManufacturerWithPolicy() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.manufacturer = "id:494E5443"
        #expect(
            try statement.verify(policy: AttestationPolicy(formats: AttestationFormatOptions(requireKnownTPMManufacturer: true))).type
                == .attCA)
    }

    @Test("the SAN's manufacturer, model and version are reported, with the vendor's name")
    func deviceAttributes() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.manufacturer = "id:494E5443"
        let (aik, _) = try statement.aikCertificate()
        let device = try TPMAttestation.checkCertificateRequirements(aik, format: "tpm")
        #expect(device.manufacturer == "id:494E5443")
        #expect(device.manufacturerName == "Intel")
        #expect(device.model == "WebAuthnRP test TPM")
        #expect(device.version == "id:13")
    }
}

@Suite("tpm attestation: attStmt syntax")
struct TPMAttestationSyntaxTests {
    @Test("ver other than \"2.0\" is refused")
    func wrongVersion() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.ver = .text("1.2")
        expectRejection(statement, "ver is \"1.2\", not \"2.0\"")
        statement.ver = .int(2)
        expectRejection(statement, "ver is not a text string")
    }

    @Test("each required member missing is refused")
    func missingMembers() {
        let expectations = [
            "ver": "ver is missing", "alg": "alg is missing", "sig": "sig is missing",
            "certInfo": "certInfo is missing", "pubArea": "pubArea is missing", "x5c": "x5c is missing",
        ]
        for (member, fragment) in expectations {
            var statement = TPMStatement(.ecc, alg: .es256)
            statement.omitted = [member]
            expectRejection(statement, fragment)
            // Absent, not "absent or of another type": the message says which.
            #expect(rejection(statement)?.message.hasSuffix(fragment) == true, "\(String(describing: rejection(statement)))")
        }
    }

    @Test("members of the wrong CBOR type are refused")
    func wrongTypes() {
        let cases: [(String, CBORItem, String)] = [
            ("alg", .text("RS256"), "alg is not an integer"),
            ("sig", .text("sig"), "sig is not a byte string"),
            ("certInfo", .text("x"), "certInfo is not a byte string"),
            ("pubArea", .int(1), "pubArea is not a byte string"),
            ("x5c", .array([]), "x5c is an empty array"),
            ("x5c", .bytes([0x30]), "x5c is not an array"),
        ]
        for (member, value, fragment) in cases {
            var statement = TPMStatement(.ecc, alg: .es256)
            statement.omitted = [member]
            statement.extraMembers = [(member, value)]
            expectRejection(statement, fragment)
        }
        // An x5c entry that is not a certificate does not parse: malformed, not attestation.
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.omitted = ["x5c"]
        statement.extraMembers = [("x5c", .array([.bytes([0x30, 0x00])]))]
        #expect(rejection(statement)?.category == .malformed)
    }

    @Test("attStmt that is not a map is refused")
    func notAMap() throws {
        let statement = TPMStatement(.ecc, alg: .es256)
        let context = try AttestationTestSupport.context(format: "tpm", statement: .array([]), authData: try statement.authData())
        do {
            _ = try TPMAttestation().verify(context)
            Issue.record("a non-map attStmt verified")
        } catch {
            #expect(error.category == .attestation)
            #expect(error.message == "tpm: attStmt is not a map")
        }
    }

    @Test("ecdaaKeyId present is refused: ECDAA is not supported")
    func ecdaaKeyId() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.extraMembers = [("ecdaaKeyId", .bytes(Array(repeating: 7, count: 32)))]
        expectRejection(statement, "ecdaaKeyId is present")
    }

    @Test("pubArea and certInfo that do not parse are refused")
    func unparsableStructures() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.pubAreaOverride = [0x00, 0x01, 0x00]
        expectRejection(statement, "pubArea")
    }
}

@Suite("tpm attestation: pubArea is the credential key")
struct TPMAttestationPublicKeyTests {
    @Test("a different RSA modulus n is refused")
    func rsaModulus() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.modulusEdit = { n in
            var n = n
            if let last = n.indices.last { n[last] ^= 0x02 }
            return n
        }
        expectRejection(statement, "RSA modulus n differs")
    }

    @Test("a different RSA exponent e is refused")
    func rsaExponent() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.rsaExponent = 3
        expectRejection(statement, "RSA exponent 3 differs")
    }

    @Test("a different ECC curve is refused")
    func eccCurve() {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.eccCurveID = TPMECCCurve.p384.rawValue
        // P-384-sized coordinates, so the pubArea is consistent in itself and names another key.
        statement.xEdit = { Array(repeating: 0, count: 16) + $0 }
        statement.yEdit = { Array(repeating: 0, count: 16) + $0 }
        expectRejection(statement, "curve P-384 differs")
    }

    @Test("a different x or y coordinate is refused")
    func eccCoordinates() {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.xEdit = { x in x.map { $0 ^ 0x10 } }
        expectRejection(statement, "x coordinate differs")
        statement = TPMStatement(.ecc, alg: .es256)
        statement.yEdit = { y in y.map { $0 ^ 0x10 } }
        expectRejection(statement, "y coordinate differs")
    }

    @Test("a pubArea of another key type is refused")
    func keyTypes() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        let point = try #require(try TPMTestKeys.eccCredential.get().publicKey.ecCoordinates)
        statement.pubAreaOverride = TPMStructureEncoder.eccPublicArea(x: point.x, y: point.y)
        expectRejection(statement, "pubArea holds an ECC key but the credential key is not EC2")

        var ecc = TPMStatement(.ecc, alg: .es256)
        let n = try #require(try TPMTestKeys.rsaCredential.get().publicKey.rsaParameters).n
        ecc.pubAreaOverride = TPMStructureEncoder.rsaPublicArea(modulus: n)
        expectRejection(ecc, "pubArea holds an RSA key but the credential key is not RSA")
    }

    @Test("integers compare by value: leading zero bytes do not matter")
    func integerComparison() {
        #expect(TPMAttestation.sameInteger([0x00, 0x01, 0x00, 0x01], [0x01, 0x00, 0x01]))
        #expect(TPMAttestation.sameInteger([] as [UInt8], [0x00]))
        #expect(!TPMAttestation.sameInteger([0x01, 0x00], [0x01]))
        #expect(!TPMAttestation.sameInteger([0x01], [0x02]))
    }
}

@Suite("tpm attestation: certInfo")
struct TPMAttestationCertInfoTests {
    @Test("magic other than TPM_GENERATED_VALUE is refused")
    func magic() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.magic = 0xFF54_4348
        expectRejection(statement, "certInfo.magic is 0xFF544348, not TPM_GENERATED_VALUE")
    }

    @Test("type other than TPM_ST_ATTEST_CERTIFY is refused")
    func type() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.attestType = 0x8018  // TPM_ST_ATTEST_QUOTE
        expectRejection(statement, "certInfo.type is 0x8018, not TPM_ST_ATTEST_CERTIFY")
    }

    @Test("extraData that is not the alg hash of attToBeSigned is refused")
    func extraData() throws {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.extraDataOverride = Digest.sha256.hash([0x01, 0x02])
        expectRejection(statement, "certInfo.extraData is not the")
        // The right data hashed with another algorithm than alg's.
        let authData = try statement.authData()
        statement.extraDataOverride = Digest.sha1.hash(authData + AttestationTestSupport.clientDataHash)
        expectRejection(statement, "certInfo.extraData is not the")
        var rs1 = TPMStatement(.rsa, alg: .rs1)
        rs1.extraDataOverride = Digest.sha256.hash(authData + AttestationTestSupport.clientDataHash)
        expectRejection(rs1, "certInfo.extraData is not the")
    }

    @Test("an alg with no hash TPM attestation can use is refused")
    func algWithoutHash() {
        let statement = TPMStatement(.rsa, alg: .rs256)
        var members = statement
        members.omitted = ["alg"]
        members.extraMembers = [("alg", .int(Int64(COSEAlgorithm.edDSA.rawValue)))]
        expectRejection(members, "has no hash algorithm")
    }

    @Test("a Name whose digest is not of pubArea is refused")
    func wrongName() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.nameOverride = { pubArea in [0x00, 0x0B] + Digest.sha256.hash(pubArea + [0x00]) }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name of pubArea")
    }

    @Test("a Name computed with another algorithm than nameAlg is refused")
    func nameAlgorithmMismatch() {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.nameOverride = { pubArea in [0x00, 0x04] + Digest.sha1.hash(pubArea) }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name")
        // The right digest under the wrong algorithm identifier.
        statement.nameOverride = { pubArea in [0x00, 0x0C] + Digest.sha256.hash(pubArea) }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name")
        // A handle instead of a digest Name.
        statement.nameOverride = { _ in [0x81, 0x00, 0x00, 0x01] }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name")
    }

    @Test("the FIDO conformance profile accepts a Name under its own algorithm; a wrong digest is still refused")
    func nameAlgorithmConformanceProfile() throws {
        let profile = VerificationPolicy.fidoConformance(trust: FixedTrustAnchors([])).attestation
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.nameOverride = { pubArea in [0x00, 0x04] + Digest.sha1.hash(pubArea) }
        #expect(try statement.verify(policy: profile).type == .attCA)
        statement.nameOverride = { pubArea in [0x00, 0x0D] + Digest.sha512.hash(pubArea) }
        #expect(try statement.verify(policy: profile).type == .attCA)
        // The default (L3) still refuses it.
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name")
        // The right digest under the wrong algorithm identifier, a digest of something else, a handle.
        statement.nameOverride = { pubArea in [0x00, 0x0C] + Digest.sha256.hash(pubArea) }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name", policy: profile)
        statement.nameOverride = { pubArea in [0x00, 0x04] + Digest.sha1.hash(pubArea + [0x00]) }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name", policy: profile)
        statement.nameOverride = { _ in [0x81, 0x00, 0x00, 0x01] }
        expectRejection(statement, "certInfo.attested.name is not the SHA-256 Name", policy: profile)
    }
}

@Suite("tpm attestation: signature")
struct TPMAttestationSignatureTests {
    @Test("a signature that does not verify is refused")
    func badSignature() {
        for (credential, alg) in [(TPMStatement.Credential.rsa, COSEAlgorithm.rs256), (.ecc, .es256), (.rsa, .rs1)] {
            var statement = TPMStatement(credential, alg: alg)
            statement.corruptSignature = true
            expectRejection(statement, "aikCert signature")
        }
    }

    @Test("a signature by another key is refused")
    func otherSigner() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        let other = try PrivateKey.generate(.p256)
        statement.editCertificate = { builder in builder.publicKey = other.publicKey }
        expectRejection(statement, "aikCert signature does not verify")
    }

    @Test("alg that does not fit the AIK key is refused")
    func algorithmMismatch() throws {
        var statement = TPMStatement(.ecc, alg: .es256)
        let rsaAIK = try TPMTestKeys.rsaAIK.get()
        statement.editCertificate = { builder in builder.publicKey = rsaAIK.publicKey }
        expectRejection(statement, "aikCert signature could not be checked")
    }
}

@Suite("tpm attestation: aikCert requirements (§8.3.1)")
struct TPMAttestationCertificateTests {
    @Test("version 1 is refused")
    func version1() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.version = 1 }
        expectRejection(statement, "aikCert version is 1, not 3")
    }

    @Test("a non-empty subject is refused")
    func subject() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.subject = try DistinguishedName([.commonName("AIK")]) }
        expectRejection(statement, "aikCert subject is not empty")
    }

    @Test("a missing Subject Alternative Name is refused")
    func missingSAN() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.subjectAlternativeNames = nil }
        expectRejection(statement, "aikCert has no Subject Alternative Name extension")
    }

    @Test("a Subject Alternative Name without a directoryName is refused")
    func sanWithoutDirectoryName() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.subjectAlternativeNames = [.dnsName("tpm.example.org")] }
        expectRejection(statement, "Subject Alternative Name has no directoryName")
    }

    @Test("each missing TPM attribute is refused")
    func missingAttribute() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.manufacturer = nil
        expectRejection(statement, "lacks TPMManufacturer (2.23.133.2.1)")
        statement = TPMStatement(.rsa, alg: .rs256)
        statement.model = nil
        expectRejection(statement, "lacks TPMModel (2.23.133.2.2)")
        statement = TPMStatement(.rsa, alg: .rs256)
        statement.firmwareVersion = nil
        statement.oneRDNPerAttribute = true
        expectRejection(statement, "lacks TPMVersion (2.23.133.2.3)")
    }

    @Test("a missing Extended Key Usage, or one without tcg-kp-AIKCertificate, is refused")
    func extendedKeyUsage() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.extendedKeyUsage = nil }
        expectRejection(statement, "aikCert has no Extended Key Usage extension")
        statement.editCertificate = { builder in builder.extendedKeyUsage = ["1.3.6.1.5.5.7.3.2", "2.23.133.8.1"] }
        expectRejection(statement, "lacks tcg-kp-AIKCertificate (2.23.133.8.3)")
    }

    @Test("CA=true, or no Basic Constraints, is refused")
    func basicConstraints() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.basicConstraints = .init(isCA: true) }
        expectRejection(statement, "aikCert Basic Constraints has CA=true")
        statement.editCertificate = { builder in builder.basicConstraints = nil }
        expectRejection(statement, "aikCert has no Basic Constraints extension")
    }

    @Test("an id-fido-gen-ce-aaguid extension that differs from the AAGUID is refused")
    func aaguidMismatch() {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.editCertificate = { builder in
            builder.extraExtensions = [
                CertificateExtension(
                    oid: PackedAttestation.aaguidExtensionOID, isCritical: false,
                    value: [0x04, 0x10] + Array(repeating: 0x43, count: 16))
            ]
        }
        expectRejection(statement, "the AAGUID extension does not match")
    }

    @Test("an unregistered vendor is refused by default")
    func unknownManufacturerByDefault() {
        var statement = TPMStatement(.ecc, alg: .es256)
        statement.manufacturer = "id:12345678"
        expectRejection(statement, "TPM manufacturer id:12345678, which is not in the TCG TPM vendor registry")
        #expect(AttestationPolicy().formats.requireKnownTPMManufacturer)
    }

    @Test("a TPMManufacturer not in the \"id:\" + eight hex digits form is refused, whatever the policy")
    func malformedManufacturer() {
        for value in ["ID:494E5443", "494E5443", "id:494E544", "id:494E54430", "id:494E544G", "Infineon"] {
            for relaxed in [false, true] {
                var statement = TPMStatement(.ecc, alg: .es256)
                statement.manufacturer = value
                expectRejection(
                    statement, "TPMManufacturer \"\(value)\" is not \"id:\" and eight hex digits",
                    policy: AttestationPolicy(formats: AttestationFormatOptions(requireKnownTPMManufacturer: !relaxed)))
            }
        }
    }

    @Test("an empty subject with a Subject Alternative Name not marked critical is refused")
    func sanNotCritical() {
        var statement = TPMStatement(.rsa, alg: .rs256)
        statement.editCertificate = { builder in builder.subjectAlternativeNamesAreCritical = false }
        expectRejection(statement, "Subject Alternative Name extension is not marked critical")
    }
}
