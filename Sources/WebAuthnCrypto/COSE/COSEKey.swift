package import WebAuthnCoding

/// A COSE_Key (RFC 9052 §7) holding a public key, checked and converted to a libcrypto
/// key once, then reused for every verification.
///
/// Accepted: EC2 (P-256, P-384, P-521, secp256k1), OKP (Ed25519, Ed448), RSA (RFC 8230)
/// and AKP (ML-DSA, where libcrypto provides it). `kty`, `alg` and `crv` must agree, EC2
/// coordinates must be exactly the curve's length and the point on the curve, OKP keys
/// canonically encoded and not of small order, and a key carrying private members is refused.
package struct COSEKey: Sendable {
    /// The key type (label 1).
    package let keyType: COSEKeyType
    /// The algorithm (label 3).
    package let algorithm: COSEAlgorithm
    /// The curve (label -1) for EC2 and OKP keys; nil for RSA and AKP.
    package let curve: COSECurve?
    /// The key's CBOR bytes exactly as received, for storage.
    package let cborBytes: [UInt8]
    /// The libcrypto key.
    package let publicKey: PublicKey
    /// The policy the key was accepted under.
    let options: COSEKeyOptions
    /// How the key verifies, decided once when the key was accepted: the algorithm's
    /// profile was required under ``options`` and the libcrypto key checked against it,
    /// and neither the key nor the options can change afterwards.
    let scheme: SignatureScheme
    private let parameters: Parameters

    /// The raw public parameters, kept for attestation comparisons.
    enum Parameters: Sendable {
        case ec2(x: [UInt8], y: [UInt8])
        case okp(x: [UInt8])
        case rsa(n: [UInt8], e: [UInt8])
        case akp(pub: [UInt8])
    }

    /// Decodes and checks a COSE key that must be exactly one CBOR item.
    /// - Parameters:
    ///   - cbor: the encoded key.
    ///   - options: RSA size floor and RS1 opt-in.
    /// - Throws: ``CryptoError``: `malformedKey` (bad CBOR, missing or ill-typed members,
    ///   wrong lengths, point off the curve, private members), `unsupportedAlgorithm`
    ///   (unknown kty/alg/crv, RS1 without opt-in), `algorithmMismatch`, `weakKey`,
    ///   `unsupportedByLibCrypto` (ML-DSA on an older libcrypto).
    package init(cbor: ArraySlice<UInt8>, options: COSEKeyOptions = .default) throws(CryptoError) {
        let item: CBORItem
        do {
            item = try CBOR.decode(cbor)
        } catch {
            throw CryptoError(.malformedKey, "COSE key is not one well-formed CBOR item: \(error)")
        }
        try self.init(item: item, options: options)
    }

    /// Checks an already-decoded COSE key; ``cborBytes`` are the item's `encodedBytes`.
    /// Encoding rules (such as CTAP2 canonical form, which authenticator data requires of a
    /// credential key) are the decoder's: they were checked in the pass that made `item`.
    /// - Parameters:
    ///   - item: the decoded key.
    ///   - options: RSA size floor and RS1 opt-in.
    /// - Throws: ``CryptoError`` as for ``init(cbor:options:)``.
    package init(item: CBORItem, options: COSEKeyOptions = .default) throws(CryptoError) {
        let map = try COSEKeyMap(item)
        let kty = try map.requiredInt(1, "kty")
        guard let keyType = COSEKeyType(rawValue: kty) else {
            throw CryptoError(.unsupportedAlgorithm, "unknown COSE key type kty=\(kty)")
        }
        let algorithm = COSEAlgorithm(rawValue: try map.requiredInt(3, "alg"))
        let profile = try AlgorithmProfile.require(algorithm, options: options)
        guard profile.keyType == keyType else {
            throw CryptoError(.algorithmMismatch, "alg \(algorithm) cannot be used with kty \(kty)")
        }

        var curve: COSECurve?
        let key: EVPKey
        let parameters: Parameters
        switch keyType {
        case .ec2:
            try map.refusePrivate([-4], keyType: "EC2")
            let chosen = try Self.curve(in: map, keyType: .ec2, profile: profile)
            if let y = map[-3], y.bool != nil {
                throw CryptoError(.malformedKey, "EC2 y given as a point-compression sign bit; only uncompressed points are accepted")
            }
            let x = try map.requiredBytes(-2, "x", length: chosen.coordinateLength)
            let y = try map.requiredBytes(-3, "y", length: chosen.coordinateLength)
            key = try LibCryptoKeyBuilder.ecPublicKey(group: chosen.libcryptoName, uncompressedPoint: [0x04] + x + y)
            curve = chosen
            parameters = .ec2(x: Array(x), y: Array(y))
        case .okp:
            try map.refusePrivate([-4], keyType: "OKP")
            let chosen = try Self.curve(in: map, keyType: .okp, profile: profile)
            let x = try map.requiredBytes(-2, "x", length: chosen.coordinateLength)
            try EdwardsPointCheck.check(x, curve: chosen)
            key = try LibCryptoKeyBuilder.rawPublicKey(algorithm: chosen.libcryptoName, x)
            curve = chosen
            parameters = .okp(x: Array(x))
        case .rsa:
            try map.refusePrivate(Array(-12 ... -3), keyType: "RSA")
            let n = try map.requiredBytes(-1, "n")
            let e = try map.requiredBytes(-2, "e")
            guard n.contains(where: { $0 != 0 }) else { throw CryptoError(.malformedKey, "RSA n is zero or empty") }
            guard e.contains(where: { $0 != 0 }) else { throw CryptoError(.malformedKey, "RSA e is zero or empty") }
            // Measure before building, so an oversized modulus costs nothing.
            let bits = Self.bitLength(n)
            guard bits >= options.minimumRSABits else {
                throw CryptoError(.weakKey, "RSA modulus of \(bits) bits is below the \(options.minimumRSABits)-bit minimum")
            }
            guard bits <= 16384 else { throw CryptoError(.malformedKey, "RSA modulus of \(bits) bits is too large") }
            key = try LibCryptoKeyBuilder.rsaPublicKey(n: n, e: e)
            parameters = .rsa(n: Array(n), e: Array(e))
        case .akp:
            try map.refusePrivate([-2], keyType: "AKP")
            guard case .mlDSA(let name) = profile.scheme else {
                throw CryptoError(.algorithmMismatch, "alg \(algorithm) cannot be used with kty AKP")
            }
            let pub = try map.requiredBytes(-1, "pub")
            key = try LibCryptoKeyBuilder.mlDSAPublicKey(algorithm: name, pub)
            parameters = .akp(pub: Array(pub))
        }
        let publicKey = PublicKey(evpKey: key)
        try PublicKey.check(family: key.family, fits: profile, options: options)

        self.keyType = keyType
        self.algorithm = algorithm
        self.curve = curve
        self.cborBytes = Array(item.encodedBytes)
        self.publicKey = publicKey
        self.options = options
        self.scheme = profile.scheme
        self.parameters = parameters
    }

    /// Converts a legacy U2F public key (`0x04 || x || y`, 65 bytes, P-256) to an ES256
    /// COSE key, as FIDO U2F attestation requires.
    /// - Parameter raw: the uncompressed point.
    /// - Returns: the COSE key; its ``cborBytes`` are the CTAP2 canonical encoding.
    /// - Throws: ``CryptoError`` `malformedKey` for any other length or prefix, or a point off P-256.
    package static func fromU2FPublicKey(_ raw: ArraySlice<UInt8>) throws(CryptoError) -> COSEKey {
        guard raw.count == 65, raw.first == 0x04 else {
            throw CryptoError(.malformedKey, "U2F public key must be 65 bytes starting 0x04, got \(raw.count) byte(s)")
        }
        let x = raw.dropFirst().prefix(32)
        let y = raw.dropFirst(33)
        let encoded = CBOREncoder.encode(
            CBORItem.map([
                (.int(1), .int(Int64(COSEKeyType.ec2.rawValue))),
                (.int(3), .int(Int64(COSEAlgorithm.es256.rawValue))),
                (.int(-1), .int(Int64(COSECurve.p256.rawValue))),
                (.int(-2), .bytes(x)),
                (.int(-3), .bytes(y)),
            ]))
        return try COSEKey(cbor: encoded[...])
    }

    /// Verifies a signature with the key's own algorithm, over `data` or, when a digest is
    /// given, over `data || digest` without joining the two (an assertion signs
    /// `authenticatorData || SHA-256(clientDataJSON)`, the hash held inline).
    /// - Parameters:
    ///   - signature: the signature (ECDSA: DER `ECDSA-Sig-Value`).
    ///   - data: the signed bytes (the first part when a digest follows).
    ///   - digest: a SHA-256 result that follows `data` in the signed bytes, or nil.
    /// - Returns: `true` when it verifies, `false` when it does not.
    /// - Throws: ``CryptoError`` `malformedSignature` for an ECDSA signature that is not strict DER.
    package func verify(
        signature: ArraySlice<UInt8>, over data: ArraySlice<UInt8>,
        then digest: InlineArray<32, UInt8>? = nil
    ) throws(CryptoError) -> Bool {
        try publicKey.evpKey.verify(signature: signature, over: data, then: digest, scheme: scheme)
    }

    /// The EC2 coordinates as received, or nil.
    package var ec2Coordinates: (x: [UInt8], y: [UInt8])? {
        if case .ec2(let x, let y) = parameters { return (x, y) }
        return nil
    }

    /// The RSA modulus and exponent as received, or nil.
    package var rsaParameters: (n: [UInt8], e: [UInt8])? {
        if case .rsa(let n, let e) = parameters { return (n, e) }
        return nil
    }

    /// The OKP public key (`x`) as received, or nil.
    var okpPublicKey: [UInt8]? {
        if case .okp(let x) = parameters { return x }
        return nil
    }

    /// The AKP (ML-DSA) public key (`pub`) as received, or nil.
    var akpPublicKey: [UInt8]? {
        if case .akp(let pub) = parameters { return pub }
        return nil
    }

    private static func curve(
        in map: COSEKeyMap, keyType: COSEKeyType,
        profile: AlgorithmProfile
    ) throws(CryptoError) -> COSECurve {
        let raw = try map.requiredInt(-1, "crv")
        guard let curve = COSECurve(rawValue: raw) else {
            throw CryptoError(.unsupportedAlgorithm, "unknown COSE curve crv=\(raw)")
        }
        guard curve.keyType == keyType else {
            throw CryptoError(.algorithmMismatch, "curve \(curve.displayName) does not belong to kty \(keyType.rawValue)")
        }
        guard profile.coseCurves.contains(curve) else {
            throw CryptoError(.algorithmMismatch, "alg \(profile.algorithm) cannot be used with curve \(curve.displayName)")
        }
        return curve
    }

    /// Bits in a big-endian unsigned integer, ignoring leading zero bytes.
    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        let significant = bytes.distance(from: first, to: bytes.endIndex)
        return (significant - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }
}

