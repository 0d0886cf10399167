import WebAuthnCoding
import WebAuthnCrypto

/// `tpm` (W3C L3 §8.3): attestation by a Trusted Platform Module. The TPM certifies the
/// credential key (`pubArea`) with its attestation identity key (AIK) in a TPMS_ATTEST
/// (`certInfo`) whose `extraData` binds the ceremony; the AIK certificate comes from an
/// attestation CA, so the attestation type is always AttCA.
struct TPMAttestation: AttestationFormat {
    let identifier = "tpm"
    /// Vouches for the AAGUID: certInfo.extraData is the hash of authenticatorData || clientDataHash.
    let attestsAAGUID = true

    /// tcg-kp-AIKCertificate (2.23.133.8.3), the Extended Key Usage an AIK certificate must carry.
    static let aikCertificateKeyPurposeOID = "2.23.133.8.3"

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        try context.requireMapStatement()
        // ver: "2.0" — "The version of the TPM specification to which the signature conforms."
        let ver = try context.member("ver", is: "a text string") { $0.text }
        guard ver == "2.0" else { throw context.failure("ver is \"\(ver)\", not \"2.0\"") }
        // ECDAA was removed from Level 3; the syntax has no ecdaaKeyId, and no ECDAA verification exists.
        guard context.statement[textKey: "ecdaaKeyId"] == nil else {
            throw context.failure("ecdaaKeyId is present: ECDAA attestation is not supported")
        }
        let alg = try context.algorithm()
        let sig = try context.signature()
        let certInfoBytes = try context.member("certInfo", is: "a byte string") { $0.bytes }
        let pubAreaBytes = try context.member("pubArea", is: "a byte string") { $0.bytes }
        // "Verify that x5c is present." (x5c: [ aikCert: bytes, * (caCert: bytes) ])
        guard context.statement[textKey: "x5c"] != nil else { throw context.failure("x5c is missing") }
        let (aikCert, chain) = try context.certificates()
        let pubArea = try TPMPublicArea(parsing: pubAreaBytes)
        let certInfo = try TPMAttest(parsing: certInfoBytes)

        // "Verify that the public key specified by the parameters and unique fields of pubArea is
        // identical to the credentialPublicKey in the attestedCredentialData in authenticatorData."
        // The parameters must describe the key in unique, and allow the credential's signatures.
        try Self.checkParameters(pubArea, algorithm: context.credentialKey.algorithm, format: identifier)
        try Self.checkPublicKey(pubArea, matches: context.credentialKey, format: identifier)

        // "Concatenate authenticatorData and clientDataHash to form attToBeSigned."
        let attToBeSigned = context.signedData

        // "Validate that certInfo is valid:"
        // "Verify that magic is set to TPM_GENERATED_VALUE."
        guard certInfo.magic == TPMAttest.generatedValue else {
            throw context.failure("certInfo.magic is \(Self.hex(certInfo.magic)), not TPM_GENERATED_VALUE (0xFF544347)")
        }
        // "Verify that type is set to TPM_ST_ATTEST_CERTIFY."
        guard certInfo.type == TPMAttest.attestCertifyType, let certify = certInfo.certifyInfo else {
            throw context.failure("certInfo.type is \(Self.hex(certInfo.type)), not TPM_ST_ATTEST_CERTIFY (0x8017)")
        }
        // "Verify that extraData is set to the hash of attToBeSigned using the hash algorithm employed in "alg"."
        guard let algHash = Self.hashAlgorithm(for: alg) else {
            throw context.failure("alg \(alg) has no hash algorithm a TPM attestation can use")
        }
        guard certInfo.extraData.elementsEqual(algHash.hash(attToBeSigned)) else {
            throw context.failure("certInfo.extraData is not the \(algHash) hash of authenticatorData || clientDataHash")
        }
        // "Verify that attested contains a TPMS_CERTIFY_INFO structure as specified in [TPMv2-Part2]
        // section 10.12.3, whose name field contains a valid Name for pubArea, as computed using the
        // algorithm in the nameAlg field of pubArea using the procedure specified in [TPMv2-Part1] section 16."
        let nameDigest = Self.digest(for: pubArea.nameAlgorithm).hash(pubArea.rawBytes)
        // The FIDO conformance profile only: the Name may be pubArea's under the Name's own known
        // hash algorithm (the tool's Resp-9 P-3 expects it accepted; L3 requires nameAlg).
        guard
            certify.name.bytes.elementsEqual(pubArea.name(withDigest: nameDigest))
                || (context.options.tpmNameMayUseItsOwnAlgorithm && Self.isNameUnderItsOwnAlgorithm(certify.name, of: pubArea))
        else {
            throw context.failure("certInfo.attested.name is not the \(pubArea.nameAlgorithm) Name of pubArea (nameAlg || digest)")
        }
        // "Note that the remaining fields in the "Standard Attestation Structure" [TPMv2-Part1] section
        // 31.2, i.e., qualifiedSigner, clockInfo and firmwareVersion are ignored."

