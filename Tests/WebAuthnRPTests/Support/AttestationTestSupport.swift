import Foundation
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// A credential key pair for tests.
struct TestCredential {
    let privateKey: PrivateKey
    let algorithm: COSEAlgorithm
    let coseKey: [UInt8]

    init(_ kind: PrivateKey.Kind = .p256, algorithm: COSEAlgorithm = .es256) throws {
        privateKey = try PrivateKey.generate(kind)
        self.algorithm = algorithm
        coseKey = try privateKey.coseKey(algorithm: algorithm)
    }

    var parsedKey: COSEKey { get throws { try COSEKey(cbor: coseKey[...]) } }
}

enum AttestationTestSupport {
    static let now = TestCertificates.now
    static let clientDataHash = Digest.sha256.hash(Array(#"{"type":"webauthn.create"}"#.utf8))

    /// An attestation context as the registration verifier would build it.
    static func context(
        format: String, statement: CBORItem, authData: [UInt8], clientDataHash: [UInt8] = clientDataHash,
        policy: AttestationPolicy = AttestationPolicy(), time: Date = now
    ) throws -> AttestationContext {
        let parsed = try AuthenticatorData(bytes: authData[...])
        guard let attested = parsed.attestedCredentialData else { throw WebAuthnError(.malformed, "no attested data") }
        return AttestationContext(
            format: format, statement: statement, authenticatorData: parsed, clientDataHash: clientDataHash,
            credentialKey: try COSEKey(item: attested.credentialPublicKey),
            attestedCredential: attested, options: policy.formats, allowedFormats: policy.allowedFormats,
            verificationTime: time,
            formats: .standard)
    }

    /// A CA and its key (see ``TestCertificates/makeCA(name:)``).
    static func makeCA(name: String = "Test Attestation Root") throws -> (key: PrivateKey, cert: Certificate) {
        try TestCertificates.makeCA(name: name)
    }
}