/// The integer-labelled members of a COSE key map.
struct COSEKeyMap {
    private let members: [Int: CBORItem]

    init(_ item: CBORItem) throws(CryptoError) {
        guard let entries = item.mapEntries else { throw CryptoError(.malformedKey, "COSE key is not a CBOR map") }
        var members: [Int: CBORItem] = [:]
        for entry in entries {
            // Text labels are allowed by COSE and carry nothing we use.
            guard let label = entry.key.int else { continue }
            guard members.updateValue(entry.value, forKey: label) == nil else {
                throw CryptoError(.malformedKey, "COSE key label \(label) appears twice")
            }
        }
        self.members = members
    }

    subscript(label: Int) -> CBORItem? { members[label] }

    func requiredInt(_ label: Int, _ name: String) throws(CryptoError) -> Int {
        guard let item = members[label] else { throw CryptoError(.malformedKey, "COSE key has no \(name) (label \(label))") }
        guard let value = item.int else {
            if item.text != nil {
                throw CryptoError(.unsupportedAlgorithm, "COSE key \(name) (label \(label)) is a text value, not a registered integer")
            }
            throw CryptoError(.malformedKey, "COSE key \(name) (label \(label)) is not an integer")
        }
        return value
    }

    func requiredBytes(_ label: Int, _ name: String, length: Int? = nil) throws(CryptoError) -> ArraySlice<UInt8> {
        guard let item = members[label] else { throw CryptoError(.malformedKey, "COSE key has no \(name) (label \(label))") }
        guard let bytes = item.bytes else {
            throw CryptoError(.malformedKey, "COSE key \(name) (label \(label)) is not a byte string")
        }
        if let length, bytes.count != length {
            throw CryptoError(.malformedKey, "COSE key \(name) is \(bytes.count) bytes, expected \(length)")
        }
        if length == nil, bytes.isEmpty { throw CryptoError(.malformedKey, "COSE key \(name) is empty") }
        return bytes
    }

