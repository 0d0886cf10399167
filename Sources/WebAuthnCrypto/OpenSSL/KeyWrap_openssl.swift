internal import CWebAuthnOpenSSL

/// AES-256 key unwrap (RFC 3394) through libcrypto's EVP interface (`EVP_aes_256_wrap`). One
/// `EVP_CIPHER_CTX` per call, freed on every path; the integrity check value (RFC 3394 §2.2.3)
/// is checked inside libcrypto.
enum LibCryptoKeyWrap {
    /// The key-encryption key's length: 32 bytes.
    static let keySize = 32
    /// The block of key data and of the integrity check value: 8 bytes.
    static let blockSize = 8

    /// Unwraps `wrapped` with the key-encryption key `kek`.
    /// - Returns: the key data, or nil when the input is not whole blocks of at least three, or
    ///   its integrity check fails (wrapped under another key, or altered).
    /// - Throws: ``CryptoError`` `malformedKey` for a `kek` that is not 32 bytes, `libcrypto` when
    ///   libcrypto cannot set up the cipher.
    static func unwrap(_ wrapped: [UInt8], kek: [UInt8]) throws(CryptoError) -> [UInt8]? {
        guard kek.count == keySize else { throw CryptoError(.malformedKey, "AES-256 key unwrap needs a \(keySize)-byte key") }
        // RFC 3394 §2: n >= 2 blocks of key data after the integrity check value.
        guard wrapped.count >= 3 * blockSize, wrapped.count % blockSize == 0, let inputLength = Int32(exactly: wrapped.count)
        else { return nil }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw libcryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        // libcrypto refuses the wrap modes unless the caller says it knows they are not a stream cipher.
        EVP_CIPHER_CTX_set_flags(ctx, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_wrap(), nil, kek, nil) == 1 else {
            throw libcryptoFailure("EVP_DecryptInit_ex (aes-256-wrap)")
        }
        // The key data is one block shorter than the input; a spare block for libcrypto's bound.
        var out = [UInt8](repeating: 0, count: wrapped.count + blockSize)
        var written: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return EVP_DecryptUpdate(ctx, base, &written, wrapped, inputLength)
        }
        guard ok == 1, Int(written) == wrapped.count - blockSize else {
            // An integrity check that fails: not libcrypto's failure but forged or damaged input.
            ERR_clear_error()
            return nil
        }
        return Array(out[0..<Int(written)])
    }
}
