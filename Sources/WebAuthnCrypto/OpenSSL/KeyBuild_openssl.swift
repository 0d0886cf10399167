internal import CWebAuthnOpenSSL

/// Builds public keys with `EVP_PKEY_fromdata` / `OSSL_PARAM_BLD` (no deprecated
/// per-type key APIs) and checks them with `EVP_PKEY_public_check`.
package enum LibCryptoKeyBuilder {
    /// An EC public key from the group name and the uncompressed point `04 || x || y`.
    ///
    /// The COSE curves (P-256, P-384, P-521, secp256k1) all have cofactor 1, so every point
    /// on the curve other than infinity has the group's prime order: the quick public-key
    /// check (not infinity, coordinates in range, on the curve) accepts exactly the keys the
    /// full check does, without the full check's scalar multiplication by the order.
    ///
    /// The key is made by copying a parameters-only key of the group, built once, and
    /// setting the point (`EVP_PKEY_dup` + `EVP_PKEY_set1_encoded_public_key`). Setting an
    /// uncompressed point decodes it with `EC_POINT_oct2point`, which refuses a coordinate
    /// not below the field prime and a point off the curve, and an uncompressed encoding
    /// cannot express infinity: that is all the quick check tests, so it is not run a
    /// second time (it converts the point back to affine coordinates, a fifth of a `none`
    /// registration). `ECTemplatePointTests` holds libcrypto to this for every curve.
    /// Anything refused there is redone through `EVP_PKEY_fromdata` and the quick check,
    /// so a refused key is refused with exactly the error it always had.
    package static func ecPublicKey(group: String, uncompressedPoint: [UInt8]) throws(CryptoError) -> EVPKey {
        if let key = ECGroupTemplates.shared.publicKey(group: group, point: uncompressedPoint) {
            return key
        }
        ERR_clear_error()
        return try fromData(algorithm: "EC", what: "EC \(group) key", quickCheck: true) { (builder) throws(CryptoError) in
            try builder.pushUTF8("group", group)
            try builder.pushOctets("pub", uncompressedPoint[...])
        }
    }

    /// An RSA public key from big-endian modulus and exponent.
    static func rsaPublicKey(n: ArraySlice<UInt8>, e: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
        try fromData(algorithm: "RSA", what: "RSA key") { (builder) throws(CryptoError) in
            try builder.pushBigNumber("n", n)
            try builder.pushBigNumber("e", e)
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
            try builder.pushOctets("pub", bytes)
        }
    }

    /// A public key from a DER SubjectPublicKeyInfo that must span the whole input.
    package static func subjectPublicKeyInfo(_ der: ArraySlice<UInt8>) throws(CryptoError) -> EVPKey {
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

    /// Runs `fill` on a fresh parameter builder, then `EVP_PKEY_fromdata` with the
    /// public-key selection, then the public-key check.
    private static func fromData(
        algorithm: String, what: String, quickCheck: Bool = false,
        _ fill: (ParameterBuilder) throws(CryptoError) -> Void
    ) throws(CryptoError) -> EVPKey {
        let evpKey = try fromData(algorithm: algorithm, selection: cwebauthn_selection_public_key(),
                                  failure: "\(what) is not a valid public key", fill)
        try publicCheck(evpKey, what: what, quick: quickCheck)
        return evpKey
    }

    /// `EVP_PKEY_fromdata` of the parameters `fill` pushes, with the given selection
    /// (public key, or key pair for the test authenticator's seeded keys); no check.
    package static func fromData(
        algorithm: String, selection: Int32, failure: String,
        _ fill: (ParameterBuilder) throws(CryptoError) -> Void
    ) throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        let builder = try ParameterBuilder()
        try fill(builder)
        let params = try builder.build()
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw libcryptoFailure("libcrypto does not provide \(algorithm) keys", code: .unsupportedByLibCrypto)
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_fromdata_init(ctx) == 1 else { throw libcryptoFailure("EVP_PKEY_fromdata_init(\(algorithm))") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(ctx, &key, selection, params) == 1, let key else {
            throw libcryptoFailure(failure, code: .malformedKey)
        }
        return EVPKey(takingOwnershipOf: key)
    }

    /// `EVP_PKEY_public_check`: for EC, the point is on the curve and not infinity (and,
    /// in the full check, has the group's order). `quick` runs `EVP_PKEY_public_check_quick`,
    /// only for keys where the two cannot differ (EC groups of cofactor 1). RSA keys are
    /// checked by ``RSAPublicKeyCheck`` instead: libcrypto's RSA check is probabilistic.
    static func publicCheck(_ key: EVPKey, what: String, quick: Bool = false) throws(CryptoError) {
        if case .rsa = key.family {
            guard let parameters = key.rsaParameters else {
                throw libcryptoFailure("\(what): the RSA parameters cannot be read", code: .malformedKey)
            }
            do {
                try RSAPublicKeyCheck.check(n: parameters.n, e: parameters.e)
            } catch {
                throw CryptoError(.malformedKey, "\(what) fails the public-key check: \(error.reason)")
            }
            ERR_clear_error()
            return
        }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw libcryptoFailure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let result = quick ? EVP_PKEY_public_check_quick(ctx) : EVP_PKEY_public_check(ctx)
        // -2: the check is not implemented for this key type (nothing to check).
        guard result == 1 || result == -2 else {
            throw libcryptoFailure("\(what) fails the public-key check", code: .malformedKey)
        }
        ERR_clear_error()
    }
}

/// An `OSSL_PARAM_BLD` plus the memory its pushed values point into.
///
/// The builder keeps pointers to keys and values until `OSSL_PARAM_BLD_to_param`
/// copies the values; keys are never copied, so they must be static strings
/// (`StaticString` literals), and values are copied here into memory that lives as
/// long as this object.
package final class ParameterBuilder {
    private let builder: OpaquePointer
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var bigNumbers: [OpaquePointer] = []

    init() throws(CryptoError) {
        guard let builder = OSSL_PARAM_BLD_new() else { throw libcryptoFailure("OSSL_PARAM_BLD_new") }
        self.builder = builder
    }

    deinit {
        bigNumbers.forEach { BN_free($0) }
        buffers.forEach { $0.deallocate() }
        OSSL_PARAM_BLD_free(builder)
    }

    private static func cKey(_ key: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// Copies bytes (plus a zero byte) into memory this builder owns.
    private func keep(_ bytes: some Collection<UInt8>) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        buffers.append(buffer)
        return buffer
    }

    package func pushOctets(_ key: StaticString, _ bytes: ArraySlice<UInt8>) throws(CryptoError) {
        let buffer = keep(bytes)
        guard OSSL_PARAM_BLD_push_octet_string(builder, Self.cKey(key), buffer.baseAddress, bytes.count) == 1 else {
            throw libcryptoFailure("OSSL_PARAM_BLD_push_octet_string(\(key))")
        }
    }

    package func pushUTF8(_ key: StaticString, _ value: String) throws(CryptoError) {
        let buffer = keep(value.utf8)
        let text = buffer.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, Self.cKey(key), text, value.utf8.count) == 1 else {
            throw libcryptoFailure("OSSL_PARAM_BLD_push_utf8_string(\(key))")
        }
    }

    package func pushBigNumber(_ key: StaticString, _ bytes: ArraySlice<UInt8>) throws(CryptoError) {
        guard let count = Int32(exactly: bytes.count) else { throw CryptoError(.malformedKey, "\(key) is too long") }
        let bn = withBytePointer(bytes) { base, _ in BN_bin2bn(base, count, nil) }
        guard let bn else { throw libcryptoFailure("BN_bin2bn(\(key))") }
        bigNumbers.append(bn)
        guard OSSL_PARAM_BLD_push_BN(builder, Self.cKey(key), bn) == 1 else {
            throw libcryptoFailure("OSSL_PARAM_BLD_push_BN(\(key))")
        }
    }

    /// The parameter array; the caller frees it with `OSSL_PARAM_free`.
    func build() throws(CryptoError) -> UnsafeMutablePointer<OSSL_PARAM> {
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw libcryptoFailure("OSSL_PARAM_BLD_to_param") }
        return params
    }
}

