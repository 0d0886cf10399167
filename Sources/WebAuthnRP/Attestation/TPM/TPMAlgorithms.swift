// TPM 2.0 algorithm identifiers (TCG TPM 2.0 Library, Part 2, TPM_ALG_ID and TPM_ECC_CURVE) and
// the parameter pieces of a pubArea (symmetric definition, scheme) that name them.

/// A hash algorithm that a TPM object may use as its Name algorithm (`nameAlg`).
///
/// The raw value is the TPM_ALG_ID. The verifier hashes with WebAuthnCrypto's digests; this type
/// only says which digest and how long it is.
enum TPMHashAlgorithm: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// TPM_ALG_SHA1.
    case sha1 = 0x0004
    /// TPM_ALG_SHA256.
    case sha256 = 0x000B
    /// TPM_ALG_SHA384.
    case sha384 = 0x000C
    /// TPM_ALG_SHA512.
    case sha512 = 0x000D

    /// The TPM_ALG_ID as it appears on the wire.
    var tpmAlgID: UInt16 { rawValue }

    /// The digest length in bytes.
    var digestSize: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// `SHA-1`, `SHA-256`, `SHA-384` or `SHA-512`.
    var description: String {
        switch self {
        case .sha1: return "SHA-1"
        case .sha256: return "SHA-256"
        case .sha384: return "SHA-384"
        case .sha512: return "SHA-512"
        }
    }
}

/// The public-key types a `pubArea` may hold. The raw value is the TPM_ALG_ID.
enum TPMKeyType: UInt16, Sendable, Hashable, CaseIterable {
    /// TPM_ALG_RSA.
    case rsa = 0x0001
    /// TPM_ALG_ECC.
    case ecc = 0x0023
}

/// The elliptic curves a `pubArea` may name. The raw value is the TPM_ECC_CURVE.
enum TPMECCCurve: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// TPM_ECC_NIST_P256.
    case p256 = 0x0003
    /// TPM_ECC_NIST_P384.
    case p384 = 0x0004
    /// TPM_ECC_NIST_P521.
    case p521 = 0x0005

    /// The byte length of a field element (one coordinate) on this curve.
    var coordinateSize: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }

    /// `P-256`, `P-384` or `P-521`.
    var description: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        }
    }
}

/// TPM_ALG_ID values that select union members inside the structures below.
enum TPMAlgorithmID {
    static let null: UInt16 = 0x0010
    // Symmetric block ciphers (TPMI_ALG_SYM_OBJECT).
    static let aes: UInt16 = 0x0006
    static let sm4: UInt16 = 0x0013
    static let camellia: UInt16 = 0x0026
    // Asymmetric schemes.
    static let rsassa: UInt16 = 0x0014
    static let rsaes: UInt16 = 0x0015
    static let rsapss: UInt16 = 0x0016
    static let oaep: UInt16 = 0x0017
    static let ecdsa: UInt16 = 0x0018
    static let ecdh: UInt16 = 0x0019
    static let ecdaa: UInt16 = 0x001A
    static let sm2: UInt16 = 0x001B
    static let ecschnorr: UInt16 = 0x001C
    static let ecmqv: UInt16 = 0x001D
    // Key derivation functions (TPMI_ALG_KDF).
    static let mgf1: UInt16 = 0x0007
    static let kdf1SP800_56A: UInt16 = 0x0020
    static let kdf2: UInt16 = 0x0021
    static let kdf1SP800_108: UInt16 = 0x0022
}

/// A TPMT_SYM_DEF_OBJECT that is not TPM_ALG_NULL: the symmetric cipher of a storage key.
/// (A `nil` where one is expected means the structure said TPM_ALG_NULL.)
package struct TPMSymmetricDefinition: Sendable, Hashable {
    /// The cipher's TPM_ALG_ID (AES, SM4 or Camellia).
    package var algorithm: UInt16
    /// The key size in bits.
    package var keyBits: UInt16
    /// The block-cipher mode's TPM_ALG_ID.
    package var mode: UInt16

    /// Creates a symmetric definition from its wire fields.
    /// - Parameters:
    ///   - algorithm: the cipher's TPM_ALG_ID.
    ///   - keyBits: the key size in bits.
    ///   - mode: the mode's TPM_ALG_ID.
    package init(algorithm: UInt16, keyBits: UInt16, mode: UInt16) {
        self.algorithm = algorithm
        self.keyBits = keyBits
        self.mode = mode
    }
}

/// A scheme that is not TPM_ALG_NULL: a TPMT_RSA_SCHEME, TPMT_ECC_SCHEME or TPMT_KDF_SCHEME.
/// (A `nil` where one is expected means the structure said TPM_ALG_NULL.)
package struct TPMScheme: Sendable, Hashable {
    /// The scheme's TPM_ALG_ID, for example TPM_ALG_RSASSA (0x0014) or TPM_ALG_ECDSA (0x0018).
    package var scheme: UInt16
    /// The scheme's hash TPM_ALG_ID; `nil` for TPM_ALG_RSAES, whose details are empty.
    package var hashAlgorithm: UInt16?
    /// The commit count; present only for TPM_ALG_ECDAA.
    package var count: UInt16?

    /// Creates a scheme from its wire fields.
    /// - Parameters:
    ///   - scheme: the scheme's TPM_ALG_ID.
    ///   - hashAlgorithm: the hash TPM_ALG_ID, or `nil` for a scheme without details.
    ///   - count: the ECDAA commit count, or `nil` for any other scheme.
    package init(scheme: UInt16, hashAlgorithm: UInt16?, count: UInt16? = nil) {
        self.scheme = scheme
        self.hashAlgorithm = hashAlgorithm
        self.count = count
    }
}
