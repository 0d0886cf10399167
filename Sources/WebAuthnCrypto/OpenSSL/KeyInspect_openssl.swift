internal import CWebAuthnOpenSSL

extension EVPKey {
    /// The family of the key at `pointer`, read from libcrypto.
    static func family(of pointer: OpaquePointer) -> KeyFamily {
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            let group = utf8Parameter(of: pointer, OSSL_PKEY_PARAM_GROUP_NAME) ?? "unknown group"
            return .ec(COSECurve(libcryptoGroupName: group), groupName: group)
        }
        if EVP_PKEY_is_a(pointer, "RSA") == 1 { return .rsa(bits: Int(EVP_PKEY_get_bits(pointer))) }
        if EVP_PKEY_is_a(pointer, "ED25519") == 1 { return .ed25519 }
        if EVP_PKEY_is_a(pointer, "ED448") == 1 { return .ed448 }
        for name in ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"] where EVP_PKEY_is_a(pointer, name) == 1 {
            return .mlDSA(name)
        }
        if EVP_PKEY_is_a(pointer, "RSA-PSS") == 1 { return .other("RSA-PSS \(EVP_PKEY_get_bits(pointer))") }
        if let name = EVP_PKEY_get0_type_name(pointer) { return .other(String(cString: name)) }
        return .other("unknown key type")
    }

    private static func utf8Parameter(of pointer: OpaquePointer, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, name, &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(min(length, buffer.count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A big-number parameter as big-endian bytes, left-padded to `width` when given.
    private func bigNumberParameter(_ name: String, width: Int? = nil) -> [UInt8]? {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else {
            ERR_clear_error()
            return nil
        }
        defer { BN_free(bn) }
        let natural = (Int(BN_num_bits(bn)) + 7) / 8
        let size = max(width ?? natural, natural, 1)
        var out = [UInt8](repeating: 0, count: size)
        guard let size32 = Int32(exactly: size), BN_bn2binpad(bn, &out, size32) == size32 else { return nil }
        if width == nil, natural > 0 { return Array(out.suffix(natural)) }
        return out
    }

    /// EC affine coordinates, each left-padded to the curve's field length.
    package var ecCoordinates: (x: [UInt8], y: [UInt8])? {
        guard case .ec(let curve, _) = family else { return nil }
        let width = curve?.coordinateLength ?? (Int(EVP_PKEY_get_bits(pointer)) + 7) / 8
        guard let x = bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: width),
              let y = bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: width) else { return nil }
        return (x, y)
    }

    /// RSA modulus and public exponent, minimal big-endian.
    package var rsaParameters: (n: [UInt8], e: [UInt8])? {
        guard case .rsa = family,
              let n = bigNumberParameter(OSSL_PKEY_PARAM_RSA_N),
              let e = bigNumberParameter(OSSL_PKEY_PARAM_RSA_E) else { return nil }
        return (n, e)
    }

    /// The raw public key of an Ed25519/Ed448 key, or the encoded public key of ML-DSA.
    package var rawPublicKey: [UInt8]? {
        switch family {
        case .ed25519, .ed448:
            var length = 0
            guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1 else { ERR_clear_error(); return nil }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_get_raw_public_key(pointer, &out, &length) == 1 else { ERR_clear_error(); return nil }
            return Array(out.prefix(length))
        case .mlDSA:
            var length = 0
            guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_PUB_KEY, nil, 0, &length) == 1 else {
                ERR_clear_error(); return nil
            }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_PUB_KEY, &out, length, &length) == 1 else {
                ERR_clear_error(); return nil
            }
            return Array(out.prefix(length))
        default:
            return nil
        }
    }

    /// The public key as a DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    package func subjectPublicKeyInfoDER() throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pointer, &out)
        guard length > 0, let out else { throw libcryptoFailure("i2d_PUBKEY") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Whether two keys hold the same public key (`EVP_PKEY_eq`).
    func isEqual(to other: EVPKey) -> Bool {
        let result = EVP_PKEY_eq(pointer, other.pointer)
        ERR_clear_error()
        return result == 1
    }
}
