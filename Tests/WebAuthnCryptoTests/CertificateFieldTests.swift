import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// The DER walk of `Certificate(derEncoded:)` field by field (RFC 5280 §4.1): what it accepts,
/// what it refuses and that the refusal names the field. The certificates are edited copies of
/// one real one; parsing does not check the signature, so the edits need no re-signing.
@Suite("X.509: certificate fields")
struct CertificateFieldTests {
    let key: PrivateKey
    /// A v3 CA: version, serial, signature, issuer, validity, subject, spki, [3] extensions.
    let base: [UInt8]

    init() throws {
        key = try PrivateKey.generate(.p256)
        base = try TestPKI.builder("Field CA", key: key, isCA: true).sign(with: key).derBytes
    }

    enum Field: Int { case version = 0, serial, signature, issuer, validity, subject, spki, extensions }

    /// `base` with its tbsCertificate fields edited (and optionally another outer algorithm).
    func rewrite(outerAlgorithm: [UInt8]? = nil, _ edit: (inout [[UInt8]]) throws -> Void = { _ in }) throws -> [UInt8] {
        let outer = try DER.parse(base).children()
        var fields = try outer[0].children().map { Array($0.encodedBytes) }
        try edit(&fields)
        return DEREncoder.sequence([
            DEREncoder.sequence(fields), outerAlgorithm ?? Array(outer[1].encodedBytes),
            Array(outer[2].encodedBytes),
        ])
    }

    /// The reason `Certificate` gives for refusing `der`, or nil when it accepts it.
    func refusal(_ der: [UInt8]) -> String? {
        do {
            _ = try Certificate(derEncoded: der)
            return nil
        } catch {
            #expect(error.code == .malformedCertificate, "\(error)")
            return error.reason
        }
    }

