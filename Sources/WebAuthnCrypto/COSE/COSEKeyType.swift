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
    var libcryptoName: String {
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
