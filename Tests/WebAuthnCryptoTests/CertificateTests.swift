import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// Small helpers that build the certificates the X.509 tests use.
enum TestPKI {
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour)
        return calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
    }

    static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName([.init("C", "US"), .init("O", "Example Test PKI"), .init("CN", commonName)])
    }

    /// A certificate valid 2020-2040 for `key`, with the given name and CA flag.
    static func builder(_ commonName: String, key: PrivateKey, isCA: Bool?) throws -> CertificateBuilder {
        var builder = CertificateBuilder(
            subject: try name(commonName), publicKey: key.publicKey,
            notBefore: date(2020, 1, 1), notAfter: date(2040, 1, 1))
        if let isCA {
            builder.basicConstraints = .init(isCA: isCA)
            builder.keyUsage = isCA ? [.keyCertSign, .cRLSign] : [.digitalSignature]
        }
        return builder
    }

    static func selfSignedCA(_ commonName: String, key: PrivateKey) throws -> Certificate {
        try builder(commonName, key: key, isCA: true).sign(with: key)
    }

    static func issue(
        _ commonName: String, key: PrivateKey, isCA: Bool?, by issuer: Certificate, issuerKey: PrivateKey,
        adjust: (inout CertificateBuilder) -> Void = { _ in }
    ) throws -> Certificate {
        var builder = try builder(commonName, key: key, isCA: isCA)
        builder.issued(by: issuer)
        builder.serialNumber = [UInt8.random(in: 1...0x7F), UInt8.random(in: 0...0xFF)]
        adjust(&builder)
        return try builder.sign(with: issuerKey)
    }

    /// The CryptoError code `body` throws, or nil.
    static func code(_ body: () throws -> Void) -> CryptoError.Code? {
        do {
            try body()
            return nil
        } catch let error as CryptoError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }
}

@Suite("X.509 certificates")
struct CertificateTests {
    let caKey: PrivateKey
    let ca: Certificate

