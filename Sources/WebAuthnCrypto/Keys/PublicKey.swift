/// A public key held by libcrypto, built once and reused for every verification.
///
/// Made from a COSE key (``COSEKey``), a SubjectPublicKeyInfo, or a certificate.
package struct PublicKey: Sendable {
    let evpKey: EVPKey

    init(evpKey: EVPKey) { self.evpKey = evpKey }

    /// A P-256 key from its uncompressed point `04 ‖ x ‖ y` (how App Attest keys are stored).
    /// - Throws: ``CryptoError`` when the bytes are not a point on the curve.
    package init(p256Point point: [UInt8]) throws(CryptoError) {
        self.init(evpKey: try LibCryptoKeyBuilder.ecPublicKey(group: COSECurve.p256.libcryptoName, uncompressedPoint: point))
    }
}

/// What kind of key libcrypto holds, as far as WebAuthn cares.
enum KeyFamily: Sendable, Equatable {
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
    var curve: COSECurve? {
        switch self {
        case .ec(let curve, _): return curve
        case .ed25519: return .ed25519
        case .ed448: return .ed448
        default: return nil
        }
    }

    /// "EC P-256", "RSA 2048", "Ed25519", "ML-DSA-44", ...
    var description: String {
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

extension PublicKey {
    /// Parses a DER SubjectPublicKeyInfo (as in a certificate) and checks the key.
    /// - Parameter subjectPublicKeyInfoDER: the DER bytes; nothing may follow the structure.
    /// - Throws: ``CryptoError`` `malformedKey` when it does not parse or fails the public-key check.
    package init(subjectPublicKeyInfoDER: ArraySlice<UInt8>) throws(CryptoError) {
        self.init(evpKey: try LibCryptoKeyBuilder.subjectPublicKeyInfo(subjectPublicKeyInfoDER))
    }

    /// The key as a DER SubjectPublicKeyInfo (empty only if libcrypto cannot encode it).
    package var subjectPublicKeyInfoDER: [UInt8] { (try? evpKey.subjectPublicKeyInfoDER()) ?? [] }

    /// Verifies a signature with a COSE algorithm after checking the key fits it.
    ///
    /// The pairing is the strict WebAuthn one: ES256 needs P-256, ES384 P-384, ES512 P-521,
    /// ES256K secp256k1; EdDSA an Ed25519 or Ed448 key; RS*/PS* an RSA key of at least
    /// `options.minimumRSABits`.
    /// - Parameters:
    ///   - signature: the signature (ECDSA: DER `ECDSA-Sig-Value`).
    ///   - data: the signed bytes.
    ///   - algorithm: the COSE algorithm.
    ///   - options: RSA size floor and RS1 opt-in.
    /// - Returns: `true` when the signature verifies, `false` when it does not.
    /// - Throws: ``CryptoError``: `unsupportedAlgorithm`, `algorithmMismatch`, `weakKey`,
    ///   `malformedSignature` (non-DER ECDSA), `unsupportedByLibCrypto`.
    package func verify(
        signature: ArraySlice<UInt8>, over data: ArraySlice<UInt8>, algorithm: COSEAlgorithm,
        options: COSEKeyOptions = .default
    ) throws(CryptoError) -> Bool {
        try evpKey.verify(signature: signature, over: data, then: nil, scheme: signatureScheme(for: algorithm, options: options))
    }

    /// How this key signs with `algorithm`, after checking that the key fits it (the pairing
    /// ``verify(signature:over:algorithm:options:)`` applies).
    /// - Parameters:
    ///   - algorithm: the COSE algorithm.
    ///   - options: RSA size floor and RS1 opt-in.
    /// - Returns: the libcrypto scheme.
    /// - Throws: ``CryptoError``: `unsupportedAlgorithm`, `algorithmMismatch`, `weakKey`.
    package func signatureScheme(for algorithm: COSEAlgorithm, options: COSEKeyOptions) throws(CryptoError) -> SignatureScheme {
        let profile = try AlgorithmProfile.require(algorithm, options: options)
        try Self.check(family: evpKey.family, fits: profile, options: options)
        return profile.scheme
    }

    /// Whether both keys are the same public key (`EVP_PKEY_eq`).
    /// - Parameter other: the other key.
    /// - Returns: `true` when type and public value match.
    package func isEqual(to other: PublicKey) -> Bool { evpKey.isEqual(to: other.evpKey) }

    /// The EC affine coordinates, each as long as the curve's field, or nil for non-EC keys.
    package var ecCoordinates: (x: [UInt8], y: [UInt8])? { evpKey.ecCoordinates }

    /// The RSA modulus and exponent (big-endian, minimal), or nil for non-RSA keys.
    package var rsaParameters: (n: [UInt8], e: [UInt8])? { evpKey.rsaParameters }

    /// A short description of the key: "EC P-256", "RSA 2048", "Ed25519", ...
    package var keyKind: String { evpKey.family.description }

    /// The COSE curve of an EC or OKP key WebAuthn uses, or nil.
    package var curve: COSECurve? { evpKey.family.curve }

    /// Checks that a key of `family` may be used with `profile`.
    static func check(
        family: KeyFamily, fits profile: AlgorithmProfile,
        options: COSEKeyOptions
    ) throws(CryptoError) {
        guard family.coseKeyType == profile.keyType else {
            throw CryptoError(.algorithmMismatch, "\(profile.algorithm) cannot be used with a \(family.description) key")
        }
        switch family {
        case .ec, .ed25519, .ed448:
            guard let curve = family.curve, profile.coseCurves.contains(curve) else {
                throw CryptoError(.algorithmMismatch, "\(profile.algorithm) cannot be used with a \(family.description) key")
            }
        case .rsa(let bits):
            guard bits >= options.minimumRSABits else {
                throw CryptoError(.weakKey, "RSA key of \(bits) bits is below the \(options.minimumRSABits)-bit minimum")
            }
        case .mlDSA(let name):
            guard profile.scheme == .mlDSA(name) else {
                throw CryptoError(.algorithmMismatch, "\(profile.algorithm) cannot be used with a \(name) key")
            }
        default:
            break
        }
    }
}
