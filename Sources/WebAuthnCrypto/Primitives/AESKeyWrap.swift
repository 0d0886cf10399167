/// AES-256 key unwrap (RFC 3394, the JWE `A256KW` of RFC 7518 §4.4), through libcrypto: how a
/// Play Integrity token carries its content-encryption key under the app's decryption key.
package enum AESKeyWrap {
    /// The key-encryption key's length: 32 bytes.
    package static let keySize = LibCryptoKeyWrap.keySize

    /// Unwraps a key.
    /// - Parameters:
    ///   - wrapped: the wrapped key (8 bytes longer than the key it carries).
    ///   - key: the 32-byte key-encryption key.
    /// - Returns: the unwrapped key, or nil when the integrity check fails (wrapped under another
    ///   key, altered, truncated) or the length is not whole 8-byte blocks of at least 24.
    /// - Throws: ``CryptoError`` `malformedKey` for a key that is not 32 bytes, `libcrypto` when
    ///   libcrypto fails.
    package static func unwrap(_ wrapped: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8]? {
        try LibCryptoKeyWrap.unwrap(wrapped, kek: key)
    }
}
