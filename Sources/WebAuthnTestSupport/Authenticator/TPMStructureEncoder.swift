import WebAuthnCrypto
package import WebAuthnRP

// MARK: - Test support: encoders

/// Builds TPM structures from their fields so tests can make valid and deliberately broken
/// `tpm` attestation statements. Sizes are written as given, truncated to 16 bits.
package enum TPMStructureEncoder {
    /// A TPM2B: the byte count as a big-endian UInt16, then the bytes.
    /// - Parameter bytes: the contents.
    /// - Returns: the encoded TPM2B.
    package static func sized(_ bytes: [UInt8]) -> [UInt8] {
        TPMWriter.bigEndian(UInt16(truncatingIfNeeded: bytes.count)) + bytes
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
        type: UInt16, nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        parameters: [UInt8], unique: [UInt8]
    ) -> [UInt8] {
        var out = TPMWriter.bigEndian(type)
        out += TPMWriter.bigEndian(nameAlg)
        out += TPMWriter.bigEndian(objectAttributes)
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
        nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
        keyBits: UInt16 = 2048, exponent: UInt32 = 0, modulus: [UInt8]
    ) -> [UInt8] {
        var parameters = encode(symmetric)
        parameters += encode(scheme)
        parameters += TPMWriter.bigEndian(keyBits)
        parameters += TPMWriter.bigEndian(exponent)
        return publicArea(
            type: TPMKeyType.rsa.rawValue, nameAlg: nameAlg, objectAttributes: objectAttributes,
            authPolicy: authPolicy, parameters: parameters, unique: sized(modulus))
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
        nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
        objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
        symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
        curveID: UInt16 = TPMECCCurve.p256.rawValue, kdf: TPMScheme? = nil,
        x: [UInt8], y: [UInt8]
    ) -> [UInt8] {
        var parameters = encode(symmetric)
        parameters += encode(scheme)
        parameters += TPMWriter.bigEndian(curveID)
        parameters += encode(kdf)
        return publicArea(
            type: TPMKeyType.ecc.rawValue, nameAlg: nameAlg, objectAttributes: objectAttributes,
            authPolicy: authPolicy, parameters: parameters, unique: sized(x) + sized(y))
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
        magic: UInt32 = TPMAttest.generatedValue, type: UInt16 = TPMAttest.attestCertifyType,
        qualifiedSigner: [UInt8] = [], extraData: [UInt8], clock: UInt64 = 0,
        resetCount: UInt32 = 0, restartCount: UInt32 = 0, safe: UInt8 = 1,
        firmwareVersion: UInt64 = 0, attested: [UInt8]
    ) -> [UInt8] {
        var out = TPMWriter.bigEndian(magic)
        out += TPMWriter.bigEndian(type)
        out += sized(qualifiedSigner)
        out += sized(extraData)
        out += TPMWriter.bigEndian(clock)
        out += TPMWriter.bigEndian(resetCount)
        out += TPMWriter.bigEndian(restartCount)
        out.append(safe)
        out += TPMWriter.bigEndian(firmwareVersion)
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
        magic: UInt32 = TPMAttest.generatedValue,
        type: UInt16 = TPMAttest.attestCertifyType, qualifiedSigner: [UInt8] = [],
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
        guard let symmetric else { return TPMWriter.bigEndian(TPMAlgorithmID.null) }
        return TPMWriter.bigEndian(symmetric.algorithm) + TPMWriter.bigEndian(symmetric.keyBits)
            + TPMWriter.bigEndian(symmetric.mode)
    }

    private static func encode(_ scheme: TPMScheme?) -> [UInt8] {
        guard let scheme else { return TPMWriter.bigEndian(TPMAlgorithmID.null) }
        var out = TPMWriter.bigEndian(scheme.scheme)
        if let hash = scheme.hashAlgorithm { out += TPMWriter.bigEndian(hash) }
        if let count = scheme.count { out += TPMWriter.bigEndian(count) }
        return out
    }
}
