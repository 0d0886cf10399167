internal import CWebAuthnOpenSSL
import Synchronization

/// Owns one libcrypto `EVP_PKEY` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable` is sound because the key is never mutated after it is
/// built: every use is a read-only verification through a fresh `EVP_MD_CTX` /
/// `EVP_PKEY_CTX`, and OpenSSL 3 documents concurrent use of a const `EVP_PKEY`
/// by several threads as safe. That lets one key, built once, serve every later
/// verification from any task.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Verification contexts this key has used, kept for the next verification. A context
    /// that verified once keeps its key context, so initializing it again skips building a
    /// new one from the key (for RSA that search costs about 4% of a verification). Each
    /// context is taken out while one caller uses it, so none is ever shared.
    private let spareContexts = Mutex<[SpareContext]>([])
    private static let maximumSpareContexts = 8

    /// The key's family, read from libcrypto once: each read is a series of name lookups
    /// (about 5,000 instructions), and every key check and verification needs it.
    let family: KeyFamily

    /// Takes ownership of a key from libcrypto; the caller must not free it.
    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
        self.family = Self.family(of: pointer)
    }

    deinit {
        spareContexts.withLock { contexts in
            for context in contexts { EVP_MD_CTX_free(context.pointer) }
            contexts.removeAll()
        }
        EVP_PKEY_free(pointer)
    }

    /// A verification context used before with this key, or a new one; nil if libcrypto
    /// cannot allocate one.
    func takeVerifyContext() -> OpaquePointer? {
        if let spare = spareContexts.withLock({ $0.popLast() }) { return spare.pointer }
        return EVP_MD_CTX_new()
    }

    /// Gives a context back after a verification that ran to the end; frees it when
    /// enough are kept already.
    func returnVerifyContext(_ context: OpaquePointer) {
        let kept = spareContexts.withLock { contexts -> Bool in
            guard contexts.count < Self.maximumSpareContexts else { return false }
            contexts.append(SpareContext(pointer: context))
            return true
        }
        if !kept { EVP_MD_CTX_free(context) }
    }
}

/// An idle `EVP_MD_CTX` kept by a key. `@unchecked Sendable`: it is only ever held by the
/// key's lock or by the one caller that took it out.
struct SpareContext: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The text of libcrypto's most recent error on this thread (and clears the queue).
func libcryptoErrorText(_ context: String) -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? context : "\(context): \(parts.joined(separator: "; "))"
}

/// Empties this thread's libcrypto error queue. `ERR_clear_error` walks every slot of the
/// queue (about 400 instructions) even when it is empty, which it is on every verification
/// that succeeds; a look at the oldest error (`ERR_peek_error`, 0 when none is queued) is
/// enough to tell.
func clearLibcryptoErrors() {
    if ERR_peek_error() != 0 { ERR_clear_error() }
}

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
    var ecCoordinates: (x: [UInt8], y: [UInt8])? {
        guard case .ec(let curve, _) = family else { return nil }
        let width = curve?.coordinateLength ?? (Int(EVP_PKEY_get_bits(pointer)) + 7) / 8
        guard let x = bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: width),
            let y = bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: width)
        else { return nil }
        return (x, y)
    }

    /// RSA modulus and public exponent, minimal big-endian.
    var rsaParameters: (n: [UInt8], e: [UInt8])? {
        guard case .rsa = family,
            let n = bigNumberParameter(OSSL_PKEY_PARAM_RSA_N),
            let e = bigNumberParameter(OSSL_PKEY_PARAM_RSA_E)
        else { return nil }
        return (n, e)
    }

    /// The public key as a DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    func subjectPublicKeyInfoDER() throws(CryptoError) -> [UInt8] {
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