        // "Verify the sig is a valid signature over certInfo using the attestation public key in
        // aikCert with the algorithm specified in alg."
        // RS1 is allowed here (TPM 2.0 AIKs sign with SHA-1), never for credential keys.
        var options = COSEKeyOptions.default
        options.allowRS1 = true
        try context.requireSignature(
            sig, over: Array(certInfo.rawBytes), key: aikCert.publicKey, algorithm: alg,
            signer: "aikCert", options: options)

        // "Verify that aikCert meets the requirements in § 8.3.1."
        let device = try Self.checkCertificateRequirements(aikCert, format: identifier)
        // Not a spec step: like every peer library, refuse a TPM whose vendor the TCG registry
        // does not know (on by default; AttestationFormatOptions.requireKnownTPMManufacturer relaxes it).
        if context.options.requireKnownTPMManufacturer, device.manufacturerName == nil {
            throw context.failure("aikCert names TPM manufacturer \(device.manufacturer), which is not in the TCG TPM vendor registry")
        }

        // "If aikCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid)
        // verify that the value of this extension matches the aaguid in authenticatorData."
        if let ext = aikCert.extension(oid: PackedAttestation.aaguidExtensionOID) {
            try PackedAttestation.checkAAGUIDExtension(ext, aaguid: context.attestedCredential.aaguid, format: identifier)
        }

