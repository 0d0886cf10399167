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

/// How one COSE algorithm signs: which key type and curves it pairs with and which
/// libcrypto scheme verifies it. The single table the crypto layer consults.
package struct AlgorithmProfile: Sendable {
    /// The libcrypto operation behind an algorithm.
    package enum Scheme: Sendable, Equatable {
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

    let algorithm: COSEAlgorithm
    package let keyType: COSEKeyType
    /// Curves a COSE key may carry with this algorithm (empty for RSA and AKP).
    let coseCurves: [COSECurve]
    package let scheme: Scheme
    /// Whether the algorithm is refused unless ``COSEKeyOptions/allowRS1`` is set.
    let needsRS1OptIn: Bool

    private init(
        _ algorithm: COSEAlgorithm, _ keyType: COSEKeyType, _ curves: [COSECurve], _ scheme: Scheme,
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
    package static func require(_ algorithm: COSEAlgorithm, options: COSEKeyOptions) throws(CryptoError) -> AlgorithmProfile {
        guard let profile = of(algorithm) else {
            throw CryptoError(.unsupportedAlgorithm, "unknown or unsupported COSE algorithm \(algorithm.rawValue)")
        }
        if profile.needsRS1OptIn && !options.allowRS1 {
            throw CryptoError(.unsupportedAlgorithm, "RS1 (SHA-1) is refused unless allowRS1 is set for legacy attestation")
        }
        return profile
    }
}
