// `pubArea` (TPMT_PUBLIC), the key the TPM certified: parsed only; §8.3 checks live in
// TPMAttestation.swift and TPMPublicAreaChecks.swift.

/// A parsed `pubArea`: the TPMT_PUBLIC describing the credential key the TPM certified.
struct TPMPublicArea: Sendable, Hashable {
    /// The RSA half of a TPMT_PUBLIC: TPMS_RSA_PARMS and the TPM2B_PUBLIC_KEY_RSA.
    struct RSAParameters: Sendable, Hashable {
        /// The symmetric definition; `nil` for TPM_ALG_NULL (the usual value for a signing key).
        let symmetric: TPMSymmetricDefinition?
        /// The RSA scheme; `nil` for TPM_ALG_NULL.
        let scheme: TPMScheme?
        /// The modulus size in bits, as the structure declares it.
        let keyBits: UInt16
        /// The public exponent, with the wire value 0 already replaced by 65537 (its meaning).
        let exponent: UInt32
        /// The modulus `n`, big-endian, exactly as the structure carries it.
        let modulus: ArraySlice<UInt8>
    }

    /// The ECC half of a TPMT_PUBLIC: TPMS_ECC_PARMS and the TPMS_ECC_POINT.
    struct ECCParameters: Sendable, Hashable {
        /// The symmetric definition; `nil` for TPM_ALG_NULL (the usual value for a signing key).
        let symmetric: TPMSymmetricDefinition?
        /// The ECC scheme; `nil` for TPM_ALG_NULL.
        let scheme: TPMScheme?
        /// The curve.
        let curve: TPMECCCurve
        /// The key derivation function; `nil` for TPM_ALG_NULL.
        let kdf: TPMScheme?
        /// The x coordinate, big-endian, exactly as the structure carries it.
        let x: ArraySlice<UInt8>
        /// The y coordinate, big-endian, exactly as the structure carries it.
        let y: ArraySlice<UInt8>
    }

    /// The type-specific part of the structure.
    enum Parameters: Sendable, Hashable {
        /// An RSA key (TPM_ALG_RSA).
        case rsa(RSAParameters)
        /// An elliptic-curve key (TPM_ALG_ECC).
        case ecc(ECCParameters)

        /// The symmetric definition, which both kinds carry first.
        var symmetric: TPMSymmetricDefinition? {
            switch self {
            case .rsa(let rsa): rsa.symmetric
            case .ecc(let ecc): ecc.symmetric
            }
        }

        /// The signing scheme, which both kinds carry after the symmetric definition.
        var scheme: TPMScheme? {
            switch self {
            case .rsa(let rsa): rsa.scheme
            case .ecc(let ecc): ecc.scheme
            }
        }
    }

    /// The Name algorithm (`nameAlg`): the hash of this structure, prefixed by this
    /// algorithm's identifier, is the object's Name.
    let nameAlgorithm: TPMHashAlgorithm
    /// The TPMA_OBJECT attribute bits.
    let objectAttributes: UInt32
    /// The authorization policy digest (often empty).
    let authPolicy: ArraySlice<UInt8>
    /// The key type's parameters and public key.
    let parameters: Parameters
    /// The exact bytes parsed; the object's Name is computed over them.
    let rawBytes: ArraySlice<UInt8>

    /// The key type.
    var type: TPMKeyType {
        switch parameters {
        case .rsa: return .rsa
        case .ecc: return .ecc
        }
    }

    /// The RSA parameters, or `nil` for an ECC key.
    var rsa: RSAParameters? {
        if case .rsa(let value) = parameters { return value }
        return nil
    }

    /// The ECC parameters, or `nil` for an RSA key.
    var ecc: ECCParameters? {
        if case .ecc(let value) = parameters { return value }
        return nil
    }

    /// The object's Name given the `nameAlg` digest of `rawBytes` (computed by the caller):
    /// the algorithm identifier, big-endian, followed by the digest (TPM 2.0 Part 1, "Names").
    /// - Parameter digest: the `nameAlgorithm` hash of `rawBytes`.
    /// - Returns: the Name bytes, comparable with `TPMCertifyInfo.name.bytes`.
    func name(withDigest digest: some Sequence<UInt8>) -> [UInt8] {
        var result = TPMWriter.bigEndian(nameAlgorithm.tpmAlgID)
        result.append(contentsOf: digest)
        return result
    }

    /// Parses a `pubArea`. The whole input must be one TPMT_PUBLIC.
    /// - Parameter bytes: the `pubArea` byte string from the attestation statement.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    init(parsing bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, structure: "pubArea")
        let typeID = try reader.read(UInt16.self, "type")
        guard let type = TPMKeyType(rawValue: typeID) else {
            throw tpmError("pubArea.type \(tpmHex(typeID)) is neither TPM_ALG_RSA (0x0001) nor TPM_ALG_ECC (0x0023)")
        }
        let nameAlgID = try reader.read(UInt16.self, "nameAlg")
        guard let nameAlgorithm = TPMHashAlgorithm(rawValue: nameAlgID) else {
            throw tpmError("pubArea.nameAlg \(tpmHex(nameAlgID)) is not SHA-1, SHA-256, SHA-384 or SHA-512")
        }
        let objectAttributes = try reader.read(UInt32.self, "objectAttributes")
        let authPolicy = try reader.sized("authPolicy", maximum: TPMLimits.digest)

        switch type {
        case .rsa:
            let symmetric = try reader.symmetricDefinition("parameters.symmetric")
            let scheme = try reader.scheme("parameters.scheme", layout: TPMReader.rsaSchemeLayout)
            let keyBits = try reader.read(UInt16.self, "parameters.keyBits")
            let exponent = try reader.read(UInt32.self, "parameters.exponent")
            let modulus = try reader.sized("unique.rsa", maximum: Int(UInt16.max))
            parameters = .rsa(
                RSAParameters(
                    symmetric: symmetric, scheme: scheme, keyBits: keyBits,
                    exponent: exponent == 0 ? 65537 : exponent, modulus: modulus))
        case .ecc:
            let symmetric = try reader.symmetricDefinition("parameters.symmetric")
            let scheme = try reader.scheme("parameters.scheme", layout: TPMReader.eccSchemeLayout)
            let curveID = try reader.read(UInt16.self, "parameters.curveID")
            guard let curve = TPMECCCurve(rawValue: curveID) else {
                throw tpmError("pubArea.parameters.curveID \(tpmHex(curveID)) is not NIST P-256 (0x0003), P-384 (0x0004) or P-521 (0x0005)")
            }
            let kdf = try reader.scheme("parameters.kdf", layout: TPMReader.kdfSchemeLayout)
            let x = try reader.sized("unique.ecc.x", maximum: curve.coordinateSize)
            let y = try reader.sized("unique.ecc.y", maximum: curve.coordinateSize)
            parameters = .ecc(ECCParameters(symmetric: symmetric, scheme: scheme, curve: curve, kdf: kdf, x: x, y: y))
        }
        try reader.finish()
        self.nameAlgorithm = nameAlgorithm
        self.objectAttributes = objectAttributes
        self.authPolicy = authPolicy
        self.rawBytes = bytes
    }

    /// Parses a `pubArea` held in an array.
    /// - Parameter bytes: the `pubArea` byte string.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(parsing: bytes[...])
    }
}