    func expectRefused(_ der: [UInt8], naming field: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let reason = refusal(der) else {
            Issue.record("accepted; expected a refusal naming \(field)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.hasPrefix(field), "reason \"\(reason)\" names \(field)", sourceLocation: sourceLocation)
    }

    static func time(_ tag: DERTag, _ text: String) -> [UInt8] { DEREncoder.tlv(tag, Array(text.utf8)) }

    func withValidity(_ notBefore: [UInt8], _ notAfter: [UInt8]) throws -> [UInt8] {
        try rewrite { $0[Field.validity.rawValue] = DEREncoder.sequence([notBefore, notAfter]) }
    }

    @Test func theUntouchedCopyParses() throws {
        #expect(try rewrite() == base)
        #expect(refusal(base) == nil)
    }

    // MARK: Validity (RFC 5280 §4.1.2.5)

    @Test(arguments: [
        ("500101000000Z", true, -631_152_000),  // UTCTime 50 is 1950
        ("491231235959Z", true, 2_524_607_999),  // UTCTime 49 is 2049
        ("200229120000Z", true, 1_582_977_600),  // leap day
        ("20500101000000Z", false, 2_524_608_000),
        ("20000229000000Z", false, 951_782_400),  // 2000 is a leap year
        ("99991231235959Z", false, 253_402_300_799),
        ("20200101000000Z", false, 1_577_836_800),  // GeneralizedTime before 2050 is read too
    ])
    func wellFormedTimesAreRead(text: String, utc: Bool, seconds: Int) throws {
        let time = Self.time(utc ? .utcTime : .generalizedTime, text)
        let certificate = try Certificate(derEncoded: try withValidity(time, time))
        #expect(certificate.notBefore == Date(timeIntervalSince1970: TimeInterval(seconds)))
        #expect(certificate.notAfter == certificate.notBefore)
        #expect(CertificateDifferential.differences(certificate.derBytes).isEmpty)
    }

    @Test(arguments: [
        ("2001010000Z", true),  // UTCTime without seconds
        ("200101000000", true),  // no Z
        ("200101000000z", true),  // lower-case z
        ("200101000000+0100", true),  // offset instead of Z
        ("200101000000.5Z", true),  // fraction in UTCTime
        ("20200101000000.5Z", false),  // fraction
        ("202001010000Z", false),  // GeneralizedTime without seconds
        ("20200101000000", false),  // local time
        ("20200101000000-0500", false),  // offset
        ("200101000000Z", false),  // a UTCTime's digits under the GeneralizedTime tag
        ("20200101000000Z", true),  // a GeneralizedTime's digits under the UTCTime tag
        ("210229000000Z", true),  // 29 February 2021
        ("21000229000000Z", false),  // 2100 is not a leap year
        ("200431000000Z", true),  // 31 April
        ("201301000000Z", true),  // month 13
        ("200100000000Z", true),  // day 0
        ("200101240000Z", true),  // hour 24
        ("200101006000Z", true),  // minute 60
        ("200101000060Z", true),  // second 60
        ("2001010000 0Z", true),  // not a digit
        ("+20101000000Z", true),  // sign
        ("", true),
    ])
    func malformedTimesAreRefused(text: String, utc: Bool) throws {
        let bad = Self.time(utc ? .utcTime : .generalizedTime, text)
        let good = Self.time(.utcTime, "200101000000Z")
        expectRefused(try withValidity(bad, good), naming: "validity.notBefore")
        expectRefused(try withValidity(good, bad), naming: "validity.notAfter")
    }

    @Test func validityShapeIsChecked() throws {
        let good = Self.time(.utcTime, "200101000000Z")
        expectRefused(try withValidity(DEREncoder.integer(1), good), naming: "validity.notBefore")
        expectRefused(try rewrite { $0[Field.validity.rawValue] = DEREncoder.sequence([good]) }, naming: "validity")
        expectRefused(try rewrite { $0[Field.validity.rawValue] = DEREncoder.sequence([good, good, good]) }, naming: "validity")
        expectRefused(try rewrite { $0[Field.validity.rawValue] = DEREncoder.set([good, good]) }, naming: "validity")
    }

    // MARK: Algorithms (RFC 5280 §4.1.1.2, §4.1.2.3)

    @Test func innerAndOuterSignatureAlgorithmsMustBeEqual() throws {
        let sha384 = DEREncoder.sequence([try DEREncoder.objectIdentifier("1.2.840.10045.4.3.3")])
        let sha256WithNull = DEREncoder.sequence([try DEREncoder.objectIdentifier("1.2.840.10045.4.3.2"), DEREncoder.null()])
        expectRefused(try rewrite { $0[Field.signature.rawValue] = sha384 }, naming: "signature")
        expectRefused(try rewrite(outerAlgorithm: sha384), naming: "signature")
        // Same OID, different parameters: not equal either.
        expectRefused(try rewrite { $0[Field.signature.rawValue] = sha256WithNull }, naming: "signature")
        // Both changed alike: accepted, and the OID read is the new one.
        let both = try rewrite(outerAlgorithm: sha384) { $0[Field.signature.rawValue] = sha384 }
        #expect(try Certificate(derEncoded: both).signatureAlgorithmOID == "1.2.840.10045.4.3.3")
        // libcrypto parses the mismatched one; only its signature check would notice.
        #expect((try? LibCryptoCertificateFields(derEncoded: try rewrite { $0[Field.signature.rawValue] = sha384 })) != nil)
    }

    @Test func algorithmIdentifiersAreChecked() throws {
        let oid = try DEREncoder.objectIdentifier("1.2.840.10045.4.3.2")
        let threeParts = DEREncoder.sequence([oid, DEREncoder.null(), DEREncoder.null()])
        expectRefused(try rewrite(outerAlgorithm: threeParts) { $0[Field.signature.rawValue] = threeParts }, naming: "signatureAlgorithm")
        let notOID = DEREncoder.sequence([DEREncoder.integer(1)])
        expectRefused(try rewrite(outerAlgorithm: notOID) { $0[Field.signature.rawValue] = notOID }, naming: "signatureAlgorithm")
        expectRefused(
            try rewrite { fields in
                var spki = try DER.parse(fields[Field.spki.rawValue]).children().map { Array($0.encodedBytes) }
                spki[0] = DEREncoder.sequence([])
                fields[Field.spki.rawValue] = DEREncoder.sequence(spki)
            }, naming: "subjectPublicKeyInfo.algorithm")
        expectRefused(
            try rewrite { fields in
                let spki = try DER.parse(fields[Field.spki.rawValue]).children().map { Array($0.encodedBytes) }
                fields[Field.spki.rawValue] = DEREncoder.sequence([spki[0], DEREncoder.octetString([0x04])])
            }, naming: "subjectPublicKeyInfo.subjectPublicKey")
    }

    // MARK: Version, serial, structure

    @Test func versionRules() throws {
        // v4 does not exist, and the version is a small INTEGER.
        expectRefused(try rewrite { $0[Field.version.rawValue] = DEREncoder.explicit(0, DEREncoder.integer(3)) }, naming: "version")
        expectRefused(try rewrite { $0[Field.version.rawValue] = DEREncoder.explicit(0, [0x02, 0x02, 0x00, 0x02]) }, naming: "version")
        // The version is read as encoded, and the fields RFC 5280 ties to it are read whatever it
        // says, as libcrypto reads them (the attestation formats refuse a version other than 3):
        // an explicit v1, and extensions in a v1 or v2 certificate, parse with their version.
        let explicitV1 = try Certificate(
            derEncoded: try rewrite { $0[Field.version.rawValue] = DEREncoder.explicit(0, DEREncoder.integer(0)) })
        #expect(explicitV1.version == 1 && !explicitV1.extensions.isEmpty)
        #expect(CertificateDifferential.differences(explicitV1.derBytes).isEmpty)
        let v2WithExtensions = try Certificate(
            derEncoded: try rewrite { $0[Field.version.rawValue] = DEREncoder.explicit(0, DEREncoder.integer(1)) })
        #expect(v2WithExtensions.version == 2 && !v2WithExtensions.extensions.isEmpty)
        let v1WithExtensions = try Certificate(derEncoded: try rewrite { $0.removeFirst() })
        #expect(v1WithExtensions.version == 1 && !v1WithExtensions.extensions.isEmpty)
        #expect(CertificateDifferential.differences(v1WithExtensions.derBytes).isEmpty)
        // Unique identifiers: BIT STRINGs in order [1], [2], then [3].
        let issuerUID = DEREncoder.tlv(.context(1, constructed: false), [0x00, 0xAB])
        let subjectUID = DEREncoder.tlv(.context(2, constructed: false), [0x00, 0xCD])
        let withIDs = try Certificate(
            derEncoded: try rewrite { $0.insert(contentsOf: [issuerUID, subjectUID], at: Field.extensions.rawValue) })
        #expect(withIDs.version == 3)
        #expect(CertificateDifferential.differences(withIDs.derBytes).isEmpty)
        let v2 = try Certificate(
            derEncoded: try rewrite { fields in
                fields[Field.version.rawValue] = DEREncoder.explicit(0, DEREncoder.integer(1))
                fields[Field.extensions.rawValue] = subjectUID
            })
        #expect(v2.version == 2)
        #expect(v2.extensions.isEmpty)
        expectRefused(
            try rewrite { $0.insert(contentsOf: [subjectUID, issuerUID], at: Field.extensions.rawValue) }, naming: "tbsCertificate")
        expectRefused(
            try rewrite { $0.insert(DEREncoder.tlv(.context(1, constructed: false), [0x08]), at: Field.extensions.rawValue) },
            naming: "issuerUniqueID")
    }

    @Test func serialNumberMustBeAMinimalInteger() throws {
        expectRefused(try rewrite { $0[Field.serial.rawValue] = [0x02, 0x02, 0x00, 0x01] }, naming: "serialNumber")
        expectRefused(try rewrite { $0[Field.serial.rawValue] = [0x02, 0x00] }, naming: "serialNumber")
        expectRefused(try rewrite { $0[Field.serial.rawValue] = DEREncoder.octetString([1]) }, naming: "serialNumber")
        // A negative serial (RFC 5280 forbids it, devices carry them) is read as encoded, like libcrypto does.
        let negative = try Certificate(derEncoded: try rewrite { $0[Field.serial.rawValue] = [0x02, 0x01, 0xFE] })
        #expect(negative.serialNumber == [0xFE])
        #expect(CertificateDifferential.differences(negative.derBytes).isEmpty)
    }

    @Test func missingAndExtraFieldsAreRefused() throws {
        expectRefused(try rewrite { $0.removeSubrange(Field.subject.rawValue...) }, naming: "tbsCertificate ends before subject")
        expectRefused(try rewrite { $0.append(DEREncoder.null()) }, naming: "tbsCertificate")
        expectRefused(try rewrite { $0.append(DEREncoder.explicit(3, DEREncoder.sequence([]))) }, naming: "tbsCertificate")
        expectRefused(try rewrite { $0[Field.issuer.rawValue] = DEREncoder.set([]) }, naming: "issuer")
        expectRefused(try rewrite { $0[Field.subject.rawValue] = DEREncoder.sequence([DEREncoder.set([])]) }, naming: "subject")
        // Trailing bytes after the certificate, inside the outer SEQUENCE, or a fourth outer value.
        #expect(refusal(base + [0x00]) != nil)
        let outer = try DER.parse(base).children().map { Array($0.encodedBytes) }
        #expect(refusal(DEREncoder.sequence(outer + [DEREncoder.null()])) != nil)
        #expect(refusal(DEREncoder.tlv(.sequence, outer.flatMap { $0 } + [0x00])) != nil)
        expectRefused(DEREncoder.sequence([outer[0], outer[1], DEREncoder.octetString([0])]), naming: "signatureValue")
        expectRefused(DEREncoder.sequence([DEREncoder.set([]), outer[1], outer[2]]), naming: "tbsCertificate")
    }

    // MARK: Extensions (RFC 5280 §4.1.2.9, §4.2)

    func withExtensions(_ items: [[UInt8]]) throws -> [UInt8] {
        try rewrite { $0[Field.extensions.rawValue] = DEREncoder.explicit(3, DEREncoder.sequence(items)) }
    }

    static func ext(_ oid: String, critical: [UInt8]? = nil, _ value: [UInt8]) throws -> [UInt8] {
        DEREncoder.sequence([try DEREncoder.objectIdentifier(oid)] + (critical.map { [$0] } ?? []) + [DEREncoder.octetString(value)])
    }

    @Test func extensionRules() throws {
        let aaguid = try Self.ext("1.3.6.1.4.1.45724.1.1.4", DEREncoder.octetString(Array(repeating: 7, count: 16)))
        let other = try Self.ext("1.2.3.4", critical: DEREncoder.boolean(true), DEREncoder.null())
        let good = try Certificate(derEncoded: try withExtensions([aaguid, other]))
        #expect(
            good.extensions == [
                CertificateExtension(
                    oid: "1.3.6.1.4.1.45724.1.1.4", isCritical: false, value: DEREncoder.octetString(Array(repeating: 7, count: 16))),
                CertificateExtension(oid: "1.2.3.4", isCritical: true, value: DEREncoder.null()),
            ])
        // An explicit critical FALSE is not DER but common: read as not critical, as libcrypto does.
        let explicitFalse = try Certificate(
            derEncoded: try withExtensions([try Self.ext("1.2.3.4", critical: DEREncoder.boolean(false), [])]))
        #expect(explicitFalse.extensions == [CertificateExtension(oid: "1.2.3.4", isCritical: false, value: [])])
        #expect(CertificateDifferential.differences(explicitFalse.derBytes).isEmpty)

        expectRefused(try withExtensions([aaguid, aaguid]), naming: "extensions")
        expectRefused(try withExtensions([other, try Self.ext("1.2.3.4", [0x05, 0x00])]), naming: "extensions")
        expectRefused(try withExtensions([]), naming: "extensions")
        expectRefused(try withExtensions([try Self.ext("1.2.3.4", critical: [0x01, 0x01, 0x01], [])]), naming: "extensions")
        expectRefused(try withExtensions([try Self.ext("1.2.3.4", critical: DEREncoder.integer(1), [])]), naming: "extensions")
        expectRefused(try withExtensions([DEREncoder.sequence([try DEREncoder.objectIdentifier("1.2.3.4")])]), naming: "extensions")
        expectRefused(
            try withExtensions([
                DEREncoder.sequence([
                    try DEREncoder.objectIdentifier("1.2.3.4"), DEREncoder.boolean(true),
                    DEREncoder.octetString([]), DEREncoder.null(),
                ])
            ]), naming: "extensions")
        expectRefused(
            try withExtensions([DEREncoder.sequence([try DEREncoder.objectIdentifier("1.2.3.4"), DEREncoder.integer(1)])]),
            naming: "extensions")
        expectRefused(
            try rewrite { $0[Field.extensions.rawValue] = DEREncoder.explicit(3, DEREncoder.set([aaguid])) }, naming: "extensions")
        expectRefused(
            try rewrite {
                $0[Field.extensions.rawValue] = DEREncoder.tlv(
                    .context(3, constructed: true), DEREncoder.sequence([aaguid]) + DEREncoder.null())
            }, naming: "extensions")
        // A known extension that does not decode names itself.
        expectRefused(
            try withExtensions([try Self.ext(CertificateExtension.basicConstraintsOID, [0x04, 0x00])]), naming: "basicConstraints")
    }

