import Foundation
import WebAuthnCoding
import WebAuthnCrypto
package import WebAuthnRP

/// The object identifiers the attestation formats define, written out from their specifications
/// rather than taken from the verifier, so that a wrong identifier there fails the tests.
enum AttestationOID {
    /// id-fido-gen-ce-aaguid (FIDO Metadata Statement, packed §8.2.1).
    static let aaguidExtension = "1.3.6.1.4.1.45724.1.1.4"
    /// tcg-kp-AIKCertificate (tpm §8.3.1), the AIK certificate's extended key usage.
    static let aikCertificate = "2.23.133.8.3"
    /// The Android Keystore key description extension (android-key §8.4).
    static let androidKeyDescription = "1.3.6.1.4.1.11129.2.1.17"
    /// Apple's anonymous attestation nonce extension (apple §8.8, App Attest).
    static let appleNonce = "1.2.840.113635.100.8.2"
}

extension CertificateExtension {
    /// Apple's nonce extension as the apple format's and App Attest's credCert carry it:
    /// `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`, not critical.
    static func appleNonce(_ nonce: [UInt8]) -> CertificateExtension {
        CertificateExtension(
            oid: AttestationOID.appleNonce, isCritical: false,
            value: DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce))]))
    }
}

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
    func tpmStatement(
        ca: CA, authData: [UInt8], clientDataHash: [UInt8],
        options: RegistrationOptions
    ) throws -> CBORItem {
        var fields = try TPMPublicAreaFields(credentialKey: privateKey.publicKey)
        options.details.tpmPublicArea(&fields)
        let pubArea = fields.encoded
        var extraData = Digest.sha256.hash(authData + clientDataHash)
        options.nonce(&extraData)
        let nameAlgorithm = options.details.tpmNameHashAlgorithm
        let nameDigest: Digest =
            switch nameAlgorithm {
            case 0x0004: .sha1
            case 0x000C: .sha384
            case 0x000D: .sha512
            default: .sha256
            }
        let name = TPMStructureEncoder.bigEndian(nameAlgorithm) + nameDigest.hash(pubArea)
        let certInfo = TPMStructureEncoder.certifyAttest(
            extraData: extraData, clock: 1_234, resetCount: 2, restartCount: 3,
            firmwareVersion: 0x0001_0002, name: name)
        let aikKey = try attestationKey(.rsa(bits: 2048), "tpm aik")
        let sig = try aikKey.sign(certInfo, algorithm: .rs256)

        let directory = try DistinguishedName(rdns: [
            [
                .init(oid: DistinguishedName.tpmManufacturerOID, value: options.details.tpmManufacturer),
                .init(oid: DistinguishedName.tpmModelOID, value: "webauthn-rp test TPM"),
                .init(oid: DistinguishedName.tpmVersionOID, value: "id:13"),
            ]
        ])
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(
            subject: try DistinguishedName([]), publicKey: aikKey.publicKey,
            notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x0A, 0x1C]
        builder.basicConstraints = .init(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [AttestationOID.aikCertificate]
        builder.subjectAlternativeNames = [.directoryName(directory)]
        builder.subjectAlternativeNamesAreCritical = true
        builder.extraExtensions = [
            CertificateExtension(
                oid: AttestationOID.aaguidExtension, isCritical: false,
                value: [0x04, 0x10] + aaguid)
        ]
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
    func androidKeyStatement(
        ca: CA, authData: [UInt8], clientDataHash: [UInt8],
        options: RegistrationOptions
    ) throws -> CBORItem {
        var challenge = clientDataHash
        options.nonce(&challenge)
        // purpose [1] (default [KM_PURPOSE_SIGN] in teeEnforced), origin [702]: KM_ORIGIN_GENERATED.
        var description = TestKeyDescription(challenge: challenge)
        description.attestationVersion = 3  // attestationSecurityLevel and keymasterSecurityLevel: TEE
        description.keymasterVersion = 4
        description.softwareEnforced = options.details.androidKeySoftwarePurposes.map { [TestKeyDescription.purposes($0)] } ?? []
        description.teeEnforced =
            (options.details.androidKeyTEEPurposes.map { [TestKeyDescription.purposes($0)] } ?? []) + [TestKeyDescription.integer(702, 0)]
        let keyDescription = description.der
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Android Keystore Key")]),
            publicKey: privateKey.publicKey,
            notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x01]
        builder.extraExtensions = [
            CertificateExtension(
                oid: AttestationOID.androidKeyDescription, isCritical: false,
                value: keyDescription)
        ]
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
    func appleStatement(
        ca: CA, authData: [UInt8], clientDataHash: [UInt8],
        options: RegistrationOptions
    ) throws -> CBORItem {
        var nonce = Digest.sha256.hash(authData + clientDataHash)
        options.nonce(&nonce)
        let validity = Self.certificateValidity
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Test credential"), .organization("Test Vendor"), .init("ST", "Test")]),
            publicKey: privateKey.publicKey, notBefore: validity.notBefore, notAfter: validity.notAfter)
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x42]
        builder.extraExtensions = [.appleNonce(nonce)]
        options.certificate(&builder)
        let credCert = try builder.sign(with: ca.key)
        return .map([(.text("x5c"), .array([.bytes(credCert.derBytes), .bytes(ca.certificate.derBytes)]))])
    }
}

