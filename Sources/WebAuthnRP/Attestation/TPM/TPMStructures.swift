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

// MARK: - Algorithm identifiers

/// A hash algorithm that a TPM object may use as its Name algorithm (`nameAlg`).
///
/// The raw value is the TPM_ALG_ID. The verifier hashes with WebAuthnCrypto's digests; this type
/// only says which digest and how long it is.
public enum TPMHashAlgorithm: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// TPM_ALG_SHA1.
    case sha1 = 0x0004
    /// TPM_ALG_SHA256.
    case sha256 = 0x000B
    /// TPM_ALG_SHA384.
    case sha384 = 0x000C
    /// TPM_ALG_SHA512.
    case sha512 = 0x000D

    /// The TPM_ALG_ID as it appears on the wire.
    public var tpmAlgID: UInt16 { rawValue }

    /// The digest length in bytes.
    public var digestSize: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// `SHA-1`, `SHA-256`, `SHA-384` or `SHA-512`.
    public var description: String {
        switch self {
        case .sha1: return "SHA-1"
        case .sha256: return "SHA-256"
        case .sha384: return "SHA-384"
        case .sha512: return "SHA-512"
        }
    }
}

/// The public-key types a `pubArea` may hold. The raw value is the TPM_ALG_ID.
public enum TPMKeyType: UInt16, Sendable, Hashable, CaseIterable {
    /// TPM_ALG_RSA.
    case rsa = 0x0001
    /// TPM_ALG_ECC.
    case ecc = 0x0023
}

