/// What kind of key libcrypto holds, as far as WebAuthn cares.
package enum KeyFamily: Sendable, Equatable {
    /// An EC key; the curve is nil for a group WebAuthn does not use.
    case ec(COSECurve?, groupName: String)
    /// An RSA key with its modulus size in bits.
    case rsa(bits: Int)
    case ed25519
    case ed448
    /// An ML-DSA key, with libcrypto's algorithm name.
    case mlDSA(String)
    /// Anything else, with libcrypto's type name.
    case other(String)

    /// The COSE key type this family maps to, if any.
    var coseKeyType: COSEKeyType? {
        switch self {
        case .ec: return .ec2
        case .rsa: return .rsa
        case .ed25519, .ed448: return .okp
        case .mlDSA: return .akp
        case .other: return nil
        }
    }

    /// The curve (EC2 or OKP), if any.
    package var curve: COSECurve? {
        switch self {
        case .ec(let curve, _): return curve
        case .ed25519: return .ed25519
        case .ed448: return .ed448
        default: return nil
        }
    }

    /// "EC P-256", "RSA 2048", "Ed25519", "ML-DSA-44", ...
    package var description: String {
        switch self {
        case .ec(let curve, let group): return "EC \(curve?.displayName ?? group)"
        case .rsa(let bits): return "RSA \(bits)"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        case .mlDSA(let name): return name
        case .other(let name): return name
        }
    }
}
