internal import CWebAuthnOpenSSL
import WebAuthnCrypto

/// The big-number arithmetic behind the test authenticator's seeded keys and
/// deterministic signatures (``PrivateKey/derive(_:seed:)``), so the project's
/// Fixtures regenerate byte for byte. libcrypto 3.0 has no deterministic ECDSA
/// (RFC 6979 arrived in 3.2) and no seeded key generation, so the few steps are
/// written here with BN and EC_POINT arithmetic. Tests and fixtures only.
enum LibCryptoDeterministic {
    /// The EC group, order and private scalar of a key, as RFC 6979 needs them.
    struct ECParameters {
        /// The bit length of the group order (`qlen`).
        let orderBits: Int
        /// The private scalar, `ceil(qlen/8)` bytes (`int2octets(x)`).
        let privateScalar: [UInt8]
    }

    // MARK: Seeded keys

    /// An EC key pair whose scalar is the seed reduced into [1, n-1]; `seed` is asked for the
    /// seed with the byte length of the group order n.
    static func ecKeyPair(
        group groupName: String, seed: (_ orderLength: Int) -> [UInt8]
    ) throws(CryptoError) -> LibCryptoKeyPair {
        let scope = try BigNumberScope()
        let group = try scope.group(groupName)
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group) else { throw libcryptoFailure("EC_GROUP_get0_order") }
        let d = try scope.number(seed((Int(BN_num_bits(order)) + 7) / 8))
        let orderMinusOne = try scope.copy(order)
        guard BN_sub_word(orderMinusOne, 1) == 1, BN_nnmod(d, d, orderMinusOne, scope.context) == 1,
            BN_add_word(d, 1) == 1
        else { throw libcryptoFailure("reducing the seeded scalar") }
        guard let point = EC_POINT_new(group) else { throw libcryptoFailure("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, d, nil, nil, scope.context) == 1 else { throw libcryptoFailure("EC_POINT_mul") }
        let publicPoint = try pointOctets(group, point, scope)
        let scalar = try scope.bytes(d, count: (Int(BN_num_bits(order)) + 7) / 8)
        guard let curve = OBJ_nid2obj(OBJ_sn2nid(groupName)), let curveOID = encodedBytes({ i2d_ASN1_OBJECT(curve, $0) })
        else { throw libcryptoFailure("the OID of \(groupName)") }
        // RFC 5915 ECPrivateKey: version 1, the scalar, the named curve, the public point.
        return try LibCryptoKeyPair.privateKey(
            der: DEREncoder.sequence([
                DEREncoder.integer(1), DEREncoder.octetString(scalar), DEREncoder.explicit(0, curveOID),
                DEREncoder.explicit(1, DEREncoder.bitString(publicPoint)),
            ]))
    }

    /// An RSA key pair with e = 65537 whose primes are the first primes at or above
    /// the two seeds (top two bits set, so n has exactly `2 × primeBits` bits).
    static func rsaKeyPair(primeSeeds: ([UInt8], [UInt8]), primeBits: Int) throws(CryptoError) -> LibCryptoKeyPair {
        let scope = try BigNumberScope()
        let p = try prime(from: primeSeeds.0, bits: primeBits, scope)
        let q = try prime(from: primeSeeds.1, bits: primeBits, scope)
        guard BN_cmp(p, q) != 0 else { throw CryptoError(.libcrypto, "the two seeds gave one prime") }
        let n = try scope.fresh(), e = try scope.number([0x01, 0x00, 0x01])
        let p1 = try scope.copy(p), q1 = try scope.copy(q)
        let phi = try scope.fresh(), gcd = try scope.fresh(), lcm = try scope.fresh(), remainder = try scope.fresh()
        let d = try scope.fresh(), dp = try scope.fresh(), dq = try scope.fresh(), qInverse = try scope.fresh()
        guard BN_mul(n, p, q, scope.context) == 1, BN_sub_word(p1, 1) == 1, BN_sub_word(q1, 1) == 1,
            BN_mul(phi, p1, q1, scope.context) == 1, BN_gcd(gcd, p1, q1, scope.context) == 1,
            BN_div(lcm, remainder, phi, gcd, scope.context) == 1,
            BN_mod_inverse(d, e, lcm, scope.context) != nil,
            BN_nnmod(dp, d, p1, scope.context) == 1, BN_nnmod(dq, d, q1, scope.context) == 1,
            BN_mod_inverse(qInverse, q, p, scope.context) != nil
        else { throw libcryptoFailure("deriving the RSA private exponents") }
        let parts = try [n, e, d, p, q, dp, dq, qInverse].map { (bn) throws(CryptoError) in try scope.bytes(bn) }
        // PKCS #1 RSAPrivateKey: version 0, then n, e, d, p, q, d mod (p-1), d mod (q-1), q⁻¹ mod p.
        return try LibCryptoKeyPair.privateKey(
            der: DEREncoder.sequence([DEREncoder.integer(0)] + parts.map { DEREncoder.unsignedInteger($0) }))
    }

    /// An Ed25519 or Ed448 key from its raw private bytes.
    static func rawPrivateKey(algorithm name: String, _ bytes: [UInt8]) throws(CryptoError) -> LibCryptoKeyPair {
        ERR_clear_error()
        let key = bytes.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key_ex(nil, name, nil, $0.baseAddress, $0.count) }
        guard let key else { throw libcryptoFailure("EVP_PKEY_new_raw_private_key_ex(\(name))") }
        return LibCryptoKeyPair(takingOwnershipOf: key)
    }

