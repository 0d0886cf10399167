import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

@Suite("known attestation roots")
struct KnownAttestationRootsTests {
    /// What each published root must look like (checked against the vendors' published roots).
    struct Expected: Sendable, CustomTestStringConvertible {
        let name: String
        let commonName: String?
        let organization: String?
        let organizationalUnit: String?
        let subjectSerialNumber: String?
        let serial: String
        let notBefore: String
        let notAfter: String

        var testDescription: String { name }
    }

    static let expected: [Expected] = [
        Expected(
            name: "Apple WebAuthn Root CA", commonName: "Apple WebAuthn Root CA", organization: "Apple Inc.",
            organizationalUnit: nil, subjectSerialNumber: nil, serial: "681d016c7a3ce30225a5019428475771",
            notBefore: "2020-03-18T18:21:32Z", notAfter: "2045-03-15T00:00:00Z"),
        Expected(
            name: "Apple App Attestation Root CA", commonName: "Apple App Attestation Root CA", organization: "Apple Inc.",
            organizationalUnit: nil, subjectSerialNumber: nil, serial: "0bf3be0ef1cdd2e0fb8c6e721f621798",
            notBefore: "2020-03-18T18:32:53Z", notAfter: "2045-03-15T00:00:00Z"),
        Expected(
            name: "Google hardware attestation root, serial e8fa196314d2fa18", commonName: nil, organization: nil,
            organizationalUnit: nil, subjectSerialNumber: "f92009e853b6b045", serial: "e8fa196314d2fa18",
            notBefore: "2016-05-26T16:28:52Z", notAfter: "2026-05-24T16:28:52Z"),
        Expected(
            name: "Google hardware attestation root, serial d50ff25ba3f2d6b3", commonName: nil, organization: nil,
            organizationalUnit: nil, subjectSerialNumber: "f92009e853b6b045", serial: "d50ff25ba3f2d6b3",
            notBefore: "2019-11-22T20:37:58Z", notAfter: "2034-11-18T20:37:58Z"),
        Expected(
            name: "Google hardware attestation root, serial c36b7c44b9ae1831", commonName: nil, organization: nil,
            organizationalUnit: nil, subjectSerialNumber: "f92009e853b6b045", serial: "c36b7c44b9ae1831",
            notBefore: "2021-11-17T23:10:42Z", notAfter: "2036-11-13T23:10:42Z"),
        Expected(
            name: "Google hardware attestation root, serial f1c172a699eaf51d", commonName: nil, organization: nil,
            organizationalUnit: nil, subjectSerialNumber: "f92009e853b6b045", serial: "f1c172a699eaf51d",
            notBefore: "2022-03-20T18:07:48Z", notAfter: "2042-03-15T18:07:48Z"),
        Expected(
            name: "Google hardware attestation root, Key Attestation CA1", commonName: "Key Attestation CA1",
            organization: "Google LLC", organizationalUnit: "Android", subjectSerialNumber: nil,
            serial: "84a9d0297b0eb58ae7ff0e80de760605",
            notBefore: "2025-07-17T22:32:18Z", notAfter: "2035-07-15T22:32:18Z"),
        Expected(
            name: "GlobalSign Root CA", commonName: "GlobalSign Root CA", organization: "GlobalSign nv-sa",
            organizationalUnit: "Root CA", subjectSerialNumber: nil, serial: "040000000001154b5ac394",
            notBefore: "1998-09-01T12:00:00Z", notAfter: "2028-01-28T12:00:00Z"),
        Expected(
            name: "GlobalSign Root CA - R2", commonName: "GlobalSign", organization: "GlobalSign",
            organizationalUnit: "GlobalSign Root CA - R2", subjectSerialNumber: nil, serial: "0203e4f461ec99d9d57966ca7a",
            notBefore: "2006-12-15T08:00:00Z", notAfter: "2021-12-15T08:00:00Z"),
        Expected(
            name: "GlobalSign Root CA - R3", commonName: "GlobalSign", organization: "GlobalSign",
            organizationalUnit: "GlobalSign Root CA - R3", subjectSerialNumber: nil, serial: "04000000000121585308a2",
            notBefore: "2009-03-18T10:00:00Z", notAfter: "2029-03-18T10:00:00Z"),
    ]

