import WebAuthnCrypto
package import WebAuthnRP

// MARK: - Test support: encoders

/// Builds TPM structures from their fields so tests can make valid and deliberately broken
/// `tpm` attestation statements. Sizes are written as given, truncated to 16 bits.
package enum TPMStructureEncoder {
    // TCG TPM 2.0 Library Part 2 values, written out here rather than taken from the verifier's
    // own tables, so that a wrong constant there fails the tests instead of agreeing with them.
    // (A default argument of a package function names its literal: TPM_ALG_SHA256 0x000B,
    // TPM_ECC_NIST_P256 0x0003, TPM_GENERATED_VALUE 0xFF544347, TPM_ST_ATTEST_CERTIFY 0x8017.)
    /// TPM_ALG_SHA256.
    static let algSHA256: UInt16 = 0x000B
    /// TPM_ALG_RSA.
    static let algRSA: UInt16 = 0x0001
    /// TPM_ALG_ECC.
    static let algECC: UInt16 = 0x0023
    /// TPM_ALG_NULL.
    static let algNull: UInt16 = 0x0010
    /// TPM_ECC_NIST_P256, P384 and P521.
    static let curveP256: UInt16 = 0x0003
    static let curveP384: UInt16 = 0x0004
    static let curveP521: UInt16 = 0x0005

    /// An integer's bytes, most significant first, as every TPM structure writes them.
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    /// A TPM2B: the byte count as a big-endian UInt16, then the bytes.
    /// - Parameter bytes: the contents.
    /// - Returns: the encoded TPM2B.
    package static func sized(_ bytes: [UInt8]) -> [UInt8] {
        bigEndian(UInt16(truncatingIfNeeded: bytes.count)) + bytes
    }

    /// A TPMT_PUBLIC from raw parts, for types and layouts the parser must refuse.
    /// - Parameters:
    ///   - type: the TPM_ALG_ID of the key type.
    ///   - nameAlg: the Name algorithm's TPM_ALG_ID.
    ///   - objectAttributes: the TPMA_OBJECT bits.
    ///   - authPolicy: the policy digest.
    ///   - parameters: the already-encoded parameters.
    ///   - unique: the already-encoded unique field.
    /// - Returns: the encoded structure.
    package static func publicArea(
        type: UInt16, nameAlg: UInt16 = 0x000B,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        parameters: [UInt8], unique: [UInt8]
    ) -> [UInt8] {
        var out = bigEndian(type)
        out += bigEndian(nameAlg)
        out += bigEndian(objectAttributes)
        out += sized(authPolicy)
        out += parameters
        out += unique
        return out
    }

    /// An RSA TPMT_PUBLIC.
    /// - Parameters:
    ///   - nameAlg: the Name algorithm's TPM_ALG_ID.
    ///   - objectAttributes: the TPMA_OBJECT bits.
    ///   - authPolicy: the policy digest.
    ///   - symmetric: the symmetric definition, `nil` for TPM_ALG_NULL.
    ///   - scheme: the RSA scheme, `nil` for TPM_ALG_NULL.
    ///   - keyBits: the declared modulus size.
    ///   - exponent: the exponent as written (0 means 65537).
    ///   - modulus: the modulus bytes.
    /// - Returns: the encoded structure.
    package static func rsaPublicArea(
        nameAlg: UInt16 = 0x000B,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
        keyBits: UInt16 = 2048, exponent: UInt32 = 0, modulus: [UInt8]
    ) -> [UInt8] {
        keyPublicArea(
            type: algRSA, nameAlg: nameAlg, objectAttributes: objectAttributes, authPolicy: authPolicy,
            symmetric: symmetric, scheme: scheme, details: bigEndian(keyBits) + bigEndian(exponent),
            unique: sized(modulus))
    }

    /// An ECC TPMT_PUBLIC.
    /// - Parameters:
    ///   - nameAlg: the Name algorithm's TPM_ALG_ID.
    ///   - objectAttributes: the TPMA_OBJECT bits.
    ///   - authPolicy: the policy digest.
    ///   - symmetric: the symmetric definition, `nil` for TPM_ALG_NULL.
    ///   - scheme: the ECC scheme, `nil` for TPM_ALG_NULL.
    ///   - curveID: the TPM_ECC_CURVE.
    ///   - kdf: the KDF scheme, `nil` for TPM_ALG_NULL.
    ///   - x: the x coordinate.
    ///   - y: the y coordinate.
    /// - Returns: the encoded structure.
    package static func eccPublicArea(
        nameAlg: UInt16 = 0x000B,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
        curveID: UInt16 = 0x0003, kdf: TPMScheme? = nil,
        x: [UInt8], y: [UInt8]
    ) -> [UInt8] {
        keyPublicArea(
            type: algECC, nameAlg: nameAlg, objectAttributes: objectAttributes, authPolicy: authPolicy,
            symmetric: symmetric, scheme: scheme, details: bigEndian(curveID) + encode(kdf),
            unique: sized(x) + sized(y))
    }

    /// An RSA or ECC TPMT_PUBLIC: the symmetric definition and scheme every asymmetric key's
    /// parameters start with, then the type's own `details`.
    private static func keyPublicArea(
        type: UInt16, nameAlg: UInt16, objectAttributes: UInt32, authPolicy: [UInt8],
        symmetric: TPMSymmetricDefinition?, scheme: TPMScheme?, details: [UInt8], unique: [UInt8]
    ) -> [UInt8] {
        publicArea(
            type: type, nameAlg: nameAlg, objectAttributes: objectAttributes, authPolicy: authPolicy,
            parameters: encode(symmetric) + encode(scheme) + details, unique: unique)
    }

    /// A TPMS_ATTEST with an already-encoded `attested` body.
    /// - Parameters:
    ///   - magic: the magic value.
    ///   - type: the TPM_ST type.
    ///   - qualifiedSigner: the signer's Qualified Name.
    ///   - extraData: the extra data (for WebAuthn, the hash of `attToBeSigned`).
    ///   - clock: clockInfo.clock.
    ///   - resetCount: clockInfo.resetCount.
    ///   - restartCount: clockInfo.restartCount.
    ///   - safe: clockInfo.safe as written (0 or 1 when valid).
    ///   - firmwareVersion: the firmware version.
    ///   - attested: the encoded body.
    /// - Returns: the encoded structure.
    package static func attest(
        magic: UInt32 = 0xFF54_4347, type: UInt16 = 0x8017,
        qualifiedSigner: [UInt8] = [], extraData: [UInt8], clock: UInt64 = 0,
        resetCount: UInt32 = 0, restartCount: UInt32 = 0, safe: UInt8 = 1,
        firmwareVersion: UInt64 = 0, attested: [UInt8]
    ) -> [UInt8] {
        var out = bigEndian(magic)
        out += bigEndian(type)
        out += sized(qualifiedSigner)
        out += sized(extraData)
        out += bigEndian(clock)
        out += bigEndian(resetCount)
        out += bigEndian(restartCount)
        out.append(safe)
        out += bigEndian(firmwareVersion)
        out += attested
        return out
    }

    /// A certify TPMS_ATTEST: `attest(…)` with a TPMS_CERTIFY_INFO body.
    /// - Parameters:
    ///   - magic: the magic value.
    ///   - type: the TPM_ST type.
    ///   - qualifiedSigner: the signer's Qualified Name.
    ///   - extraData: the extra data.
    ///   - clock: clockInfo.clock.
    ///   - resetCount: clockInfo.resetCount.
    ///   - restartCount: clockInfo.restartCount.
    ///   - safe: clockInfo.safe as written.
    ///   - firmwareVersion: the firmware version.
    ///   - name: the certified object's Name (nameAlg + digest).
    ///   - qualifiedName: the certified object's Qualified Name.
    /// - Returns: the encoded structure.
    package static func certifyAttest(
        magic: UInt32 = 0xFF54_4347,
        type: UInt16 = 0x8017, qualifiedSigner: [UInt8] = [],
        extraData: [UInt8], clock: UInt64 = 0, resetCount: UInt32 = 0,
        restartCount: UInt32 = 0, safe: UInt8 = 1, firmwareVersion: UInt64 = 0,
        name: [UInt8], qualifiedName: [UInt8] = []
    ) -> [UInt8] {
        attest(
            magic: magic, type: type, qualifiedSigner: qualifiedSigner, extraData: extraData, clock: clock,
            resetCount: resetCount, restartCount: restartCount, safe: safe, firmwareVersion: firmwareVersion,
            attested: sized(name) + sized(qualifiedName))
    }

    /// fixedTPM | fixedParent | sensitiveDataOrigin | userWithAuth | noDA | sign: a typical
    /// attestation-key object.
    package static let defaultObjectAttributes: UInt32 = 0x0004_0472

    private static func encode(_ symmetric: TPMSymmetricDefinition?) -> [UInt8] {
        guard let symmetric else { return bigEndian(algNull) }
        return bigEndian(symmetric.algorithm) + bigEndian(symmetric.keyBits)
            + bigEndian(symmetric.mode)
    }

    private static func encode(_ scheme: TPMScheme?) -> [UInt8] {
        guard let scheme else { return bigEndian(algNull) }
        var out = bigEndian(scheme.scheme)
        if let hash = scheme.hashAlgorithm { out += bigEndian(hash) }
        if let count = scheme.count { out += bigEndian(count) }
        return out
    }
}