    // MARK: ECDSA with a caller-chosen nonce

    /// The order size and private scalar of an EC key, plus `bits2octets(hash)`.
    static func ecParameters(_ key: LibCryptoKeyPair, hash: [UInt8]) throws(CryptoError) -> (ECParameters, reducedHash: [UInt8]) {
        let scope = try BigNumberScope()
        let group = try scope.group(of: key)
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group) else { throw libcryptoFailure("EC_GROUP_get0_order") }
        let orderBits = Int(BN_num_bits(order))
        let length = (orderBits + 7) / 8
        var priv: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, "priv", &priv) == 1, let priv else {
            throw libcryptoFailure("EVP_PKEY_get_bn_param(priv)")
        }
        scope.adopt(priv)
        let z = try bits2int(hash, orderBits: orderBits, scope)
        guard BN_nnmod(z, z, order, scope.context) == 1 else { throw libcryptoFailure("BN_nnmod") }
        return (
            ECParameters(orderBits: orderBits, privateScalar: try scope.bytes(priv, count: length)),
            try scope.bytes(z, count: length)
        )
    }

    /// An ECDSA signature (r, s), each padded to the order's length, with the nonce
    /// `bits2int(nonceCandidate)`; nil when that nonce is out of range or gives r or s = 0
    /// (RFC 6979 then asks for the next candidate).
    static func ecdsaSign(_ key: LibCryptoKeyPair, hash: [UInt8], nonceCandidate: [UInt8]) throws(CryptoError) -> [UInt8]? {
        let scope = try BigNumberScope()
        let group = try scope.group(of: key)
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group) else { throw libcryptoFailure("EC_GROUP_get0_order") }
        let orderBits = Int(BN_num_bits(order))
        let k = try bits2int(nonceCandidate, orderBits: orderBits, scope)
        guard BN_is_zero(k) == 0, BN_cmp(k, order) < 0 else { return nil }
        var priv: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, "priv", &priv) == 1, let priv else {
            throw libcryptoFailure("EVP_PKEY_get_bn_param(priv)")
        }
        scope.adopt(priv)
        guard let point = EC_POINT_new(group) else { throw libcryptoFailure("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        let x = try scope.fresh(), r = try scope.fresh(), s = try scope.fresh(), kInverse = try scope.fresh()
        let z = try bits2int(hash, orderBits: orderBits, scope)
        guard EC_POINT_mul(group, point, k, nil, nil, scope.context) == 1,
            EC_POINT_get_affine_coordinates(group, point, x, nil, scope.context) == 1,
            BN_nnmod(r, x, order, scope.context) == 1
        else { throw libcryptoFailure("computing r") }
        guard BN_is_zero(r) == 0 else { return nil }
        // s = k⁻¹ (z + r·d) mod n
        guard BN_mod_mul(s, r, priv, order, scope.context) == 1, BN_mod_add(s, s, z, order, scope.context) == 1,
            BN_mod_inverse(kInverse, k, order, scope.context) != nil,
            BN_mod_mul(s, s, kInverse, order, scope.context) == 1
        else { throw libcryptoFailure("computing s") }
        guard BN_is_zero(s) == 0 else { return nil }
        let length = (orderBits + 7) / 8
        return try scope.bytes(r, count: length) + scope.bytes(s, count: length)
    }

    // MARK: Raw RSA

    /// The modulus size of an RSA key, in bits.
    static func rsaModulusBits(_ key: LibCryptoKeyPair) -> Int { key.bits }

    /// The RSA private operation on one block of exactly the modulus length (no padding):
    /// the caller has already applied EMSA-PSS.
    static func rsaPrivateOperation(_ key: LibCryptoKeyPair, block: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw libcryptoFailure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_sign_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) == 1 else {
            throw libcryptoFailure("EVP_PKEY_sign_init (RSA, no padding)")
        }
        var length = 0
        var out = [UInt8](repeating: 0, count: block.count)
        let signed = block.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                length = output.count
                return EVP_PKEY_sign(ctx, output.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard signed == 1 else { throw libcryptoFailure("EVP_PKEY_sign (RSA, no padding)") }
        return Array(out.prefix(length))
    }

    // MARK: Helpers

    /// `bits2int` of RFC 6979 §2.3.2: the leftmost `orderBits` bits of `bytes` as an integer.
    private static func bits2int(_ bytes: [UInt8], orderBits: Int, _ scope: BigNumberScope) throws(CryptoError) -> OpaquePointer {
        let value = try scope.number(bytes)
        let excess = bytes.count * 8 - orderBits
        if excess > 0, BN_rshift(value, value, Int32(excess)) != 1 { throw libcryptoFailure("BN_rshift") }
        return value
    }

    /// The first prime ≥ the seed (with its top two bits and its low bit set) whose
    /// p − 1 is coprime to e = 65537.
    private static func prime(from seed: [UInt8], bits: Int, _ scope: BigNumberScope) throws(CryptoError) -> OpaquePointer {
        guard bits >= 64, seed.count * 8 >= bits else { throw CryptoError(.weakKey, "cannot derive a \(bits)-bit prime") }
        let candidate = try scope.number(Array(seed.prefix(bits / 8)))
        guard BN_set_bit(candidate, Int32(bits - 1)) == 1, BN_set_bit(candidate, Int32(bits - 2)) == 1,
            BN_set_bit(candidate, 0) == 1
        else { throw libcryptoFailure("BN_set_bit") }
        for _ in 0..<100_000 {
            if BN_mod_word(candidate, 65_537) != 1, BN_check_prime(candidate, scope.context, nil) == 1 {
                return candidate
            }
            guard BN_add_word(candidate, 2) == 1 else { throw libcryptoFailure("BN_add_word") }
        }
        throw CryptoError(.libcrypto, "no prime near the seed")
    }

    private static func pointOctets(
        _ group: OpaquePointer, _ point: OpaquePointer,
        _ scope: BigNumberScope
    ) throws(CryptoError) -> [UInt8] {
        let length = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, scope.context)
        guard length > 0 else { throw libcryptoFailure("EC_POINT_point2oct") }
        var out = [UInt8](repeating: 0, count: length)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, length, scope.context)
        guard written == length else { throw libcryptoFailure("EC_POINT_point2oct") }
        return out
    }
}