/// Builds public keys with `EVP_PKEY_fromdata` / `OSSL_PARAM_BLD` (no deprecated
/// per-type key APIs) and checks them with `EVP_PKEY_public_check`.
enum LibCryptoKeyBuilder {
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
    static func ecPublicKey(group: String, uncompressedPoint: [UInt8]) throws(CryptoError) -> EVPKey {
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
            throw CryptoError(
                .unsupportedByLibCrypto,
                "\(name) needs a libcrypto with ML-DSA (OpenSSL 3.5 or later); linked: \(LibCrypto.versionText)")
        }
        return try fromData(algorithm: name, what: "\(name) key") { (builder) throws(CryptoError) in
            try builder.pushOctets("pub", bytes)
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

    /// Runs `fill` on a fresh parameter builder, then `EVP_PKEY_fromdata` with the
    /// public-key selection, then the public-key check.
    private static func fromData(
        algorithm: String, what: String, quickCheck: Bool = false,
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
        guard EVP_PKEY_fromdata(ctx, &key, cwebauthn_selection_public_key(), params) == 1, let key else {
            throw libcryptoFailure("\(what) is not a valid public key", code: .malformedKey)
        }
        let evpKey = EVPKey(takingOwnershipOf: key)
        try publicCheck(evpKey, what: what, quick: quickCheck)
        return evpKey
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
final class ParameterBuilder {
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

    func pushOctets(_ key: StaticString, _ bytes: ArraySlice<UInt8>) throws(CryptoError) {
        let buffer = keep(bytes)
        guard OSSL_PARAM_BLD_push_octet_string(builder, Self.cKey(key), buffer.baseAddress, bytes.count) == 1 else {
            throw libcryptoFailure("OSSL_PARAM_BLD_push_octet_string(\(key))")
        }
    }

    func pushUTF8(_ key: StaticString, _ value: String) throws(CryptoError) {
        let buffer = keep(value.utf8)
        let text = buffer.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, Self.cKey(key), text, value.utf8.count) == 1 else {
            throw libcryptoFailure("OSSL_PARAM_BLD_push_utf8_string(\(key))")
        }
    }

    func pushBigNumber(_ key: StaticString, _ bytes: ArraySlice<UInt8>) throws(CryptoError) {
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
                EVP_PKEY_paramgen(ctx, &key) == 1, let key
            else { continue }
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
            let template = templates[group], let copy = EVP_PKEY_dup(template)
        else { return nil }
        let key = EVPKey(takingOwnershipOf: copy)
        let set = point.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
            return EVP_PKEY_set1_encoded_public_key(copy, base, buffer.count)
        }
        return set == 1 ? key : nil
    }
}

extension EVPKey {
    /// Starts a verify operation with the scheme's digest and padding.
    func initializeVerification(_ mdContext: OpaquePointer, scheme: SignatureScheme) throws(CryptoError) {
        var md: OpaquePointer?
        var pss = false
        switch scheme {
        case .ecdsa(let digest), .rsaPKCS1(let digest): md = digest.evpMD
        case .rsaPSS(let digest): md = digest.evpMD; pss = true
        case .eddsa, .mlDSA: md = nil
        }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(mdContext, &keyContext, md, nil, pointer) == 1 else {
            throw libcryptoFailure("EVP_DigestVerifyInit", code: .algorithmMismatch)
        }
        if pss {
            guard let keyContext,
                EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, md) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
            else { throw libcryptoFailure("setting RSASSA-PSS parameters") }
        }
    }

    /// The one verification entry: a signature over `first`, or over `first || digest`
    /// without joining them (an assertion signs `authenticatorData || SHA-256(clientDataJSON)`).
    /// Digest schemes stream both parts through `EVP_DigestVerifyUpdate`; EdDSA, which is
    /// one-shot, gets them side by side in a temporary buffer on the stack.
    /// `false` when the signature does not verify.
    func verify(
        signature: ArraySlice<UInt8>, over first: ArraySlice<UInt8>, then digest: InlineArray<32, UInt8>?,
        scheme: SignatureScheme
    ) throws(CryptoError) -> Bool {
        guard let digest else {
            return try verifyParts(signature, first, UnsafeBufferPointer(start: nil, count: 0), scheme)
        }
        return try digest.span.withUnsafeBufferPointer { (second) throws(CryptoError) -> Bool in
            try verifyParts(signature, first, second, scheme)
        }
    }