    func refusePrivate(_ labels: [Int], keyType: String) throws(CryptoError) {
        for label in labels where members[label] != nil {
            throw CryptoError(.malformedKey, "\(keyType) COSE key carries private member label \(label)")
        }
    }
}

/// A COSE key type (`kty`, label 1), IANA "COSE Key Types".
package enum COSEKeyType: Int, Sendable {
    /// Octet key pair: Ed25519 / Ed448 (RFC 9053 §7.2).
    case okp = 1
    /// Elliptic curve with x and y coordinates (RFC 9053 §7.1.1).
    case ec2 = 2
    /// RSA (RFC 8230).
    case rsa = 3
    /// Algorithm key pair, used by ML-DSA (label -1 `pub`).
    case akp = 7
}

/// A COSE elliptic curve (`crv`, label -1), IANA "COSE Elliptic Curves".
package enum COSECurve: Int, Sendable {
    /// NIST P-256 (secp256r1), EC2.
    case p256 = 1
    /// NIST P-384 (secp384r1), EC2.
    case p384 = 2
    /// NIST P-521 (secp521r1), EC2.
    case p521 = 3
    /// Ed25519, OKP.
    case ed25519 = 6
    /// Ed448, OKP.
    case ed448 = 7
    /// secp256k1 (RFC 8812), EC2.
    case secp256k1 = 8

    /// The key type this curve belongs to.
    var keyType: COSEKeyType {
        switch self {
        case .p256, .p384, .p521, .secp256k1: return .ec2
        case .ed25519, .ed448: return .okp
        }
    }

    /// Length of one EC2 coordinate, or of the OKP public key, in bytes.
    var coordinateLength: Int {
        switch self {
        case .p256, .secp256k1: return 32
        case .p384: return 48
        case .p521: return 66
        case .ed25519: return 32
        case .ed448: return 57
        }
    }

    /// libcrypto's name: the EC group name, or the key algorithm name for OKP.
    package var libcryptoName: String {
        switch self {
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        case .p521: return "secp521r1"
        case .secp256k1: return "secp256k1"
        case .ed25519: return "ED25519"
        case .ed448: return "ED448"
        }
    }

    /// The curve for an EC group name libcrypto reports.
    init?(libcryptoGroupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp521r1", "P-521": self = .p521
        case "secp256k1": self = .secp256k1
        default: return nil
        }
    }

    /// A short human name ("P-256").
    var displayName: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        case .secp256k1: return "secp256k1"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        }
    }
}