/// A `BN_CTX` plus every `BIGNUM` made through it, all freed (cleared) together.
private final class BigNumberScope {
    let context: OpaquePointer
    private var numbers: [OpaquePointer] = []

    init() throws(CryptoError) {
        guard let context = BN_CTX_new() else { throw libcryptoFailure("BN_CTX_new") }
        self.context = context
    }

    deinit {
        numbers.forEach { BN_clear_free($0) }
        BN_CTX_free(context)
    }

    /// Takes ownership of a number libcrypto returned.
    func adopt(_ number: OpaquePointer) { numbers.append(number) }

    func fresh() throws(CryptoError) -> OpaquePointer {
        guard let number = BN_new() else { throw libcryptoFailure("BN_new") }
        numbers.append(number)
        return number
    }

    func number(_ bytes: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let made = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(clamping: $0.count), nil) }
        guard let made else { throw libcryptoFailure("BN_bin2bn") }
        numbers.append(made)
        return made
    }

    func copy(_ other: OpaquePointer) throws(CryptoError) -> OpaquePointer {
        guard let made = BN_dup(other) else { throw libcryptoFailure("BN_dup") }
        numbers.append(made)
        return made
    }

    /// Big-endian bytes, left-padded to `count` when given.
    func bytes(_ number: OpaquePointer, count: Int? = nil) throws(CryptoError) -> [UInt8] {
        let natural = (Int(BN_num_bits(number)) + 7) / 8
        let length = max(count ?? natural, natural, 1)
        var out = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(number, &out, Int32(clamping: length)) == Int32(clamping: length) else {
            throw libcryptoFailure("BN_bn2binpad")
        }
        return out
    }

    func group(_ name: String) throws(CryptoError) -> OpaquePointer {
        let nid = OBJ_sn2nid(name)
        guard nid != NID_undef, let group = EC_GROUP_new_by_curve_name(nid) else {
            throw libcryptoFailure("unknown EC group \(name)", code: .unsupportedByLibCrypto)
        }
        return group
    }

    func group(of key: LibCryptoKeyPair) throws(CryptoError) -> OpaquePointer {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key.pointer, "group", &buffer, buffer.count, &length) == 1 else {
            throw libcryptoFailure("EVP_PKEY_get_utf8_string_param(group)", code: .algorithmMismatch)
        }
        let name = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return try group(name)
    }
}
