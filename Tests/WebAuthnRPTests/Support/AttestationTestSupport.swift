import Foundation
@_spi(Testing) import WebAuthnCrypto
@testable import WebAuthnRP

/// Builds authenticator data bytes (W3C L3 §6.1) for tests.
struct TestAuthData {
    var rpId = "example.org"
    var flags: AuthenticatorFlags = [.userPresent, .userVerified]
    var signCount: UInt32 = 0
    var aaguid: [UInt8] = Array(repeating: 0, count: 16)
    var credentialId: [UInt8] = Array(0..<32)
    /// COSE_Key bytes; nil leaves out attested credential data.
    var credentialKey: [UInt8]?
    var extensions: [UInt8]?

    var bytes: [UInt8] {
        var flags = self.flags
        if credentialKey != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        var out = Digest.sha256.hash(Array(rpId.utf8))
        out.append(flags.rawValue)
        out += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if let credentialKey {
            out += aaguid
            out += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)]
            out += credentialId
            out += credentialKey
        }
        if let extensions { out += extensions }
        return out
    }
}

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
    static let now = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z
    static let clientDataHash = Digest.sha256.hash(Array(#"{"type":"webauthn.create"}"#.utf8))

    /// An attestation context as the registration verifier would build it.
    static func context(statement: CBORItem, authData: [UInt8], clientDataHash: [UInt8] = clientDataHash,
                        policy: AttestationPolicy = AttestationPolicy(), time: Date = now) throws -> AttestationContext {
        let parsed = try AuthenticatorData(bytes: authData[...])
        guard let attested = parsed.attestedCredentialData else { throw WebAuthnError(.malformed, "no attested data") }
        return AttestationContext(statement: statement, authenticatorData: parsed, clientDataHash: clientDataHash,
                                  credentialKey: try COSEKey(item: attested.credentialPublicKey),
                                  attestedCredential: attested, policy: policy, verificationTime: time,
                                  formats: .standard)
    }

    /// A CA and a leaf signed by it, for x5c chains.
    static func makeCA(name: String = "Test Attestation Root") throws -> (key: PrivateKey, cert: Certificate) {
        let key = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(subject: try DistinguishedName([.commonName(name), .organization("Test"), .country("AA")]),
                                         publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 365),
                                         notAfter: now.addingTimeInterval(86_400 * 365 * 10))
        builder.basicConstraints = .init(isCA: true)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        return (key, try builder.sign(with: key))
    }
}