/// Policy for accepting COSE keys and verifying signatures.
package struct COSEKeyOptions: Sendable {
    /// The smallest RSA modulus accepted, in bits. 2048 by default; lower it only through
    /// ``unsafeLegacyAttestation``.
    var minimumRSABits: Int = 2048
    /// Whether RS1 (RSASSA-PKCS1-v1_5 with SHA-1, -65535) is accepted. Only legacy
    /// attestation statements need it; never enable it for credential keys.
    package var allowRS1: Bool = false

    /// The safe defaults: RSA ≥ 2048 bits, no RS1.
    package init() {}

    /// The safe defaults: RSA ≥ 2048 bits, no RS1.
    package static let `default` = COSEKeyOptions()

    /// UNSAFE: accepts RSA keys down to 1024 bits and RS1, for verifying old attestation
    /// statements only. Never use it for credential public keys.
    package static let unsafeLegacyAttestation: COSEKeyOptions = {
        var options = COSEKeyOptions()
        options.minimumRSABits = 1024
        options.allowRS1 = true
        return options
    }()
}

/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as WebAuthn's
/// `pubKeyCredParams[].alg` and a COSE key's `alg` (label 3) carry it.
public struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The registered integer.
    public let rawValue: Int
    /// Wraps an identifier; unknown values are representable and refused where used.
    /// - Parameter rawValue: the registered integer.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// ECDSA w/ SHA-256 (any curve by RFC 9053; WebAuthn pairs it with P-256).
    public static let es256 = COSEAlgorithm(rawValue: -7)
    /// ECDSA w/ SHA-384.
    public static let es384 = COSEAlgorithm(rawValue: -35)
    /// ECDSA w/ SHA-512.
    public static let es512 = COSEAlgorithm(rawValue: -36)
    /// ECDSA secp256k1 w/ SHA-256 (RFC 8812).
    public static let es256k = COSEAlgorithm(rawValue: -47)
    /// EdDSA (Ed25519 or Ed448, chosen by the key's curve).
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    /// Ed25519 (fully specified, RFC 9864).
    public static let ed25519 = COSEAlgorithm(rawValue: -19)
    /// Ed448 (fully specified, RFC 9864).
    public static let ed448 = COSEAlgorithm(rawValue: -53)
    /// ECDSA P-256 w/ SHA-256 (fully specified, RFC 9864).
    public static let esp256 = COSEAlgorithm(rawValue: -9)
    /// ECDSA P-384 w/ SHA-384 (fully specified, RFC 9864).
    public static let esp384 = COSEAlgorithm(rawValue: -51)
    /// ECDSA P-521 w/ SHA-512 (fully specified, RFC 9864).
    public static let esp512 = COSEAlgorithm(rawValue: -52)
    /// RSASSA-PKCS1-v1_5 w/ SHA-256.
    public static let rs256 = COSEAlgorithm(rawValue: -257)
    /// RSASSA-PKCS1-v1_5 w/ SHA-384.
    public static let rs384 = COSEAlgorithm(rawValue: -258)
    /// RSASSA-PKCS1-v1_5 w/ SHA-512.
    public static let rs512 = COSEAlgorithm(rawValue: -259)
    /// RSASSA-PSS w/ SHA-256.
    public static let ps256 = COSEAlgorithm(rawValue: -37)
    /// RSASSA-PSS w/ SHA-384.
    public static let ps384 = COSEAlgorithm(rawValue: -38)
    /// RSASSA-PSS w/ SHA-512.
    public static let ps512 = COSEAlgorithm(rawValue: -39)
    /// RSASSA-PKCS1-v1_5 w/ SHA-1: legacy attestation only, never for credentials.
    public static let rs1 = COSEAlgorithm(rawValue: -65535)
    /// ML-DSA-44 (needs a libcrypto with ML-DSA, OpenSSL 3.5+).
    public static let mlDSA44 = COSEAlgorithm(rawValue: -48)
    /// ML-DSA-65.
    public static let mlDSA65 = COSEAlgorithm(rawValue: -49)
    /// ML-DSA-87.
    public static let mlDSA87 = COSEAlgorithm(rawValue: -50)

    /// The name the IANA registry gives, or `alg(<n>)`.
    public var description: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .es256k: return "ES256K"
        case .edDSA: return "EdDSA"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        case .esp256: return "ESP256"
        case .esp384: return "ESP384"
        case .esp512: return "ESP512"
        case .rs256: return "RS256"
        case .rs384: return "RS384"
        case .rs512: return "RS512"
        case .ps256: return "PS256"
        case .ps384: return "PS384"
        case .ps512: return "PS512"
        case .rs1: return "RS1"
        case .mlDSA44: return "ML-DSA-44"
        case .mlDSA65: return "ML-DSA-65"
        case .mlDSA87: return "ML-DSA-87"
        default: return "alg(\(rawValue))"
        }
    }
}