    static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.drop(while: { $0 == 0 }).map { String(format: "%02x", $0) }.joined()
    }

    @Test("every embedded constant decodes and parses, and nothing is dropped")
    func everyConstantParses() throws {
        #expect(KnownAttestationRoots.embedded.count == Self.expected.count)
        for entry in KnownAttestationRoots.embedded {
            let der = try #require(entry.derBytes, "\(entry.name) is not base64")
            #expect(throws: Never.self, "\(entry.name)") { _ = try Certificate(derEncoded: der) }
        }
        #expect(KnownAttestationRoots.parsed.count == KnownAttestationRoots.embedded.count)
        #expect(KnownAttestationRoots.appleWebAuthnRootCA != nil)
        #expect(KnownAttestationRoots.appleAppAttestationRootCA != nil)
        #expect(KnownAttestationRoots.googleHardwareAttestationRoots.count == 5)
        #expect(KnownAttestationRoots.globalSignSafetyNetRoots.count == 3)
    }

    @Test("each root has its published subject, serial and validity, is a CA and signs itself", arguments: expected)
    func publishedProperties(_ expected: Expected) throws {
        let entry = try #require(KnownAttestationRoots.embedded.first { $0.name == expected.name })
        let certificate = try Certificate(derEncoded: try #require(entry.derBytes))
        #expect(certificate.subject.commonName == expected.commonName)
        #expect(certificate.subject.organization == expected.organization)
        #expect(certificate.subject.organizationalUnit == expected.organizationalUnit)
        #expect(certificate.subject.value(for: "2.5.4.5") == expected.subjectSerialNumber)
        #expect(Self.hex(certificate.serialNumber) == expected.serial)
        #expect(certificate.notBefore == Self.date(expected.notBefore))
        #expect(certificate.notAfter == Self.date(expected.notAfter))
        #expect(certificate.basicConstraints?.isCA == true)
        #expect(certificate.isSelfIssued)
        #expect(certificate.isSignatureValid(issuer: certificate))
    }

    @Test("the groups hold the right roots")
    func groups() throws {
        let apple = try #require(KnownAttestationRoots.appleWebAuthnRootCA)
        #expect(apple.subject.commonName == "Apple WebAuthn Root CA")
        let google = KnownAttestationRoots.googleHardwareAttestationRoots
        let legacy = google.filter { $0.subject.value(for: "2.5.4.5") == "f92009e853b6b045" }
        #expect(legacy.count == 4)
        #expect(google.filter { $0.subject.commonName == "Key Attestation CA1" && $0.subject.organization == "Google LLC" }.count == 1)
        #expect(KnownAttestationRoots.globalSignSafetyNetRoots.allSatisfy { $0.subject.organization?.hasPrefix("GlobalSign") == true })
        // The four issuances of the RSA root share one key; Key Attestation CA1 has its own.
        #expect(Set(legacy.map(\.subjectPublicKeyInfoDER)).count == 1)
        #expect(Set(google.map(\.subjectPublicKeyInfoDER)).count == 2)
    }

    @Test("no known root is trusted by default")
    func notTrustedByDefault() throws {
        let authenticator = AttestedAuthenticator(aaguid: .zero, format: "packed", type: .basic, trustPath: [], aaguidAttested: true)
        #expect(try AttestationPolicy().source.trust(for: authenticator, at: Date()).anchors.isEmpty)
        #expect(try VerificationPolicy().attestation.source.trust(for: authenticator, at: Date()).anchors.isEmpty)
    }

    @Test("each embedded root reads the same from the DER walk as through libcrypto's getters")
    func derWalkMatchesLibCrypto() throws {
        #expect(!KnownAttestationRoots.embedded.isEmpty)
        for entry in KnownAttestationRoots.embedded {
            let der = try #require(entry.derBytes, "\(entry.name) decodes")
            #expect(CertificateDifferential.differences(der).isEmpty, "\(entry.name): \(CertificateDifferential.differences(der))")
        }
    }
}
