internal import CWebAuthnOpenSSL
import WebAuthnCrypto

/// AES-256 key wrap (RFC 3394) for tests: the direction the library never runs, so that the
/// test token builder can make Play Integrity tokens (JWE `A256KW`) under a test decryption key.
enum LibCryptoTestKeyWrap {
    /// Wraps `key` (whole 8-byte blocks, at least 16 bytes) under the 32-byte `kek`.
    static func wrap(_ key: [UInt8], kek: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard kek.count == 32, key.count >= 16, key.count % 8 == 0, let length = Int32(exactly: key.count) else {
            throw CryptoError(.malformedKey, "AES-256 key wrap needs a 32-byte key and whole blocks of at least 16 bytes")
        }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw libcryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        EVP_CIPHER_CTX_set_flags(ctx, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        var wrapped = [UInt8](repeating: 0, count: key.count + 16)
        var written: Int32 = 0
        let ok = wrapped.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_EncryptInit_ex(ctx, EVP_aes_256_wrap(), nil, kek, nil) == 1
                && EVP_EncryptUpdate(ctx, base, &written, key, length) == 1
        }
        guard ok, Int(written) == key.count + 8 else { throw libcryptoFailure("EVP_EncryptUpdate (aes-256-wrap)") }
        return Array(wrapped.prefix(Int(written)))
    }
}