    /// The worker behind ``verify(signature:over:then:scheme:)``, with the second part as raw memory.
    private func verifyParts(
        _ signature: ArraySlice<UInt8>, _ first: ArraySlice<UInt8>, _ second: UnsafeBufferPointer<UInt8>,
        _ scheme: SignatureScheme
    ) throws(CryptoError) -> Bool {
        clearLibcryptoErrors()
        if case .ecdsa = scheme { try ECDSASignature.requireStrictDER(signature) }
        guard let mdContext = takeVerifyContext() else { throw libcryptoFailure("EVP_MD_CTX_new") }
        // Given back for the next verification only after it ran to the end; a context
        // left by a failure is freed.
        var reusable = false
        defer { if reusable { returnVerifyContext(mdContext) } else { EVP_MD_CTX_free(mdContext) } }
        try initializeVerification(mdContext, scheme: scheme)
        // The context verifies once: no copy of the key context is kept for a later update.
        EVP_MD_CTX_set_flags(mdContext, EVP_MD_CTX_FLAG_FINALISE)
        let result: Int32
        switch scheme {
        case .ecdsa, .rsaPKCS1, .rsaPSS:
            let updated =
                withBytePointer(first) { EVP_DigestVerifyUpdate(mdContext, $0, $1) } == 1
                && (second.isEmpty || second.baseAddress.map { EVP_DigestVerifyUpdate(mdContext, $0, second.count) } == 1)
            result = updated ? withBytePointer(signature) { EVP_DigestVerifyFinal(mdContext, $0, $1) } : 0
        case .eddsa, .mlDSA:
            if second.isEmpty {
                result = withBytePointer(signature) { sig, sigCount in
                    withBytePointer(first) { tbs, tbsCount in EVP_DigestVerify(mdContext, sig, sigCount, tbs, tbsCount) }
                }
            } else {
                let total = first.count + second.count
                result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { buffer in
                    guard let base = buffer.baseAddress else { return 0 }
                    first.withUnsafeBufferPointer { part in
                        if let p = part.baseAddress { base.update(from: p, count: part.count) }
                    }
                    if let p = second.baseAddress { (base + first.count).update(from: p, count: second.count) }
                    return withBytePointer(signature) { sig, sigCount in
                        EVP_DigestVerify(mdContext, sig, sigCount, UnsafePointer(base), total)
                    }
                }
            }
        }
        // 1 = verified; 0 = bad signature; < 0 = malformed input (for example an RSA
        // signature longer than the modulus), which is also "does not verify".
        clearLibcryptoErrors()
        reusable = result >= 0
        return result == 1
    }
}