        // "If successful, return implementation-specific values representing attestation type AttCA
        // and attestation trust path x5c."
        var details = ["tpmManufacturer": device.manufacturer, "tpmModel": device.model, "tpmVersion": device.version]
        if let name = device.manufacturerName { details["tpmManufacturerName"] = name }
        return AttestationOutcome(type: .attCA, trustPath: chain, details: details)
    }

    /// Whether `name` is a digest Name of `pubArea` under the Name's own hash algorithm (one of
    /// the four known, with its digest length), whatever `pubArea.nameAlg` says.
    static func isNameUnderItsOwnAlgorithm(_ name: TPMName, of pubArea: TPMPublicArea) -> Bool {
        guard let algorithm = name.hashAlgorithm, let digest = name.digest else { return false }
        return digest.elementsEqual(Self.digest(for: algorithm).hash(pubArea.rawBytes))
    }

    // MARK: - Public key comparison

    /// Checks that `pubArea`'s key is the credential key: same type, RSA modulus and exponent, or
    /// ECC curve and point. Integers are compared by value (leading zero bytes do not count).
    static func checkPublicKey(_ pubArea: TPMPublicArea, matches key: COSEKey, format: String) throws(WebAuthnError) {
        switch pubArea.parameters {
        case .rsa(let rsa):
            guard key.keyType == .rsa, let (n, e) = key.rsaParameters else {
                throw AttestationContext.failure(format, "pubArea holds an RSA key but the credential key is not RSA")
            }
            guard sameInteger(rsa.modulus, n) else {
                throw AttestationContext.failure(format, "pubArea's RSA modulus n differs from the credential key's")
            }
            guard sameInteger(TPMWriter.bigEndian(rsa.exponent), e) else {
                throw AttestationContext.failure(
                    format,
                    "pubArea's RSA exponent \(rsa.exponent) differs from the credential key's e")
            }
        case .ecc(let ecc):
            guard key.keyType == .ec2, let (x, y) = key.ec2Coordinates else {
                throw AttestationContext.failure(format, "pubArea holds an ECC key but the credential key is not EC2")
            }
            guard key.curve == coseCurve(ecc.curve) else {
                throw AttestationContext.failure(
                    format,
                    "pubArea's curve \(ecc.curve) differs from the credential key's \(key.curve.map { "\($0)" } ?? "none")")
            }
            guard sameInteger(ecc.x, x) else {
                throw AttestationContext.failure(format, "pubArea's ECC x coordinate differs from the credential key's")
            }
            guard sameInteger(ecc.y, y) else {
                throw AttestationContext.failure(format, "pubArea's ECC y coordinate differs from the credential key's")
            }
        }
    }

    /// Whether two unsigned big-endian integers are equal in value.
    static func sameInteger(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        a.drop(while: { $0 == 0 }).elementsEqual(b.drop(while: { $0 == 0 }))
    }

    /// The COSE curve for a TPM curve.
    static func coseCurve(_ curve: TPMECCCurve) -> COSECurve {
        switch curve {
        case .p256: return .p256
        case .p384: return .p384
        case .p521: return .p521
        }
    }

    // MARK: - Hashes

    /// The hash "employed in alg": SHA-1 for RS1, else the SHA-2 of the RS/PS/ES family member.
    static func hashAlgorithm(for alg: COSEAlgorithm) -> Digest? {
        switch alg {
        case .rs1: return .sha1
        case .rs256, .ps256, .es256: return .sha256
        case .rs384, .ps384, .es384: return .sha384
        case .rs512, .ps512, .es512: return .sha512
        default: return nil
        }
    }

    /// The digest for a Name algorithm.
    static func digest(for algorithm: TPMHashAlgorithm) -> Digest {
        switch algorithm {
        case .sha1: return .sha1
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        }
    }

    // MARK: - §8.3.1 certificate requirements

    /// The TPM identity an AIK certificate's Subject Alternative Name carries (TPMv2-EK-Profile §3.2.9).
    struct DeviceAttributes: Sendable, Hashable {
        /// TPMManufacturer (2.23.133.2.1), "id:" and eight hex digits.
        var manufacturer: String
        /// TPMModel (2.23.133.2.2).
        var model: String
        /// TPMVersion (2.23.133.2.3), "id:" and the firmware version in hex.
        var version: String
        /// The vendor's name when ``manufacturer`` is a registered TPM vendor.
        var manufacturerName: String? { TPMManufacturer.name(forID: manufacturer) }
    }

    /// §8.3.1 TPM Attestation Statement Certificate Requirements.
    /// - Returns: the TPM manufacturer, model and version from the Subject Alternative Name.
    @discardableResult
    static func checkCertificateRequirements(_ cert: Certificate, format: String) throws(WebAuthnError) -> DeviceAttributes {
        // "Version MUST be set to 3."
        guard cert.version == 3 else {
            throw AttestationContext.failure(format, "aikCert version is \(cert.version), not 3")
        }
        // "Subject field MUST be set to empty."
        guard cert.subject.isEmpty else {
            throw AttestationContext.failure(format, "aikCert subject is not empty: \(cert.subject)")
        }
        // "The Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile] section 3.2.9."
        // There: a directoryName holding TPMManufacturer, TPMModel and TPMVersion.
        let device = try deviceAttributes(cert, format: format)
        // The profile's TPMManufacturer is "id:" and the eight hex digits of TPM_PT_MANUFACTURER.
        guard TPMManufacturer.isWellFormed(device.manufacturer) else {
            throw AttestationContext.failure(
                format,
                "aikCert TPMManufacturer \"\(device.manufacturer)\" is not \"id:\" and eight hex digits")
        }
        // "The Extended Key Usage extension MUST contain the OID 2.23.133.8.3 ("joint-iso-itu-t(2)
        // internationalorganizations(23) 133 tcg-kp(8) tcg-kp-AIKCertificate(3))."
        guard let purposes = cert.extendedKeyUsage else {
            throw AttestationContext.failure(format, "aikCert has no Extended Key Usage extension")
        }
        guard purposes.contains(aikCertificateKeyPurposeOID) else {
            throw AttestationContext.failure(
                format,
                "aikCert Extended Key Usage lacks tcg-kp-AIKCertificate (\(aikCertificateKeyPurposeOID))")
        }
        // "The Basic Constraints extension MUST have the CA component set to false."
        guard let constraints = cert.basicConstraints else {
            throw AttestationContext.failure(format, "aikCert has no Basic Constraints extension")
        }
        guard !constraints.isCA else {
            throw AttestationContext.failure(format, "aikCert Basic Constraints has CA=true")
        }
        return device
    }

    /// Reads TPMManufacturer, TPMModel and TPMVersion from one directoryName of the Subject
    /// Alternative Name. The attributes may sit in one multi-valued RDN or one RDN each.
    static func deviceAttributes(_ cert: Certificate, format: String) throws(WebAuthnError) -> DeviceAttributes {
        guard let san = cert.extension(oid: CertificateExtension.subjectAlternativeNameOID) else {
            throw AttestationContext.failure(format, "aikCert has no Subject Alternative Name extension")
        }
        // TPMv2-EK-Profile §3.2.9 follows RFC 5280 §4.2.1.6: with an empty subject the identity is
        // in the SAN alone, and "the subjectAltName extension MUST be marked critical". (The
        // subject was checked to be empty before this is called.)
        guard san.isCritical else {
            throw AttestationContext.failure(
                format,
                "aikCert subject is empty but its Subject Alternative Name extension is not marked critical")
        }
        let directoryNames = cert.subjectAlternativeNames.compactMap { name -> DistinguishedName? in
            if case .directoryName(let directory) = name { return directory }
            return nil
        }
        guard !directoryNames.isEmpty else {
            throw AttestationContext.failure(format, "aikCert Subject Alternative Name has no directoryName")
        }
        var missing: [String] = []
        for directory in directoryNames {
            let manufacturer = directory.value(for: DistinguishedName.tpmManufacturerOID)
            let model = directory.value(for: DistinguishedName.tpmModelOID)
            let version = directory.value(for: DistinguishedName.tpmVersionOID)
            if let manufacturer, let model, let version {
                return DeviceAttributes(manufacturer: manufacturer, model: model, version: version)
            }
            missing = []
            if manufacturer == nil { missing.append("TPMManufacturer (\(DistinguishedName.tpmManufacturerOID))") }
            if model == nil { missing.append("TPMModel (\(DistinguishedName.tpmModelOID))") }
            if version == nil { missing.append("TPMVersion (\(DistinguishedName.tpmVersionOID))") }
        }
        throw AttestationContext.failure(
            format,
            "aikCert Subject Alternative Name directoryName lacks \(missing.joined(separator: ", "))")
    }

    static func hex<T: FixedWidthInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, MemoryLayout<T>.size * 2 - digits.count)) + digits
    }
}