    // MARK: Names and self-issued

    static func name(_ attributes: [(String, [UInt8])]) throws -> [UInt8] {
        DEREncoder.sequence(
            try attributes.map { oid, value in
                DEREncoder.set([DEREncoder.sequence([try DEREncoder.objectIdentifier(oid), value])])
            })
    }

    @Test(arguments: [
        // (issuer CN, subject CN, self-issued): text values compare without case and with white space folded.
        ([UInt8](DEREncoder.printableString("Acme Root")), [UInt8](DEREncoder.utf8String("  acme   ROOT ")), true),
        (DEREncoder.utf8String("Acme\tRoot"), DEREncoder.printableString("acme root"), true),
        (DEREncoder.utf8String("Acme Root"), DEREncoder.utf8String("Acme Root 2"), false),
        (DEREncoder.utf8String("Ácme"), DEREncoder.utf8String("ácme"), false),  // only ASCII is folded
        (DEREncoder.tlv(.numericString, Array("12".utf8)), DEREncoder.printableString("12"), false),
        (DEREncoder.tlv(.bmpString, [0x00, 0x41]), DEREncoder.utf8String("a"), true),
    ])
    func selfIssuedComparesNamesAsLibCryptoDoes(issuerCN: [UInt8], subjectCN: [UInt8], expected: Bool) throws {
        let der = try rewrite { fields in
            fields[Field.issuer.rawValue] = try Self.name([("2.5.4.6", DEREncoder.printableString("US")), ("2.5.4.3", issuerCN)])
            fields[Field.subject.rawValue] = try Self.name([("2.5.4.6", DEREncoder.printableString("us")), ("2.5.4.3", subjectCN)])
        }
        let certificate = try Certificate(derEncoded: der)
        #expect(certificate.isSelfIssued == expected)
        #expect(try LibCryptoCertificateFields(derEncoded: der).isSelfIssued == expected)
    }