/// Converts between the two ECDSA signature encodings. WebAuthn carries ECDSA
/// signatures as DER `ECDSA-Sig-Value`, which is what ``PublicKey/verify(signature:over:algorithm:options:)``
/// requires; JOSE (RFC 7518 §3.4, e.g. SafetyNet's JWS) carries the fixed-width `r || s`.
package enum ECDSASignature {
    /// The DER `ECDSA-Sig-Value` for a fixed-width `r || s` signature.
    /// - Parameters:
    ///   - raw: `r || s`, each `coordinateLength` bytes, big-endian.
    ///   - coordinateLength: the curve's coordinate size (32 for P-256, 48 for P-384, 66 for P-521).
    /// - Returns: `SEQUENCE { INTEGER r, INTEGER s }` in DER.
    /// - Throws: ``CryptoError`` `malformedSignature` when `raw` is not exactly two coordinates long.
    package static func derEncoded(raw: ArraySlice<UInt8>, coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        guard coordinateLength > 0, raw.count == 2 * coordinateLength else {
            throw CryptoError(
                .malformedSignature,
                "raw ECDSA signature is \(raw.count) bytes, expected \(2 * max(coordinateLength, 0))")
        }
        // libcrypto writes the DER (`i2d_ECDSA_SIG`): minimal INTEGERs, as the verifier requires.
        clearLibcryptoErrors()
        guard let sig = ECDSA_SIG_new() else { throw libcryptoFailure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(sig) }
        let width = Int32(clamping: coordinateLength)
        let r = withBytePointer(raw.prefix(coordinateLength)) { base, _ in BN_bin2bn(base, width, nil) }
        let s = withBytePointer(raw.suffix(coordinateLength)) { base, _ in BN_bin2bn(base, width, nil) }
        // ECDSA_SIG_set0 owns r and s once it succeeds; until then they are freed here.
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw libcryptoFailure("ECDSA_SIG_set0")
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &out)
        guard length > 0, let out else { throw libcryptoFailure("i2d_ECDSA_SIG") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}

extension ECDSASignature {
    /// Requires an ECDSA signature to be one DER `ECDSA-Sig-Value` exactly as libcrypto
    /// would write it: `SEQUENCE { INTEGER r, INTEGER s }` with minimal definite lengths,
    /// each integer in its shortest unsigned form (a single leading zero only before a
    /// byte with the top bit set), and nothing after the sequence.
    ///
    /// This is the same rule as parsing with `d2i_ECDSA_SIG` and requiring `i2d_ECDSA_SIG`
    /// to give back the same bytes (tests compare the two), without the four allocations
    /// that round trip costs on every login.
    /// - Parameter signature: the signature bytes.
    /// - Throws: ``CryptoError`` `malformedSignature`.
    static func requireStrictDER(_ signature: ArraySlice<UInt8>) throws(CryptoError) {
        guard !signature.isEmpty else { throw CryptoError(.malformedSignature, "ECDSA signature is empty") }
        guard isStrictDER(signature) else {
            throw CryptoError(.malformedSignature, "ECDSA signature is not one strict DER ECDSA-Sig-Value (\(signature.count) bytes)")
        }
    }

    static func isStrictDER(_ signature: ArraySlice<UInt8>) -> Bool {
        var position = signature.startIndex
        let end = signature.endIndex
        guard let sequence = element(signature, &position, tag: 0x30), position == end else { return false }
        var inner = sequence.lowerBound
        guard let r = element(signature, &inner, tag: 0x02), isMinimalUnsigned(signature[r]),
            let s = element(signature, &inner, tag: 0x02), isMinimalUnsigned(signature[s]),
            inner == sequence.upperBound
        else { return false }
        return true
    }

    /// Reads one tag-length-value with a minimal definite length; returns the value's range.
    private static func element(_ bytes: ArraySlice<UInt8>, _ position: inout Int, tag: UInt8) -> Range<Int>? {
        let end = bytes.endIndex
        guard position < end, bytes[position] == tag, end - position >= 2 else { return nil }
        let first = bytes[position + 1]
        var cursor = position + 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7f)
            // 0x80 is BER's indefinite length; more than 4 length bytes cannot fit a signature.
            guard count >= 1, count <= 4, end - cursor >= count, bytes[cursor] != 0 else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
            // Minimal: a long form only for 128 and more, and no more length bytes than needed.
            guard length >= 0x80 else { return nil }
        }
        guard end - cursor >= length else { return nil }
        position = cursor + length
        return cursor..<(cursor + length)
    }

    /// The content is how DER writes a non-negative integer: not empty, and a leading zero
    /// byte only alone (zero) or before a byte with the top bit set.
    private static func isMinimalUnsigned(_ content: ArraySlice<UInt8>) -> Bool {
        guard let first = content.first else { return false }
        if first >= 0x80 { return false }
        if first == 0 && content.count > 1 { return content[content.startIndex + 1] >= 0x80 }
        return true
    }
}
