// The two TPM 2.0 structures a WebAuthn `tpm` attestation statement carries (W3C WebAuthn L3
// §8.3): `pubArea`, a TPMT_PUBLIC, and `certInfo`, a TPMS_ATTEST (TCG TPM 2.0 Library, Part 2:
// Structures). Both are big-endian. A TPM2B is a UInt16 byte count followed by that many bytes.
//
// This file only parses. It does no hashing and builds no keys; the `tpm` verifier hashes with
// WebAuthnCrypto and decides whether the values are acceptable (magic, type, extraData, Name).
// What is rejected here is input that cannot be a TPM structure at all: a short read, a size
// beyond what is left or beyond the type's maximum, a union selector with no defined layout,
// or bytes left over. Every failure is `WebAuthnError(.attestation, "tpm: …")`: a statement
// whose structures do not parse does not verify.
//
// This file holds the byte reader every TPM structure parser uses, with its size limits.

/// Largest sizes Part 2 allows for the fixed-maximum TPM2B types (with SHA-512 as the largest
/// digest): TPM2B_DIGEST holds a TPMU_HA, TPM2B_DATA and TPM2B_NAME a TPMT_HA (2 + 64).
enum TPMLimits {
    static let digest = 64
    static let data = 66
    static let name = 66
}

func tpmError(_ message: String) -> WebAuthnError {
    WebAuthnError(.attestation, "tpm: \(message)")
}

func tpmHex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// A big-endian cursor over one TPM structure. Every read checks what is left first.
struct TPMReader {
    /// How a union selected by a scheme identifier continues.
    enum SchemeDetails {
        /// TPMS_EMPTY: nothing follows.
        case empty
        /// TPMS_SCHEME_HASH: a hash TPM_ALG_ID follows.
        case hash
        /// TPMS_SCHEME_ECDAA: a hash TPM_ALG_ID and a UInt16 count follow.
        case hashAndCount
    }

    /// TPMI_ALG_RSA_SCHEME members.
    static let rsaSchemeLayout: [UInt16: SchemeDetails] = [
        TPMAlgorithmID.rsassa: .hash, TPMAlgorithmID.rsapss: .hash,
        TPMAlgorithmID.oaep: .hash, TPMAlgorithmID.rsaes: .empty,
    ]
    /// TPMI_ALG_ECC_SCHEME members.
    static let eccSchemeLayout: [UInt16: SchemeDetails] = [
        TPMAlgorithmID.ecdsa: .hash, TPMAlgorithmID.ecdh: .hash, TPMAlgorithmID.sm2: .hash,
        TPMAlgorithmID.ecschnorr: .hash, TPMAlgorithmID.ecmqv: .hash, TPMAlgorithmID.ecdaa: .hashAndCount,
    ]
    /// TPMI_ALG_KDF members.
    static let kdfSchemeLayout: [UInt16: SchemeDetails] = [
        TPMAlgorithmID.mgf1: .hash, TPMAlgorithmID.kdf1SP800_56A: .hash,
        TPMAlgorithmID.kdf2: .hash, TPMAlgorithmID.kdf1SP800_108: .hash,
    ]
    /// TPMI_ALG_SYM_OBJECT members other than TPM_ALG_NULL.
    static let symmetricObjectAlgorithms: Set<UInt16> = [
        TPMAlgorithmID.aes, TPMAlgorithmID.sm4, TPMAlgorithmID.camellia,
    ]

    private(set) var remaining: ArraySlice<UInt8>
    private let structure: String

    init(_ bytes: ArraySlice<UInt8>, structure: String) {
        remaining = bytes
        self.structure = structure
    }

    mutating func read<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ field: String) throws(WebAuthnError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining.count >= size else {
            throw tpmError("\(structure).\(field) is truncated: needs \(size) bytes, \(remaining.count) left")
        }
        var value: T = 0
        for byte in remaining.prefix(size) {
            value = value << 8 | T(byte)
        }
        remaining = remaining.dropFirst(size)
        return value
    }

    /// A TPM2B: UInt16 size, then that many bytes, at most `maximum`.
    mutating func sized(_ field: String, maximum: Int) throws(WebAuthnError) -> ArraySlice<UInt8> {
        let size = Int(try read(UInt16.self, "\(field).size"))
        guard size <= maximum else {
            throw tpmError("\(structure).\(field).size \(size) exceeds the largest allowed, \(maximum)")
        }
        guard size <= remaining.count else {
            throw tpmError("\(structure).\(field).size \(size) exceeds the \(remaining.count) bytes left")
        }
        let value = remaining.prefix(size)
        remaining = remaining.dropFirst(size)
        return value
    }

    /// TPMT_SYM_DEF_OBJECT: `nil` for TPM_ALG_NULL.
    mutating func symmetricDefinition(_ field: String) throws(WebAuthnError) -> TPMSymmetricDefinition? {
        let algorithm = try read(UInt16.self, "\(field).algorithm")
        if algorithm == TPMAlgorithmID.null { return nil }
        guard Self.symmetricObjectAlgorithms.contains(algorithm) else {
            throw tpmError("\(structure).\(field).algorithm \(tpmHex(algorithm)) is not a symmetric object algorithm")
        }
        let keyBits = try read(UInt16.self, "\(field).keyBits")
        let mode = try read(UInt16.self, "\(field).mode")
        return TPMSymmetricDefinition(algorithm: algorithm, keyBits: keyBits, mode: mode)
    }

    /// A scheme selector and its details: `nil` for TPM_ALG_NULL.
    mutating func scheme(_ field: String, layout: [UInt16: SchemeDetails]) throws(WebAuthnError) -> TPMScheme? {
        let scheme = try read(UInt16.self, "\(field).scheme")
        if scheme == TPMAlgorithmID.null { return nil }
        guard let details = layout[scheme] else {
            throw tpmError("\(structure).\(field).scheme \(tpmHex(scheme)) is not a scheme allowed here")
        }
        switch details {
        case .empty:
            return TPMScheme(scheme: scheme, hashAlgorithm: nil)
        case .hash:
            return TPMScheme(scheme: scheme, hashAlgorithm: try read(UInt16.self, "\(field).details.hashAlg"))
        case .hashAndCount:
            let hash = try read(UInt16.self, "\(field).details.hashAlg")
            let count = try read(UInt16.self, "\(field).details.count")
            return TPMScheme(scheme: scheme, hashAlgorithm: hash, count: count)
        }
    }

    /// Nothing may follow the structure.
    func finish() throws(WebAuthnError) {
        guard remaining.isEmpty else {
            throw tpmError("\(structure) has \(remaining.count) trailing bytes after the structure")
        }
    }
}

/// Big-endian integer bytes.
enum TPMWriter {
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        let size = MemoryLayout<T>.size
        return (0..<size).map { index in
            UInt8(truncatingIfNeeded: value >> ((size - 1 - index) * 8))
        }
    }
}