    @Test func multiValuedRDNsCompareAsSets() throws {
        let cn = try DEREncoder.sequence([DEREncoder.objectIdentifier("2.5.4.3"), DEREncoder.utf8String("A")])
        let o = try DEREncoder.sequence([DEREncoder.objectIdentifier("2.5.4.10"), DEREncoder.utf8String("B")])
        // DER sorts SET OF by encoding; the two orders are built by hand.
        let der = try rewrite { fields in
            fields[Field.issuer.rawValue] = DEREncoder.sequence([DEREncoder.tlv(.set, cn + o)])
            fields[Field.subject.rawValue] = DEREncoder.sequence([DEREncoder.tlv(.set, o + cn)])
        }
        #expect(try Certificate(derEncoded: der).isSelfIssued)
        #expect(try LibCryptoCertificateFields(derEncoded: der).isSelfIssued)
        let split = try rewrite { fields in
            fields[Field.issuer.rawValue] = DEREncoder.sequence([DEREncoder.tlv(.set, cn + o)])
            fields[Field.subject.rawValue] = DEREncoder.sequence([DEREncoder.tlv(.set, cn), DEREncoder.tlv(.set, o)])
        }
        #expect(try !Certificate(derEncoded: split).isSelfIssued)
        #expect(try !LibCryptoCertificateFields(derEncoded: split).isSelfIssued)
    }
}
