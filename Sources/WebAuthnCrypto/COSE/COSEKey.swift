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
    let scheme: AlgorithmProfile.Scheme
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
        let encoded = CBOREncoder.encode(CBORItem.map([
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
    package func verify(signature: ArraySlice<UInt8>, over data: ArraySlice<UInt8>,
                        then digest: InlineArray<32, UInt8>? = nil) throws(CryptoError) -> Bool {
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

    private static func curve(in map: COSEKeyMap, keyType: COSEKeyType,
                              profile: AlgorithmProfile) throws(CryptoError) -> COSECurve {
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