// MARK: - Knobs for one detail of a statement

extension TestAuthenticator {
    /// Format-specific contents of the `tpm` and `android-key` statements, so a test can make
    /// exactly one of them wrong while everything else stays signed and valid.
    package struct StatementDetails {
        /// tpm: the TPMManufacturer the AIK certificate's Subject Alternative Name carries
        /// (default `id:49465800`, Infineon, a TCG-registered vendor).
        package var tpmManufacturer = "id:49465800"
        /// tpm: edits the pubArea fields (made from the credential key) before the pubArea is
        /// encoded, named and certified, so the TPM signature covers the edited structure.
        package var tpmPublicArea: (inout TPMPublicAreaFields) -> Void = { _ in }
        /// tpm: the TPM_ALG_ID of the hash certInfo's Name of pubArea is made with: SHA-1 (0x0004),
        /// SHA-256 (0x000B, the default, pubArea's nameAlg), SHA-384 (0x000C) or SHA-512 (0x000D).
        /// Another than nameAlg is what the FIDO conformance tool's Resp-9 P-3 sends.
        package var tpmNameHashAlgorithm: UInt16 = 0x000B
        /// android-key: teeEnforced purpose (default [KM_PURPOSE_SIGN]; nil: the field is absent).
        package var androidKeyTEEPurposes: [Int]? = [2]
        /// android-key: softwareEnforced purpose (default absent).
        package var androidKeySoftwarePurposes: [Int]?

        /// The defaults: what a well-behaved TPM and Android keystore send.
        package init() {}
    }

    /// The fields of a `tpm` pubArea (TPMT_PUBLIC) as the test authenticator writes them.
    package struct TPMPublicAreaFields {
        /// TPMA_OBJECT bits.
        package var objectAttributes = TPMStructureEncoder.defaultObjectAttributes
        /// The symmetric definition, nil for TPM_ALG_NULL.
        package var symmetric: TPMSymmetricDefinition?
        /// The signing scheme, nil for TPM_ALG_NULL.
        package var scheme: TPMScheme?
        /// RSA: the declared modulus size in bits.
        package var keyBits: UInt16 = 0
        /// RSA: the exponent as written (0 means 65537).
        package var exponent: UInt32 = 0
        /// RSA: the modulus (unique.rsa); nil for an ECC key.
        package var modulus: [UInt8]?
        /// ECC: the TPM_ECC_CURVE.
        package var curveID: UInt16 = 0
        /// ECC: the KDF scheme, nil for TPM_ALG_NULL.
        package var kdf: TPMScheme?
        /// ECC: the point's x coordinate (unique.ecc.x).
        package var x: [UInt8] = []
        /// ECC: the point's y coordinate (unique.ecc.y).
        package var y: [UInt8] = []

        /// The fields a TPM writes for `key`: RSA with keyBits of the modulus and exponent 0, or
        /// ECC on the key's NIST curve; scheme, symmetric and kdf TPM_ALG_NULL (as Windows Hello's
        /// TPM keys carry: the signing scheme is chosen per signature, not fixed in the key).
        init(credentialKey key: PublicKey) throws {
            if let (n, _) = key.rsaParameters {
                keyBits = UInt16(clamping: n.count * 8)
                modulus = n
            } else if let (x, y) = key.ecCoordinates {
                curveID =
                    x.count == 32
                    ? TPMStructureEncoder.curveP256 : x.count == 48 ? TPMStructureEncoder.curveP384 : TPMStructureEncoder.curveP521
                self.x = x
                self.y = y
            } else {
                throw WebAuthnError(.malformed, "a TPM credential is RSA or ECC")
            }
        }

        /// The encoded TPMT_PUBLIC.
        var encoded: [UInt8] {
            if let modulus {
                return TPMStructureEncoder.rsaPublicArea(
                    objectAttributes: objectAttributes, symmetric: symmetric,
                    scheme: scheme, keyBits: keyBits, exponent: exponent,
                    modulus: modulus)
            }
            return TPMStructureEncoder.eccPublicArea(
                objectAttributes: objectAttributes, symmetric: symmetric,
                scheme: scheme, curveID: curveID, kdf: kdf, x: x, y: y)
        }
    }
}
