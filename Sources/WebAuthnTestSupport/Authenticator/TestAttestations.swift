import Foundation
@_spi(Testing) import WebAuthnCrypto
@_spi(Testing) import WebAuthnRP

// The attestation statements whose certificate certifies the credential key itself (tpm,
// android-key, apple), built the way the formats' authenticators build them (W3C L3 §8.3,
// §8.4, §8.8). Every key is derived from the authenticator's seed when it has one.
extension TestAuthenticator {
    /// When every generated attestation certificate starts and stops being valid.
    static var certificateValidity: (notBefore: Date, notAfter: Date) {
        (TestCertificates.now.addingTimeInterval(-86_400 * 30), TestCertificates.now.addingTimeInterval(86_400 * 365 * 5))
    }

    // MARK: tpm

    /// `tpm`: pubArea names the credential key, certInfo certifies it with extraData =
    /// SHA-256(authData || clientDataHash), and an RSA-2048 AIK signs certInfo with RS256.
    func tpmStatement(ca: CA, authData: [UInt8], clientDataHash: [UInt8],
                      options: RegistrationOptions) throws -> CBORItem {
        let credentialKey = privateKey.publicKey
        let pubArea: [UInt8]
        if let (n, _) = credentialKey.rsaParameters {
            // Scheme TPM_ALG_NULL, as Windows Hello's TPM keys carry: the signing scheme is
            // chosen per signature, not fixed in the key.
            pubArea = TPMStructureEncoder.rsaPublicArea(keyBits: UInt16(clamping: n.count * 8), modulus: n)
        } else if let (x, y) = credentialKey.ecCoordinates {
            let curve: TPMECCCurve = x.count == 32 ? .p256 : x.count == 48 ? .p384 : .p521
            pubArea = TPMStructureEncoder.eccPublicArea(curveID: curve.rawValue, x: x, y: y)
        } else {
            throw WebAuthnError(.malformed, "a TPM credential is RSA or ECC")
        }
        var extraData = Digest.sha256.hash(authData + clientDataHash)
        options.nonce(&extraData)
        let name = withUnsafeBytes(of: TPMHashAlgorithm.sha256.tpmAlgID.bigEndian, Array.init) + Digest.sha256.hash(pubArea)
        let certInfo = TPMStructureEncoder.certifyAttest(extraData: extraData, clock: 1_234, resetCount: 2, restartCount: 3,
                                                         firmwareVersion: 0x0001_0002, name: name)
        let aikKey = try attestationKey(.rsa(bits: 2048), "tpm aik")
        let sig = try aikKey.sign(certInfo, algorithm: .rs256)

        let directory = try DistinguishedName(rdns: [[
            .init(oid: DistinguishedName.tpmManufacturerOID, value: "id:49465800"),  // Infineon, a real TPM vendor id
            .init(oid: DistinguishedName.tpmModelOID, value: "webauthn-rp test TPM"),
            .init(oid: DistinguishedName.tpmVersionOID, value: "id:13"),
        ]])
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(subject: try DistinguishedName([]), publicKey: aikKey.publicKey,
                                         notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x0A, 0x1C]
        builder.basicConstraints = .init(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [TPMAttestation.aikCertificateKeyPurposeOID]
        builder.subjectAlternativeNames = [.directoryName(directory)]
        builder.subjectAlternativeNamesAreCritical = true
        builder.extraExtensions = [CertificateExtension(oid: PackedAttestation.aaguidExtensionOID, isCritical: false,
                                                        value: [0x04, 0x10] + aaguid)]
        options.certificate(&builder)
        let aik = try builder.sign(with: ca.key)
        return .map([
            (.text("ver"), .text("2.0")), (.text("alg"), .int(Int64(COSEAlgorithm.rs256.rawValue))),
            (.text("x5c"), .array([.bytes(aik.derBytes), .bytes(ca.certificate.derBytes)])),
            (.text("sig"), .bytes(sig)), (.text("certInfo"), .bytes(certInfo)), (.text("pubArea"), .bytes(pubArea)),
        ])
    }

    // MARK: android-key

    /// `android-key`: a certificate for the credential key whose key description binds
    /// clientDataHash, with purpose SIGN and origin GENERATED enforced by the TEE; the
    /// credential key signs authData || clientDataHash.
    func androidKeyStatement(ca: CA, authData: [UInt8], clientDataHash: [UInt8],
                             options: RegistrationOptions) throws -> CBORItem {
        var challenge = clientDataHash
        options.nonce(&challenge)
        let teeEnforced = [
            DEREncoder.explicit(1, DEREncoder.set([DEREncoder.integer(2)])),  // purpose: [KM_PURPOSE_SIGN]
            DEREncoder.explicit(702, DEREncoder.integer(0)),                  // origin: KM_ORIGIN_GENERATED
        ]
        let keyDescription = DEREncoder.sequence([
            DEREncoder.integer(3), DEREncoder.enumerated(1),  // attestationVersion, attestationSecurityLevel TEE
            DEREncoder.integer(4), DEREncoder.enumerated(1),  // keymasterVersion, keymasterSecurityLevel TEE
            DEREncoder.octetString(challenge), DEREncoder.octetString([]),
            DEREncoder.sequence([]), DEREncoder.sequence(teeEnforced),
        ])
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(subject: try DistinguishedName([.commonName("Android Keystore Key")]),
                                         publicKey: privateKey.publicKey,
                                         notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x01]
        builder.extraExtensions = [CertificateExtension(oid: AndroidKeyDescription.extensionOID, isCritical: false,
                                                        value: keyDescription)]
        options.certificate(&builder)
        let leaf = try builder.sign(with: ca.key)
        let sig = try privateKey.sign(authData + clientDataHash, algorithm: algorithm)
        return .map([
            (.text("alg"), .int(Int64(algorithm.rawValue))), (.text("sig"), .bytes(sig)),
            (.text("x5c"), .array([.bytes(leaf.derBytes), .bytes(ca.certificate.derBytes)])),
        ])
    }

    // MARK: apple

    /// `apple`: credCert certifies the credential key and carries the nonce
    /// SHA-256(authData || clientDataHash) as `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    func appleStatement(ca: CA, authData: [UInt8], clientDataHash: [UInt8],
                        options: RegistrationOptions) throws -> CBORItem {
        var nonce = Digest.sha256.hash(authData + clientDataHash)
        options.nonce(&nonce)
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Test credential"), .organization("Test Vendor"), .init("ST", "Test")]),
            publicKey: privateKey.publicKey, notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x42]
        builder.extraExtensions = [CertificateExtension(
            oid: AppleAttestation.nonceExtensionOID, isCritical: false,
            value: DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce))]))]
        options.certificate(&builder)
        let credCert = try builder.sign(with: ca.key)
        return .map([(.text("x5c"), .array([.bytes(credCert.derBytes), .bytes(ca.certificate.derBytes)]))])
    }
}