/// The elliptic curves a `pubArea` may name. The raw value is the TPM_ECC_CURVE.
public enum TPMECCCurve: UInt16, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// TPM_ECC_NIST_P256.
    case p256 = 0x0003
    /// TPM_ECC_NIST_P384.
    case p384 = 0x0004
    /// TPM_ECC_NIST_P521.
    case p521 = 0x0005

    /// The byte length of a field element (one coordinate) on this curve.
    public var coordinateSize: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }

    /// `P-256`, `P-384` or `P-521`.
    public var description: String {
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

// MARK: - Parameter pieces

/// A TPMT_SYM_DEF_OBJECT that is not TPM_ALG_NULL: the symmetric cipher of a storage key.
/// (A `nil` where one is expected means the structure said TPM_ALG_NULL.)
public struct TPMSymmetricDefinition: Sendable, Hashable {
    /// The cipher's TPM_ALG_ID (AES, SM4 or Camellia).
    public var algorithm: UInt16
    /// The key size in bits.
    public var keyBits: UInt16
    /// The block-cipher mode's TPM_ALG_ID.
    public var mode: UInt16

    /// Creates a symmetric definition from its wire fields.
    /// - Parameters:
    ///   - algorithm: the cipher's TPM_ALG_ID.
    ///   - keyBits: the key size in bits.
    ///   - mode: the mode's TPM_ALG_ID.
    public init(algorithm: UInt16, keyBits: UInt16, mode: UInt16) {
        self.algorithm = algorithm
        self.keyBits = keyBits
        self.mode = mode
    }
}

/// A scheme that is not TPM_ALG_NULL: a TPMT_RSA_SCHEME, TPMT_ECC_SCHEME or TPMT_KDF_SCHEME.
/// (A `nil` where one is expected means the structure said TPM_ALG_NULL.)
public struct TPMScheme: Sendable, Hashable {
    /// The scheme's TPM_ALG_ID, for example TPM_ALG_RSASSA (0x0014) or TPM_ALG_ECDSA (0x0018).
    public var scheme: UInt16
    /// The scheme's hash TPM_ALG_ID; `nil` for TPM_ALG_RSAES, whose details are empty.
    public var hashAlgorithm: UInt16?
    /// The commit count; present only for TPM_ALG_ECDAA.
    public var count: UInt16?

    /// Creates a scheme from its wire fields.
    /// - Parameters:
    ///   - scheme: the scheme's TPM_ALG_ID.
    ///   - hashAlgorithm: the hash TPM_ALG_ID, or `nil` for a scheme without details.
    ///   - count: the ECDAA commit count, or `nil` for any other scheme.
    public init(scheme: UInt16, hashAlgorithm: UInt16?, count: UInt16? = nil) {
        self.scheme = scheme
        self.hashAlgorithm = hashAlgorithm
        self.count = count
    }
}

// MARK: - pubArea (TPMT_PUBLIC)

/// A parsed `pubArea`: the TPMT_PUBLIC describing the credential key the TPM certified.
public struct TPMPublicArea: Sendable, Hashable {
    /// The RSA half of a TPMT_PUBLIC: TPMS_RSA_PARMS and the TPM2B_PUBLIC_KEY_RSA.
    public struct RSAParameters: Sendable, Hashable {
        /// The symmetric definition; `nil` for TPM_ALG_NULL (the usual value for a signing key).
        public let symmetric: TPMSymmetricDefinition?
        /// The RSA scheme; `nil` for TPM_ALG_NULL.
        public let scheme: TPMScheme?
        /// The modulus size in bits, as the structure declares it.
        public let keyBits: UInt16
        /// The public exponent, with the wire value 0 already replaced by 65537 (its meaning).
        public let exponent: UInt32
        /// The modulus `n`, big-endian, exactly as the structure carries it.
        public let modulus: ArraySlice<UInt8>
    }

    /// The ECC half of a TPMT_PUBLIC: TPMS_ECC_PARMS and the TPMS_ECC_POINT.
    public struct ECCParameters: Sendable, Hashable {
        /// The symmetric definition; `nil` for TPM_ALG_NULL (the usual value for a signing key).
        public let symmetric: TPMSymmetricDefinition?
        /// The ECC scheme; `nil` for TPM_ALG_NULL.
        public let scheme: TPMScheme?
        /// The curve.
        public let curve: TPMECCCurve
        /// The key derivation function; `nil` for TPM_ALG_NULL.
        public let kdf: TPMScheme?
        /// The x coordinate, big-endian, exactly as the structure carries it.
        public let x: ArraySlice<UInt8>
        /// The y coordinate, big-endian, exactly as the structure carries it.
        public let y: ArraySlice<UInt8>
    }

    /// The type-specific part of the structure.
    public enum Parameters: Sendable, Hashable {
        /// An RSA key (TPM_ALG_RSA).
        case rsa(RSAParameters)
        /// An elliptic-curve key (TPM_ALG_ECC).
        case ecc(ECCParameters)
    }

    /// The Name algorithm (`nameAlg`): the hash of this structure, prefixed by this
    /// algorithm's identifier, is the object's Name.
    public let nameAlgorithm: TPMHashAlgorithm
    /// The TPMA_OBJECT attribute bits.
    public let objectAttributes: UInt32
    /// The authorization policy digest (often empty).
    public let authPolicy: ArraySlice<UInt8>
    /// The key type's parameters and public key.
    public let parameters: Parameters
    /// The exact bytes parsed; the object's Name is computed over them.
    public let rawBytes: ArraySlice<UInt8>

    /// The key type.
    public var type: TPMKeyType {
        switch parameters {
        case .rsa: return .rsa
        case .ecc: return .ecc
        }
    }

    /// The RSA parameters, or `nil` for an ECC key.
    public var rsa: RSAParameters? {
        if case .rsa(let value) = parameters { return value }
        return nil
    }

    /// The ECC parameters, or `nil` for an RSA key.
    public var ecc: ECCParameters? {
        if case .ecc(let value) = parameters { return value }
        return nil
    }

    /// The object's Name given the `nameAlg` digest of `rawBytes` (computed by the caller):
    /// the algorithm identifier, big-endian, followed by the digest (TPM 2.0 Part 1, "Names").
    /// - Parameter digest: the `nameAlgorithm` hash of `rawBytes`.
    /// - Returns: the Name bytes, comparable with `TPMCertifyInfo.name.bytes`.
    public func name(withDigest digest: some Sequence<UInt8>) -> [UInt8] {
        var result = TPMWriter.bigEndian(nameAlgorithm.tpmAlgID)
        result.append(contentsOf: digest)
        return result
    }

    /// Parses a `pubArea`. The whole input must be one TPMT_PUBLIC.
    /// - Parameter bytes: the `pubArea` byte string from the attestation statement.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    public init(parsing bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, structure: "pubArea")
        let typeID = try reader.read(UInt16.self, "type")
        guard let type = TPMKeyType(rawValue: typeID) else {
            throw tpmError("pubArea.type \(hex(typeID)) is neither TPM_ALG_RSA (0x0001) nor TPM_ALG_ECC (0x0023)")
        }
        let nameAlgID = try reader.read(UInt16.self, "nameAlg")
        guard let nameAlgorithm = TPMHashAlgorithm(rawValue: nameAlgID) else {
            throw tpmError("pubArea.nameAlg \(hex(nameAlgID)) is not SHA-1, SHA-256, SHA-384 or SHA-512")
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
            parameters = .rsa(RSAParameters(symmetric: symmetric, scheme: scheme, keyBits: keyBits,
                                            exponent: exponent == 0 ? 65537 : exponent, modulus: modulus))
        case .ecc:
            let symmetric = try reader.symmetricDefinition("parameters.symmetric")
            let scheme = try reader.scheme("parameters.scheme", layout: TPMReader.eccSchemeLayout)
            let curveID = try reader.read(UInt16.self, "parameters.curveID")
            guard let curve = TPMECCCurve(rawValue: curveID) else {
                throw tpmError("pubArea.parameters.curveID \(hex(curveID)) is not NIST P-256 (0x0003), P-384 (0x0004) or P-521 (0x0005)")
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
    public init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(parsing: bytes[...])
    }
}

// MARK: - certInfo (TPMS_ATTEST)

/// A TPM2B_NAME's contents: empty, a 4-byte handle, or a digest Name (`nameAlg` + digest).
public struct TPMName: Sendable, Hashable {
    /// The Name bytes exactly as carried (without the size prefix).
    public let bytes: ArraySlice<UInt8>

    /// Wraps Name bytes.
    /// - Parameter bytes: the bytes after the TPM2B size.
    public init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The leading TPM_ALG_ID if the Name is long enough to be a digest Name (more than 4
    /// bytes; a 4-byte Name is a handle), else `nil`.
    public var algorithmID: UInt16? {
        guard bytes.count > 4 else { return nil }
        return bytes.prefix(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    /// The digest after the algorithm identifier, when `algorithmID` is not `nil`.
    public var digest: ArraySlice<UInt8>? {
        guard algorithmID != nil else { return nil }
        return bytes.dropFirst(2)
    }

    /// The hash algorithm of a digest Name, when it is one of the known four and the digest has
    /// that algorithm's length; else `nil`.
    public var hashAlgorithm: TPMHashAlgorithm? {
        guard let id = algorithmID, let algorithm = TPMHashAlgorithm(rawValue: id),
              let digest, digest.count == algorithm.digestSize else { return nil }
        return algorithm
    }
}

/// TPMS_CLOCK_INFO: the TPM's clock when it signed.
public struct TPMClockInfo: Sendable, Hashable {
    /// Milliseconds the TPM has been powered since it was last cleared.
    public let clock: UInt64
    /// TPM resets since the last clear.
    public let resetCount: UInt32
    /// Restarts since the last reset.
    public let restartCount: UInt32
    /// The TPMI_YES_NO `safe` byte as carried: 1 (YES) when `clock` is known never to have
    /// reported a smaller value, 0 (NO) otherwise. Other values are kept, not judged: the W3C
    /// WebAuthn test vectors put filler there, and WebAuthn does not use the field.
    public let safe: UInt8
}

/// TPMS_CERTIFY_INFO: what TPM2_Certify attests about an object.
public struct TPMCertifyInfo: Sendable, Hashable {
    /// The certified object's Name; for WebAuthn, `nameAlg` + hash of `pubArea`.
    public let name: TPMName
    /// The certified object's Qualified Name.
    public let qualifiedName: TPMName
}

/// A parsed `certInfo`: the TPMS_ATTEST structure the attestation key signed.
///
/// Parsing does not judge `magic`, `type` or `extraData`; the verifier checks them against
/// §8.3. A TPM_ST_ATTEST_CERTIFY body is parsed; any other type's body is kept unparsed.
public struct TPMAttest: Sendable, Hashable {
    /// TPM_GENERATED_VALUE, the `magic` of every structure a TPM signs itself.
    public static let generatedValue: UInt32 = 0xFF54_4347
    /// TPM_ST_ATTEST_CERTIFY, the `type` WebAuthn requires.
    public static let attestCertifyType: UInt16 = 0x8017

    /// The `attested` union member.
    public enum Attested: Sendable, Hashable {
        /// A TPMS_CERTIFY_INFO (type TPM_ST_ATTEST_CERTIFY).
        case certify(TPMCertifyInfo)
        /// The body of any other type, not interpreted.
        case unparsed(ArraySlice<UInt8>)
    }

    /// The `magic` field (should be `generatedValue`).
    public let magic: UInt32
    /// The `type` field, a TPM_ST value (should be `attestCertifyType`).
    public let type: UInt16
    /// The Qualified Name of the signing key.
    public let qualifiedSigner: TPMName
    /// `extraData`: for WebAuthn, the hash of `attToBeSigned` with the `alg` hash.
    public let extraData: ArraySlice<UInt8>
    /// The clock information.
    public let clockInfo: TPMClockInfo
    /// The TPM vendor's firmware version.
    public let firmwareVersion: UInt64
    /// The type-specific body.
    public let attested: Attested
    /// The exact bytes parsed; the statement's `sig` is over them.
    public let rawBytes: ArraySlice<UInt8>

    /// The certify body, or `nil` when `type` is not TPM_ST_ATTEST_CERTIFY.
    public var certifyInfo: TPMCertifyInfo? {
        if case .certify(let info) = attested { return info }
        return nil
    }

    /// Parses a `certInfo`. For a certify structure the whole input must be consumed.
    /// - Parameter bytes: the `certInfo` byte string from the attestation statement.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    public init(parsing bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, structure: "certInfo")
        magic = try reader.read(UInt32.self, "magic")
        type = try reader.read(UInt16.self, "type")
        qualifiedSigner = TPMName(bytes: try reader.sized("qualifiedSigner", maximum: TPMLimits.name))
        extraData = try reader.sized("extraData", maximum: TPMLimits.data)
        let clock = try reader.read(UInt64.self, "clockInfo.clock")
        let resetCount = try reader.read(UInt32.self, "clockInfo.resetCount")
        let restartCount = try reader.read(UInt32.self, "clockInfo.restartCount")
        let safe = try reader.read(UInt8.self, "clockInfo.safe")
        clockInfo = TPMClockInfo(clock: clock, resetCount: resetCount, restartCount: restartCount, safe: safe)
        firmwareVersion = try reader.read(UInt64.self, "firmwareVersion")
        if type == Self.attestCertifyType {
            let name = TPMName(bytes: try reader.sized("attested.certify.name", maximum: TPMLimits.name))
            let qualifiedName = TPMName(bytes: try reader.sized("attested.certify.qualifiedName", maximum: TPMLimits.name))
            try reader.finish()
            attested = .certify(TPMCertifyInfo(name: name, qualifiedName: qualifiedName))
        } else {
            attested = .unparsed(reader.remaining)
        }
        rawBytes = bytes
    }

    /// Parses a `certInfo` held in an array.
    /// - Parameter bytes: the `certInfo` byte string.
    /// - Throws: `WebAuthnError` (`attestation`) naming the field that does not parse.
    public init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(parsing: bytes[...])
    }
}

// MARK: - Reading

/// Largest sizes Part 2 allows for the fixed-maximum TPM2B types (with SHA-512 as the largest
/// digest): TPM2B_DIGEST holds a TPMU_HA, TPM2B_DATA and TPM2B_NAME a TPMT_HA (2 + 64).
enum TPMLimits {
    static let digest = 64
    static let data = 66
    static let name = 66
}

private func tpmError(_ message: String) -> WebAuthnError {
    WebAuthnError(.attestation, "tpm: \(message)")
}

private func hex(_ value: UInt16) -> String {
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
            throw tpmError("\(structure).\(field).algorithm \(hex(algorithm)) is not a symmetric object algorithm")
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
            throw tpmError("\(structure).\(field).scheme \(hex(scheme)) is not a scheme allowed here")
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

// MARK: - Test support: encoders

/// Builds TPM structures from their fields so tests can make valid and deliberately broken
/// `tpm` attestation statements. Sizes are written as given, truncated to 16 bits.
package enum TPMStructureEncoder {
    /// A TPM2B: the byte count as a big-endian UInt16, then the bytes.
    /// - Parameter bytes: the contents.
    /// - Returns: the encoded TPM2B.
    public static func sized(_ bytes: [UInt8]) -> [UInt8] {
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
    public static func publicArea(type: UInt16, nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
                                  objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
                                  parameters: [UInt8], unique: [UInt8]) -> [UInt8] {
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
    public static func rsaPublicArea(nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
                                     objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
                                     symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
                                     keyBits: UInt16 = 2048, exponent: UInt32 = 0, modulus: [UInt8]) -> [UInt8] {
        var parameters = encode(symmetric)
        parameters += encode(scheme)
        parameters += TPMWriter.bigEndian(keyBits)
        parameters += TPMWriter.bigEndian(exponent)
        return publicArea(type: TPMKeyType.rsa.rawValue, nameAlg: nameAlg, objectAttributes: objectAttributes,
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
    public static func eccPublicArea(nameAlg: UInt16 = TPMHashAlgorithm.sha256.tpmAlgID,
                                     objectAttributes: UInt32 = defaultObjectAttributes, authPolicy: [UInt8] = [],
                                     symmetric: TPMSymmetricDefinition? = nil, scheme: TPMScheme? = nil,
                                     curveID: UInt16 = TPMECCCurve.p256.rawValue, kdf: TPMScheme? = nil,
                                     x: [UInt8], y: [UInt8]) -> [UInt8] {
        var parameters = encode(symmetric)
        parameters += encode(scheme)
        parameters += TPMWriter.bigEndian(curveID)
        parameters += encode(kdf)
        return publicArea(type: TPMKeyType.ecc.rawValue, nameAlg: nameAlg, objectAttributes: objectAttributes,
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
    public static func attest(magic: UInt32 = TPMAttest.generatedValue, type: UInt16 = TPMAttest.attestCertifyType,
                              qualifiedSigner: [UInt8] = [], extraData: [UInt8], clock: UInt64 = 0,
                              resetCount: UInt32 = 0, restartCount: UInt32 = 0, safe: UInt8 = 1,
                              firmwareVersion: UInt64 = 0, attested: [UInt8]) -> [UInt8] {
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
    public static func certifyAttest(magic: UInt32 = TPMAttest.generatedValue,
                                     type: UInt16 = TPMAttest.attestCertifyType, qualifiedSigner: [UInt8] = [],
                                     extraData: [UInt8], clock: UInt64 = 0, resetCount: UInt32 = 0,
                                     restartCount: UInt32 = 0, safe: UInt8 = 1, firmwareVersion: UInt64 = 0,
                                     name: [UInt8], qualifiedName: [UInt8] = []) -> [UInt8] {
        attest(magic: magic, type: type, qualifiedSigner: qualifiedSigner, extraData: extraData, clock: clock,
               resetCount: resetCount, restartCount: restartCount, safe: safe, firmwareVersion: firmwareVersion,
               attested: sized(name) + sized(qualifiedName))
    }

    /// fixedTPM | fixedParent | sensitiveDataOrigin | userWithAuth | noDA | sign: a typical
    /// attestation-key object.
    public static let defaultObjectAttributes: UInt32 = 0x0004_0472

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

/// Big-endian integer bytes.
enum TPMWriter {
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        let size = MemoryLayout<T>.size
        return (0..<size).map { index in
            UInt8(truncatingIfNeeded: value >> ((size - 1 - index) * 8))
        }
    }
}
