package import Foundation
package import WebAuthnCrypto
package import WebAuthnRP

/// Builds authenticator data bytes (W3C L3 §6.1) for tests.
package struct TestAuthData {
    package var rpId = "example.org"
    package var flags: AuthenticatorFlags = [.userPresent, .userVerified]
    package var signCount: UInt32 = 0
    package var aaguid: [UInt8] = Array(repeating: 0, count: 16)
    package var credentialId: [UInt8] = Array(0..<32)
    /// COSE_Key bytes; nil leaves out attested credential data.
    package var credentialKey: [UInt8]?
    package var extensions: [UInt8]?

    /// Authenticator data for `rpId` with the given parts (attested credential data when `credentialKey` is set).
    package init(
        rpId: String = "example.org", flags: AuthenticatorFlags = [.userPresent, .userVerified],
        signCount: UInt32 = 0, aaguid: [UInt8] = Array(repeating: 0, count: 16),
        credentialId: [UInt8] = Array(0..<32), credentialKey: [UInt8]? = nil, extensions: [UInt8]? = nil
    ) {
        self.rpId = rpId
        self.flags = flags
        self.signCount = signCount
        self.aaguid = aaguid
        self.credentialId = credentialId
        self.credentialKey = credentialKey
        self.extensions = extensions
    }

    /// The encoded bytes.
    package var bytes: [UInt8] {
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

/// The instant test certificates are built around, and the CAs built for it.
package enum TestCertificates {
    /// 2025-01-01T00:00:00Z: test CAs are valid from a year before until ten years after.
    package static let now = Date(timeIntervalSince1970: 1_735_689_600)

    /// A self-signed P-256 CA (basicConstraints CA=true, keyCertSign), for x5c chains.
    /// - Parameters:
    ///   - name: its common name.
    ///   - seed: derives the key (the same seed, the same CA); nil: a fresh random key.
    package static func makeCA(
        name: String = "Test Attestation Root",
        seed: String? = nil
    ) throws -> (key: PrivateKey, cert: Certificate) {
        let key = try seed.map { try PrivateKey.derive(.p256, seed: "\($0) CA") } ?? PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName(name), .organization("Test"), .country("AA")]),
            publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 365),
            notAfter: now.addingTimeInterval(86_400 * 365 * 10))
        builder.basicConstraints = .init(isCA: true)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        return (key, try builder.sign(with: key))
    }
}
