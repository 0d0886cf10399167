internal import CWebAuthnOpenSSL

/// Builds public keys with `EVP_PKEY_fromdata` / `OSSL_PARAM_BLD` (no deprecated
/// per-type key APIs) and checks them with `EVP_PKEY_public_check`.
enum LibCryptoKeyBuilder {
    /// An EC public key from the group name and the uncompressed point `04 || x || y`.
    static func ecPublicKey(group: String, uncompressedPoint: [UInt8]) throws(CryptoError) -> EVPKey {
        try fromData(algorithm: "EC", what: "EC \(group) key") { (builder) throws(CryptoError) in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) == 1 else {
                throw libcryptoFailure("OSSL_PARAM_BLD_push_utf8_string(group)")
            }
            try pushOctets(builder, OSSL_PKEY_PARAM_PUB_KEY, uncompressedPoint[...])
        }
    }

    /// An RSA public key from big-endian modulus and exponent.
    static func rsaPublicKey(n: ArraySlice<UInt8>, e: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
        var numbers: [OpaquePointer] = []
        defer { numbers.forEach { BN_free($0) } }
        return try fromData(algorithm: "RSA", what: "RSA key") { (builder) throws(CryptoError) in
            for (name, bytes) in [(OSSL_PKEY_PARAM_RSA_N, n), (OSSL_PKEY_PARAM_RSA_E, e)] {
                guard let count = Int32(exactly: bytes.count) else {
                    throw CryptoError(.malformedKey, "RSA \(name) is too long")
                }
                let bn = withBytePointer(bytes) { base, _ in BN_bin2bn(base, count, nil) }
                guard let bn else { throw libcryptoFailure("BN_bin2bn(\(name))") }
                numbers.append(bn)
                guard OSSL_PARAM_BLD_push_BN(builder, name, bn) == 1 else {
                    throw libcryptoFailure("OSSL_PARAM_BLD_push_BN(\(name))")
                }
            }
        }
    }

    /// An Ed25519 / Ed448 public key from its raw encoding.
    static func rawPublicKey(algorithm name: String, _ bytes: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        let key = withBytePointer(bytes) { base, count in EVP_PKEY_new_raw_public_key_ex(nil, name, nil, base, count) }
        guard let key else { throw libcryptoFailure("\(name) public key does not decode", code: .malformedKey) }
        let evpKey = EVPKey(takingOwnershipOf: key)
        try publicCheck(evpKey, what: "\(name) key")
        return evpKey
    }

    /// An ML-DSA public key from its encoding, where libcrypto provides ML-DSA.
    static func mlDSAPublicKey(algorithm name: String, _ bytes: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
        guard LibCrypto.providesKeyAlgorithm(name) else {
            throw CryptoError(.unsupportedByLibCrypto,
                              "\(name) needs a libcrypto with ML-DSA (OpenSSL 3.5 or later); linked: \(LibCrypto.versionText)")
        }
        return try fromData(algorithm: name, what: "\(name) key") { (builder) throws(CryptoError) in
            try pushOctets(builder, OSSL_PKEY_PARAM_PUB_KEY, bytes)
        }
    }

    /// A public key from a DER SubjectPublicKeyInfo that must span the whole input.
    static func subjectPublicKeyInfo(_ der: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        guard !der.isEmpty else { throw CryptoError(.malformedKey, "SubjectPublicKeyInfo is empty") }
        let parsed: (OpaquePointer?, Int) = withBytePointer(der) { base, count in
            var cursor: UnsafePointer<UInt8>? = base
            let key = d2i_PUBKEY(nil, &cursor, count)
            return (key, cursor.map { $0 - base } ?? 0)
        }
        guard let key = parsed.0 else {
            throw libcryptoFailure("SubjectPublicKeyInfo does not parse", code: .malformedKey)
        }
        let evpKey = EVPKey(takingOwnershipOf: key)
        guard parsed.1 == der.count else {
            throw CryptoError(.malformedKey, "\(der.count - parsed.1) byte(s) after the SubjectPublicKeyInfo")
        }
        try publicCheck(evpKey, what: "SubjectPublicKeyInfo key")
        return evpKey
    }

    // MARK: - Helpers

    private static func pushOctets(_ builder: OpaquePointer, _ name: String,
                                   _ bytes: ArraySlice<UInt8>) throws(CryptoError) {
        let ok = withBytePointer(bytes) { base, count in OSSL_PARAM_BLD_push_octet_string(builder, name, base, count) }
        guard ok == 1 else { throw libcryptoFailure("OSSL_PARAM_BLD_push_octet_string(\(name))") }
    }

    /// Runs `fill` on a fresh parameter builder, then `EVP_PKEY_fromdata` with the
    /// public-key selection, then the public-key check.
    private static func fromData(
        algorithm: String, what: String,
        _ fill: (OpaquePointer) throws(CryptoError) -> Void
    ) throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        guard let builder = OSSL_PARAM_BLD_new() else { throw libcryptoFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        try fill(builder)
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw libcryptoFailure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw libcryptoFailure("libcrypto does not provide \(algorithm) keys", code: .unsupportedByLibCrypto)
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_fromdata_init(ctx) == 1 else { throw libcryptoFailure("EVP_PKEY_fromdata_init(\(algorithm))") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(ctx, &key, cwebauthn_selection_public_key(), params) == 1, let key else {
            throw libcryptoFailure("\(what) is not a valid public key", code: .malformedKey)
        }
        let evpKey = EVPKey(takingOwnershipOf: key)
        try publicCheck(evpKey, what: what)
        return evpKey
    }

    /// `EVP_PKEY_public_check`: for EC, the point is on the curve and not infinity.
    static func publicCheck(_ key: EVPKey, what: String) throws(CryptoError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw libcryptoFailure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let result = EVP_PKEY_public_check(ctx)
        // -2: the check is not implemented for this key type (nothing to check).
        guard result == 1 || result == -2 else {
            throw libcryptoFailure("\(what) fails the public-key check", code: .malformedKey)
        }
        ERR_clear_error()
    }
}