/// The libcrypto operation behind a COSE algorithm.
package enum SignatureScheme: Sendable, Equatable {
    /// ECDSA over the digest; signatures are DER `ECDSA-Sig-Value`.
    case ecdsa(Digest)
    /// Pure EdDSA (no pre-hash).
    case eddsa
    /// RSASSA-PKCS1-v1_5 with the digest.
    case rsaPKCS1(Digest)
    /// RSASSA-PSS, MGF1 with the same digest, salt length = digest length.
    case rsaPSS(Digest)
    /// ML-DSA (FIPS 204), libcrypto algorithm name such as `ML-DSA-44`.
    case mlDSA(String)
}

/// How one COSE algorithm signs: which key type and curves it pairs with and which
/// libcrypto scheme verifies it. The single table the crypto layer consults.
struct AlgorithmProfile: Sendable {
    let algorithm: COSEAlgorithm
    /// The key type (`kty`) and the curves a COSE key may carry with this algorithm (no
    /// curves for RSA and AKP).
    let keyType: COSEKeyType, coseCurves: [COSECurve]
    /// The libcrypto operation that verifies it.
    let scheme: SignatureScheme
    /// Whether the algorithm is refused unless ``COSEKeyOptions/allowRS1`` is set.
    let needsRS1OptIn: Bool

