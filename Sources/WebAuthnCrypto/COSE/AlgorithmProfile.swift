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

    private init(_ algorithm: COSEAlgorithm, _ keyType: COSEKeyType, _ curves: [COSECurve], _ scheme: Scheme,
                 rs1: Bool = false) {
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