    init() throws {
        caKey = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: try DistinguishedName([
                .country("US"), .organization("Acme Authenticators"),
                .organizationalUnit("Authenticator Attestation"), .commonName("Acme Root CA"),
            ]),
            publicKey: caKey.publicKey, notBefore: TestPKI.date(2020, 1, 2, 3), notAfter: TestPKI.date(2060, 5, 6, 7))
        builder.serialNumber = [0x12, 0x34, 0x56]
        builder.basicConstraints = .init(isCA: true, pathLength: 1, isCritical: true)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        ca = try builder.sign(with: caKey)
    }

    @Test func parsesSubjectIssuerVersionSerialAndValidity() throws {
        #expect(ca.version == 3)
        #expect(ca.serialNumber == [0x12, 0x34, 0x56])
        #expect(ca.subject.country == "US")
        #expect(ca.subject.organization == "Acme Authenticators")
        #expect(ca.subject.organizationalUnit == "Authenticator Attestation")
        #expect(ca.subject.commonName == "Acme Root CA")
        #expect(ca.subject.attributes.map(\.oid) == ["2.5.4.6", "2.5.4.10", "2.5.4.11", "2.5.4.3"])
        #expect(ca.issuer == ca.subject)
        #expect(ca.isSelfIssued)
        #expect(ca.notBefore == TestPKI.date(2020, 1, 2, 3))
        // After 2049 the time is a GeneralizedTime.
        #expect(ca.notAfter == TestPKI.date(2060, 5, 6, 7))
        #expect(ca.signatureAlgorithmOID == "1.2.840.10045.4.3.2")
        #expect(ca.tbsCertificateBytes.count < ca.derBytes.count)
        #expect(try Certificate(derEncoded: ca.derBytes) == ca)
    }

    @Test func parsesBasicConstraintsAndKeyUsage() throws {
        #expect(ca.basicConstraints == BasicConstraints(isCA: true, pathLength: 1))
        #expect(ca.keyUsage == [.keyCertSign, .cRLSign])
        #expect(ca.extendedKeyUsage == nil)
        #expect(ca.subjectAlternativeNames.isEmpty)
        let bc = try #require(ca.extension(oid: CertificateExtension.basicConstraintsOID))
        #expect(bc.isCritical)
        #expect(bc.value == [0x30, 0x06, 0x01, 0x01, 0xFF, 0x02, 0x01, 0x01])
        // keyCertSign (5) and cRLSign (6): 03 02 01 06.
        #expect(ca.extension(oid: CertificateExtension.keyUsageOID)?.value == [0x03, 0x02, 0x01, 0x06])
    }

    @Test func publicKeyMatchesTheSigningKey() throws {
        #expect(ca.publicKey.isEqual(to: caKey.publicKey))
        #expect(!ca.publicKey.isEqual(to: try PrivateKey.generate(.p256).publicKey))
        #expect(try PublicKey(subjectPublicKeyInfoDER: ca.subjectPublicKeyInfoDER[...]).isEqual(to: caKey.publicKey))
        #expect(ca.isSignatureValid(issuer: ca))
    }

    @Test func leafFieldsExtensionsAndSignature() throws {
        let leafKey = try PrivateKey.generate(.p256)
        let aaguid: [UInt8] = Array(0..<16)
        let leaf = try TestPKI.issue("Leaf", key: leafKey, isCA: false, by: ca, issuerKey: caKey) { builder in
            builder.basicConstraints = .init(isCA: false, isCritical: false)
            builder.keyUsage = [.digitalSignature, .nonRepudiation, .keyAgreement, .decipherOnly]
            builder.extendedKeyUsage = ["1.3.6.1.5.5.7.3.2", "2.23.133.8.3"]
            builder.subjectAlternativeNames = [
                .dnsName("example.com"), .uri("https://example.com/x"),
                .rfc822Name("a@example.com"), .ipAddress([192, 0, 2, 1]),
                .registeredID("1.2.3.4"),
            ]
            builder.extraExtensions = [
                CertificateExtension(oid: "1.3.6.1.4.1.45724.1.1.4", isCritical: false, value: DEREncoder.octetString(aaguid)),
                CertificateExtension(oid: "1.2.3.4.5.6", isCritical: true, value: DEREncoder.null()),
            ]
        }
        #expect(leaf.issuer == ca.subject)
        #expect(leaf.subject.commonName == "Leaf")
        #expect(!leaf.isSelfIssued)
        #expect(leaf.basicConstraints == BasicConstraints(isCA: false, pathLength: nil))
        #expect(leaf.keyUsage == [.digitalSignature, .nonRepudiation, .keyAgreement, .decipherOnly])
        #expect(leaf.extendedKeyUsage == ["1.3.6.1.5.5.7.3.2", "2.23.133.8.3"])
        #expect(
            leaf.subjectAlternativeNames == [
                .dnsName("example.com"), .uri("https://example.com/x"),
                .rfc822Name("a@example.com"), .ipAddress([192, 0, 2, 1]),
                .registeredID("1.2.3.4"),
            ])
        let fido = try #require(leaf.extension(oid: "1.3.6.1.4.1.45724.1.1.4"))
        #expect(!fido.isCritical)
        #expect(Array(try DER.parse(fido.value).octetString()) == aaguid)
        let custom = try #require(leaf.extension(oid: "1.2.3.4.5.6"))
        #expect(custom.isCritical)
        #expect(custom.value == [0x05, 0x00])
        #expect(leaf.extension(oid: "1.2.3.4.5.7") == nil)
        #expect(
            leaf.extensions.map(\.oid) == [
                "2.5.29.19", "2.5.29.15", "2.5.29.37", "2.5.29.17",
                "1.3.6.1.4.1.45724.1.1.4", "1.2.3.4.5.6",
            ])
        #expect(leaf.publicKey.isEqual(to: leafKey.publicKey))
        #expect(leaf.isSignatureValid(issuer: ca))
        #expect(!leaf.isSignatureValid(issuer: leaf))
        #expect(leaf.isSignatureValid(publicKey: caKey.publicKey))
    }

    @Test(arguments: [false, true])
    func tpmSubjectAltNameDirectoryName(multiValued: Bool) throws {
        let attributes: [DistinguishedName.Attribute] = [
            .init(DistinguishedName.tpmManufacturerOID, "id:FFFFF1D0"),
            .init(DistinguishedName.tpmModelOID, "FIDO Alliance TPM"),
            .init(DistinguishedName.tpmVersionOID, "id:00000001"),
        ]
        let directory =
            multiValued
            ? try DistinguishedName(rdns: [attributes])
            : try DistinguishedName(attributes)
        let aikKey = try PrivateKey.generate(.rsa(bits: 2048))
        let emptyName = try DistinguishedName([])
        let aik = try TestPKI.issue("unused", key: aikKey, isCA: false, by: ca, issuerKey: caKey) { builder in
            builder.subject = emptyName
            builder.subjectAlternativeNames = [.directoryName(directory)]
            builder.subjectAlternativeNamesAreCritical = true
            builder.extendedKeyUsage = ["2.23.133.8.3"]
        }
        #expect(aik.subject.isEmpty)
        #expect(aik.subject.attributes.isEmpty)
        #expect(aik.extension(oid: CertificateExtension.subjectAlternativeNameOID)?.isCritical == true)
        guard case .directoryName(let parsed)? = aik.subjectAlternativeNames.first else {
            Issue.record("no directoryName in \(aik.subjectAlternativeNames)")
            return
        }
        #expect(aik.subjectAlternativeNames.count == 1)
        #expect(parsed.relativeDistinguishedNames.count == (multiValued ? 1 : 3))
        #expect(parsed.value(for: DistinguishedName.tpmManufacturerOID) == "id:FFFFF1D0")
        #expect(parsed.value(for: DistinguishedName.tpmModelOID) == "FIDO Alliance TPM")
        #expect(parsed.value(for: DistinguishedName.tpmVersionOID) == "id:00000001")
        #expect(aik.publicKey.isEqual(to: aikKey.publicKey))
    }

    @Test func versionOneHasNoExtensions() throws {
        let key = try PrivateKey.generate(.p384)
        var builder = try TestPKI.builder("v1", key: key, isCA: nil)
        builder.version = 1
        builder.serialNumber = [0x80]
        let cert = try builder.sign(with: key, digest: .sha384)
        #expect(cert.version == 1)
        #expect(cert.serialNumber == [0x00, 0x80])
        #expect(cert.extensions.isEmpty)
        #expect(cert.basicConstraints == nil)
        #expect(cert.keyUsage == nil)
        #expect(cert.extendedKeyUsage == nil)
        #expect(cert.subjectAlternativeNames.isEmpty)
        #expect(cert.signatureAlgorithmOID == "1.2.840.10045.4.3.3")
    }

    @Test func rsaAndEd25519Signers() throws {
        let rsa = try PrivateKey.generate(.rsa(bits: 2048))
        let rsaCert = try TestPKI.builder("rsa", key: rsa, isCA: true).sign(with: rsa)
        #expect(rsaCert.signatureAlgorithmOID == "1.2.840.113549.1.1.11")
        #expect(rsaCert.isSignatureValid(issuer: rsaCert))
        let ed = try PrivateKey.generate(.ed25519)
        let edCert = try TestPKI.builder("ed", key: ed, isCA: true).sign(with: ed)
        #expect(edCert.signatureAlgorithmOID == "1.3.101.112")
        #expect(edCert.isSignatureValid(issuer: edCert))
        #expect(edCert.publicKey.isEqual(to: ed.publicKey))
        #expect(!edCert.isSignatureValid(issuer: rsaCert))
    }

    @Test func malformedInputIsRejected() throws {
        #expect(TestPKI.code { _ = try Certificate(derEncoded: []) } == .malformedCertificate)
        #expect(TestPKI.code { _ = try Certificate(derEncoded: [0x30, 0x00]) } == .malformedCertificate)
        #expect(TestPKI.code { _ = try Certificate(derEncoded: Array("not a certificate".utf8)) } == .malformedCertificate)
        #expect(TestPKI.code { _ = try Certificate(derEncoded: ca.derBytes + [0x00]) } == .malformedCertificate)
        #expect(TestPKI.code { _ = try Certificate(derEncoded: ca.derBytes + ca.derBytes) } == .malformedCertificate)
        for cut in stride(from: 0, to: ca.derBytes.count, by: 1) {
            let prefix = Array(ca.derBytes.prefix(cut))
            #expect(TestPKI.code { _ = try Certificate(derEncoded: prefix) } == .malformedCertificate, "prefix \(cut)")
        }
        // A flipped tag byte inside the TBS.
        var corrupted = ca.derBytes
        corrupted[4] = 0x31
        #expect(TestPKI.code { _ = try Certificate(derEncoded: corrupted) } == .malformedCertificate)
    }

    @Test func berIndefiniteLengthIsRejected() throws {
        // Re-encode the outer SEQUENCE with an indefinite length: libcrypto would take BER.
        let outer = try DER.parse(ca.derBytes)
        let ber: [UInt8] = [0x30, 0x80] + Array(outer.content) + [0x00, 0x00]
        #expect(TestPKI.code { _ = try Certificate(derEncoded: ber) } == .malformedCertificate)
    }

    @Test func duplicateExtensionsAreRejected() throws {
        var builder = try TestPKI.builder("dup", key: caKey, isCA: true)
        builder.extraExtensions = [
            CertificateExtension(
                oid: CertificateExtension.basicConstraintsOID, isCritical: true,
                value: DEREncoder.sequence([]))
        ]
        #expect(TestPKI.code { _ = try builder.sign(with: caKey) } == .malformedCertificate)
        var twice = try TestPKI.builder("dup2", key: caKey, isCA: nil)
        let custom = CertificateExtension(oid: "1.3.6.1.4.1.45724.1.1.4", isCritical: false, value: DEREncoder.octetString([1]))
        twice.extraExtensions = [custom, custom]
        #expect(TestPKI.code { _ = try twice.sign(with: caKey) } == .malformedCertificate)
    }

    @Test(arguments: [
        (CertificateExtension.basicConstraintsOID, [UInt8]([0x30, 0x03, 0x01, 0x01, 0x01])),  // BOOLEAN not 0xFF
        (CertificateExtension.basicConstraintsOID, [0x30, 0x03, 0x02, 0x01, 0xFF]),  // negative pathLen
        (CertificateExtension.basicConstraintsOID, [0x04, 0x00]),  // not a SEQUENCE
        (CertificateExtension.keyUsageOID, [0x03, 0x02, 0x09, 0x80]),  // unused bits > 7
        (CertificateExtension.extendedKeyUsageOID, [0x30, 0x03, 0x02, 0x01, 0x01]),  // INTEGER, not OID
        (CertificateExtension.subjectAlternativeNameOID, [0x30, 0x03, 0x82, 0x01, 0xFF]),  // non-ASCII dNSName
        (CertificateExtension.subjectAlternativeNameOID, [0x30, 0x04, 0xA4, 0x02, 0x31, 0x00]),  // dirName not a Name
        (CertificateExtension.subjectAlternativeNameOID, [0x30, 0x03, 0x82, 0x01]),  // truncated
    ])
    func malformedExtensionValuesAreRejected(oid: String, value: [UInt8]) throws {
        var builder = try TestPKI.builder("bad", key: caKey, isCA: nil)
        builder.extraExtensions = [CertificateExtension(oid: oid, isCritical: false, value: value)]
        #expect(TestPKI.code { _ = try builder.sign(with: caKey) } == .malformedCertificate)
    }

    @Test func distinguishedNameValuesOfOtherTypesAreHex() throws {
        let name = try DistinguishedName(
            derEncoded: DEREncoder.sequence([
                DEREncoder.set([DEREncoder.sequence([try DEREncoder.objectIdentifier("2.5.4.3"), DEREncoder.integer(5)])])
            ])[...])
        #expect(name.commonName == "#020105")
        #expect(throws: DERError.self) {
            _ = try DistinguishedName(derEncoded: DEREncoder.sequence([DEREncoder.set([])])[...])
        }
    }
}
