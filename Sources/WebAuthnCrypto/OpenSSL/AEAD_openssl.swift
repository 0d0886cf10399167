internal import CWebAuthnOpenSSL

/// AES-256-GCM through libcrypto's EVP interface. One `EVP_CIPHER_CTX` per call, freed on every
/// path; the tag is checked by `EVP_DecryptFinal_ex` (constant time inside libcrypto).
enum LibCryptoAEAD {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16

    /// Encrypts `plaintext` and authenticates it with `aad`; returns ciphertext followed by the tag.
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keySize, nonce.count == nonceSize else {
            throw CryptoError(.malformedKey, "AES-256-GCM needs a \(keySize)-byte key and a \(nonceSize)-byte nonce")
        }
        guard let textLength = Int32(exactly: plaintext.count), let aadLength = Int32(exactly: aad.count) else {
            throw CryptoError(.libcrypto, "AES-256-GCM: input too long")
        }
        return try run(
            .encrypt, key: key, nonce: nonce, aad: aad, aadLength: aadLength, input: plaintext, inputLength: textLength
        ) { (ctx, out: inout [UInt8], total) throws(CryptoError) in
            guard let written = finish(ctx, .encrypt, &out, at: total), written >= 0,
                total + Int(written) <= plaintext.count + 16
            else {
                throw libcryptoFailure("EVP_EncryptFinal_ex")
            }
            var tag = [UInt8](repeating: 0, count: tagSize)
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), &tag) == 1 else {
                throw libcryptoFailure("EVP_CTRL_AEAD_GET_TAG")
            }
            return Array(out[0..<(total + Int(written))]) + tag
        }
    }

    /// Checks the tag over `aad` and the ciphertext, then decrypts; nil when they do not authenticate.
    static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], aad: [UInt8]) throws(CryptoError) -> [UInt8]? {
        guard key.count == keySize, nonce.count == nonceSize else {
            throw CryptoError(.malformedKey, "AES-256-GCM needs a \(keySize)-byte key and a \(nonceSize)-byte nonce")
        }
        guard sealed.count >= tagSize else { return nil }
        let textCount = sealed.count - tagSize
        let ciphertext = Array(sealed[0..<textCount])
        var tag = Array(sealed[textCount...])
        guard let textLength = Int32(exactly: textCount), let aadLength = Int32(exactly: aad.count) else { return nil }
        return try run(
            .decrypt, key: key, nonce: nonce, aad: aad, aadLength: aadLength, input: ciphertext, inputLength: textLength
        ) { (ctx, out: inout [UInt8], total) throws(CryptoError) -> [UInt8]? in
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1 else {
                throw libcryptoFailure("EVP_CTRL_AEAD_SET_TAG")
            }
            guard let written = finish(ctx, .decrypt, &out, at: total) else {
                // A tag mismatch: not libcrypto's failure but forged or damaged input.
                ERR_clear_error()
                return nil
            }
            guard written >= 0, total + Int(written) <= textCount else { return nil }
            return Array(out[0..<(total + Int(written))])
        }
    }

    /// libcrypto's calls for one direction, and the name its failures are reported under.
    private struct Direction: Sendable {
        let name: String
        let initialize: @Sendable (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32
        let update:
            @Sendable (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32) -> Int32
        let final: @Sendable (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32

        static let encrypt = Direction(
            name: "Encrypt", initialize: EVP_EncryptInit_ex, update: EVP_EncryptUpdate, final: EVP_EncryptFinal_ex)
        static let decrypt = Direction(
            name: "Decrypt", initialize: EVP_DecryptInit_ex, update: EVP_DecryptUpdate, final: EVP_DecryptFinal_ex)
    }

    /// Keys a new context for `direction`, authenticates `aad`, runs `input` through it into an
    /// output buffer, then hands the context, the buffer and the bytes written so far to
    /// `complete` (the tag and the final block are each direction's own). The context is freed
    /// on every path.
    private static func run<Result>(
        _ direction: Direction, key: [UInt8], nonce: [UInt8], aad: [UInt8], aadLength: Int32,
        input: [UInt8], inputLength: Int32,
        _ complete: (OpaquePointer, inout [UInt8], Int) throws(CryptoError) -> Result
    ) throws(CryptoError) -> Result {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw libcryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard direction.initialize(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw libcryptoFailure("EVP_\(direction.name)Init_ex")
        }
        var written: Int32 = 0
        if aadLength > 0 {
            guard direction.update(ctx, nil, &written, aad, aadLength) == 1 else {
                throw libcryptoFailure("EVP_\(direction.name)Update (aad)")
            }
        }
        // GCM is a stream mode: the output is as long as the input; one spare block for safety.
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var total = 0
        if inputLength > 0 {
            let ok = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return direction.update(ctx, base, &written, input, inputLength)
            }
            guard ok == 1, written >= 0, Int(written) <= input.count else {
                throw libcryptoFailure("EVP_\(direction.name)Update")
            }
            total = Int(written)
        }
        return try complete(ctx, &out, total)
    }

    /// The direction's final call, writing after the first `total` bytes of `out`: how many
    /// bytes it wrote, or nil when it failed (for decryption, a tag that does not authenticate).
    private static func finish(_ ctx: OpaquePointer, _ direction: Direction, _ out: inout [UInt8], at total: Int) -> Int32? {
        var written: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return direction.final(ctx, base + total, &written)
        }
        return ok == 1 ? written : nil
    }
}
