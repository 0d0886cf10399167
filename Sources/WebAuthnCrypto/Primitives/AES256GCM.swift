/// AES-256-GCM authenticated encryption (libcrypto), for state a server hands to a client
/// and must get back unchanged (sealed challenges), and to open a Play Integrity token (JWE
/// `A256GCM`). Not for anything the WebAuthn ceremonies verify.
package enum AES256GCM {
    /// The key length: 32 bytes.
    package static let keySize = LibCryptoAEAD.keySize
    /// The nonce length: 12 bytes (random per message).
    package static let nonceSize = LibCryptoAEAD.nonceSize
    /// The tag length: 16 bytes.
    package static let tagSize = LibCryptoAEAD.tagSize

    /// Encrypts and authenticates.
    /// - Parameters:
    ///   - plaintext: the bytes to hide.
    ///   - key: 32 bytes.
    ///   - nonce: 12 bytes, never reused with the same key.
    ///   - aad: bytes authenticated but not encrypted.
    /// - Returns: the ciphertext followed by the 16-byte tag.
    /// - Throws: ``CryptoError`` `malformedKey` for a wrong key or nonce length, `libcrypto` when libcrypto fails.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try LibCryptoAEAD.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
    }

    /// Authenticates and decrypts.
    /// - Parameters:
    ///   - sealed: the ciphertext followed by the tag.
    ///   - key: 32 bytes.
    ///   - nonce: the nonce it was sealed with.
    ///   - aad: the same authenticated bytes as at sealing.
    /// - Returns: the plaintext, or nil when the tag does not match (tampered, wrong key, wrong aad, truncated).
    /// - Throws: ``CryptoError`` `malformedKey` for a wrong key or nonce length, `libcrypto` when libcrypto fails.
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) throws(CryptoError) -> [UInt8]? {
        try LibCryptoAEAD.open(key: key, nonce: nonce, sealed: sealed, aad: aad)
    }
}