/// Parameters-only EC keys of the COSE curves, built once per process and only read
/// afterwards (`EVP_PKEY_dup` copies them), so sharing them between threads is safe.
final class ECGroupTemplates: @unchecked Sendable {
    static let shared = ECGroupTemplates()

    private let templates: [String: OpaquePointer]

    private init() {
        var templates: [String: OpaquePointer] = [:]
        for group in ["prime256v1", "secp384r1", "secp521r1", "secp256k1"] {
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { continue }
            defer { EVP_PKEY_CTX_free(ctx) }
            var key: OpaquePointer?
            guard EVP_PKEY_paramgen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, group) == 1,
                  EVP_PKEY_paramgen(ctx, &key) == 1, let key else { continue }
            templates[group] = key
        }
        ERR_clear_error()
        self.templates = templates
    }

    deinit { for key in templates.values { EVP_PKEY_free(key) } }

    /// A new key of `group` holding `point`, an uncompressed point (`04 || x || y`), or nil
    /// when there is no template for the group, the point is not uncompressed, or libcrypto
    /// refuses it.
    func publicKey(group: String, point: [UInt8]) -> EVPKey? {
        guard point.first == 0x04, point.count % 2 == 1,
              let template = templates[group], let copy = EVP_PKEY_dup(template) else { return nil }
        let key = EVPKey(takingOwnershipOf: copy)
        let set = point.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
            return EVP_PKEY_set1_encoded_public_key(copy, base, buffer.count)
        }
        return set == 1 ? key : nil
    }
}