    private init(
        _ algorithm: COSEAlgorithm, _ keyType: COSEKeyType, _ curves: [COSECurve], _ scheme: SignatureScheme,
        rs1: Bool = false
    ) {
        self.algorithm = algorithm
        self.keyType = keyType
        self.coseCurves = curves
        self.scheme = scheme
        self.needsRS1OptIn = rs1
    }

    /// The profile for an algorithm, or nil when the crypto layer does not know it.
    static func of(_ algorithm: COSEAlgorithm) -> AlgorithmProfile? {
        switch algorithm {
        case .es256: return .init(algorithm, .ec2, [.p256], .ecdsa(.sha256))
        case .es384: return .init(algorithm, .ec2, [.p384], .ecdsa(.sha384))
        case .es512: return .init(algorithm, .ec2, [.p521], .ecdsa(.sha512))
        case .es256k: return .init(algorithm, .ec2, [.secp256k1], .ecdsa(.sha256))
        case .esp256: return .init(algorithm, .ec2, [.p256], .ecdsa(.sha256))
        case .esp384: return .init(algorithm, .ec2, [.p384], .ecdsa(.sha384))
        case .esp512: return .init(algorithm, .ec2, [.p521], .ecdsa(.sha512))
        // L3 §5.8.5: "keys with algorithm EdDSA (-8) MUST use crv 6 (Ed25519)"; Ed448 has -53.
        case .edDSA: return .init(algorithm, .okp, [.ed25519], .eddsa)
        case .ed25519: return .init(algorithm, .okp, [.ed25519], .eddsa)
        case .ed448: return .init(algorithm, .okp, [.ed448], .eddsa)
        case .rs256: return .init(algorithm, .rsa, [], .rsaPKCS1(.sha256))
        case .rs384: return .init(algorithm, .rsa, [], .rsaPKCS1(.sha384))
        case .rs512: return .init(algorithm, .rsa, [], .rsaPKCS1(.sha512))
        case .ps256: return .init(algorithm, .rsa, [], .rsaPSS(.sha256))
        case .ps384: return .init(algorithm, .rsa, [], .rsaPSS(.sha384))
        case .ps512: return .init(algorithm, .rsa, [], .rsaPSS(.sha512))
        case .rs1: return .init(algorithm, .rsa, [], .rsaPKCS1(.sha1), rs1: true)
        case .mlDSA44: return .init(algorithm, .akp, [], .mlDSA("ML-DSA-44"))
        case .mlDSA65: return .init(algorithm, .akp, [], .mlDSA("ML-DSA-65"))
        case .mlDSA87: return .init(algorithm, .akp, [], .mlDSA("ML-DSA-87"))
        default: return nil
        }
    }

    /// The profile, or `unsupportedAlgorithm`; RS1 also needs the opt-in.
    static func require(_ algorithm: COSEAlgorithm, options: COSEKeyOptions) throws(CryptoError) -> AlgorithmProfile {
        guard let profile = of(algorithm) else {
            throw CryptoError(.unsupportedAlgorithm, "unknown or unsupported COSE algorithm \(algorithm.rawValue)")
        }
        if profile.needsRS1OptIn && !options.allowRS1 {
            throw CryptoError(.unsupportedAlgorithm, "RS1 (SHA-1) is refused unless allowRS1 is set for legacy attestation")
        }
        return profile
    }
}
