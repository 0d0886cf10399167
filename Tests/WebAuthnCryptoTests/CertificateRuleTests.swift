import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// X.509 rules the mutation campaign (Docs/Mutation.md) found without a test of their own.
struct CertificateRuleTests {
    static let key: PrivateKey? = try? PrivateKey.generate(.p256)

    static func certificate(extension oid: String, value: [UInt8]) throws -> CryptoError.Code? {
        let key = try #require(Self.key)
        var builder = try TestPKI.builder("rule", key: key, isCA: nil)
        builder.extraExtensions = [CertificateExtension(oid: oid, isCritical: false, value: value)]
        return TestPKI.code { _ = try builder.sign(with: key) }
    }

    @Test(
        "basicConstraints with a member after pathLenConstraint is malformed",
        arguments: [
            [UInt8]([0x30, 0x09, 0x01, 0x01, 0xFF, 0x02, 0x01, 0x00, 0x02, 0x01, 0x05]),  // cA, pathLen, INTEGER
            [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x05],  // pathLen, INTEGER
            [0x30, 0x08, 0x01, 0x01, 0xFF, 0x02, 0x01, 0x00, 0x05, 0x00],  // cA, pathLen, NULL
        ])
    func basicConstraintsExtraMember(value: [UInt8]) throws {
        #expect(try Self.certificate(extension: CertificateExtension.basicConstraintsOID, value: value) == .malformedCertificate)
    }

    @Test(
        "a subjectAltName entry that is not context-tagged is no GeneralName (malformed)",
        arguments: [
            [UInt8]([0x30, 0x03, 0x0C, 0x01, 0x78]),  // UTF8String "x"
            [0x30, 0x03, 0x16, 0x01, 0x78],  // IA5String "x" (dNSName's type, untagged)
            [0x30, 0x04, 0x30, 0x02, 0x05, 0x00],  // SEQUENCE { NULL }
        ])
    func subjectAltNameUntaggedEntry(value: [UInt8]) throws {
        #expect(try Self.certificate(extension: CertificateExtension.subjectAlternativeNameOID, value: value) == .malformedCertificate)
    }
}
