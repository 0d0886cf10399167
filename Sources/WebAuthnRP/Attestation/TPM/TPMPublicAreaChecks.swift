import WebAuthnCrypto

// §8.3: "Verify that the public key specified by the parameters and unique fields of pubArea is
// identical to the credentialPublicKey". Before the key in `unique` can be compared, the
// parameters must describe that key: a pubArea whose parameters say one thing and whose unique
// field another (keyBits 1024 over a 2048-bit modulus, a P-384 curveID over 32-byte
// coordinates) does not specify one key, and a TPM never makes one. The rules are those of TPM
// 2.0 Part 2 (Structures) for TPMS_RSA_PARMS, TPMS_ECC_PARMS and TPMT_PUBLIC, applied to a
// signing key; every broken rule is `attestation`.
//
// Every recorded TPM (Infineon, Intel, Nuvoton and STMicroelectronics parts in Windows Hello,
// FIDO conformance tools, the W3C L3 vector) sends symmetric, scheme and kdf TPM_ALG_NULL, a
// modulus of exactly keyBits bits, exponent 0 and coordinates of the curve's full size.

extension TPMAttestation {
    /// TPMA_OBJECT restricted (bit 16).
    static let objectRestricted: UInt32 = 1 << 16
    /// TPMA_OBJECT decrypt (bit 17).
    static let objectDecrypt: UInt32 = 1 << 17

    /// Checks that `pubArea`'s parameters agree with its unique field and allow the credential's
    /// signatures.
    /// - Parameters:
    ///   - pubArea: the parsed pubArea.
    ///   - algorithm: the credential key's COSE algorithm.
    ///   - format: the format identifier, for messages.
    static func checkParameters(
        _ pubArea: TPMPublicArea, algorithm: COSEAlgorithm,
        format: String
    ) throws(WebAuthnError) {
        // TPMS_RSA_PARMS / TPMS_ECC_PARMS symmetric: "If the key is not a restricted decryption
        // key, this field shall be set to TPM_ALG_NULL."
        let restrictedDecryption =
            pubArea.objectAttributes & (objectRestricted | objectDecrypt)
            == objectRestricted | objectDecrypt
        if let symmetric = pubArea.parameters.symmetric, !restrictedDecryption {
            throw AttestationContext.failure(
                format,
                "pubArea.parameters.symmetric is \(hex(symmetric.algorithm)), not TPM_ALG_NULL, for a key that is not a restricted decryption key"
            )
        }
        try checkScheme(pubArea.parameters.scheme, algorithm: algorithm, format: format)
        switch pubArea.parameters {
        case .rsa(let rsa):
            // keyBits is the modulus size: the unique field holds exactly keyBits / 8 bytes, the
            // top bit set (a TPM writes the modulus at its full size).
            guard rsa.modulus.count * 8 == Int(rsa.keyBits), bitLength(rsa.modulus) == Int(rsa.keyBits) else {
                throw AttestationContext.failure(
                    format,
                    "pubArea.parameters.keyBits is \(rsa.keyBits) but unique.rsa is a \(bitLength(rsa.modulus))-bit modulus in \(rsa.modulus.count) bytes"
                )
            }
            // exponent: "the public exponent. A prime number greater than 2." (0 means 2^16 + 1
            // and was replaced when parsing.) Primality is not tested; an exponent of 1 or an
            // even one cannot be prime.
            guard rsa.exponent > 2, rsa.exponent % 2 == 1 else {
                throw AttestationContext.failure(
                    format,
                    "pubArea.parameters.exponent is \(rsa.exponent), not a prime greater than 2")
            }
        case .ecc(let ecc):
            // kdf: the NIST curves define their own KDF, so this field must be TPM_ALG_NULL
            // ("If the kdf parameter associated with curveID is not TPM_ALG_NULL then this is
            // required to be NULL").
            if let kdf = ecc.kdf {
                throw AttestationContext.failure(
                    format,
                    "pubArea.parameters.kdf is \(hex(kdf.scheme)), not TPM_ALG_NULL, for curve \(ecc.curve)")
            }
            // The point's coordinates are field elements of curveID, written at the curve's size.
            let size = ecc.curve.coordinateSize
            guard ecc.x.count == size, ecc.y.count == size else {
                throw AttestationContext.failure(
                    format,
                    "pubArea.parameters.curveID is \(ecc.curve) (\(size)-byte coordinates) but unique.ecc has x of \(ecc.x.count) and y of \(ecc.y.count) bytes"
                )
            }
        }
    }

    /// A scheme other than TPM_ALG_NULL fixes how the key may sign: it must be the signing
    /// scheme of the credential's algorithm (RSASSA for RS*, RSASSA-PSS for PS*, ECDSA for ES*),
    /// with the same hash. A decryption or key-exchange scheme (RSAES, OAEP, ECDH, ECMQV) on the
    /// credential key, or a scheme whose signatures the credential algorithm does not make,
    /// contradicts the key's use.
    static func checkScheme(_ scheme: TPMScheme?, algorithm: COSEAlgorithm, format: String) throws(WebAuthnError) {
        guard let scheme else { return }
        let expected: UInt16?
        switch algorithm {
        case .rs1, .rs256, .rs384, .rs512: expected = TPMAlgorithmID.rsassa
        case .ps256, .ps384, .ps512: expected = TPMAlgorithmID.rsapss
        case .es256, .es384, .es512, .esp256, .esp384, .esp512: expected = TPMAlgorithmID.ecdsa
        default: expected = nil
        }
        guard scheme.scheme == expected else {
            throw AttestationContext.failure(
                format,
                "pubArea.parameters.scheme is \(hex(scheme.scheme)), not TPM_ALG_NULL or the signing scheme of the credential's \(algorithm)"
            )
        }
        let hash: TPMHashAlgorithm?
        switch algorithm {
        case .rs1: hash = .sha1
        case .rs256, .ps256, .es256, .esp256: hash = .sha256
        case .rs384, .ps384, .es384, .esp384: hash = .sha384
        case .rs512, .ps512, .es512, .esp512: hash = .sha512
        default: hash = nil
        }
        guard let hash, scheme.hashAlgorithm == hash.tpmAlgID else {
            throw AttestationContext.failure(
                format,
                "pubArea.parameters.scheme hash is \(scheme.hashAlgorithm.map { hex($0) } ?? "absent"), not the hash of the credential's \(algorithm)"
            )
        }
    }

    /// The bit length of an unsigned big-endian integer (leading zero bytes and bits not counted).
    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return bytes.distance(from: first, to: bytes.endIndex) * 8 - bytes[first].leadingZeroBitCount
    }
}
