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
        guard let ctx = EVP_CIPHER_CTX_new() else { throw libcryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw libcryptoFailure("EVP_EncryptInit_ex")
        }
        var written: Int32 = 0
        if aadLength > 0 {
            guard EVP_EncryptUpdate(ctx, nil, &written, aad, aadLength) == 1 else { throw libcryptoFailure("EVP_EncryptUpdate (aad)") }
        }
        // GCM is a stream mode: the ciphertext is as long as the plaintext; one spare block for safety.
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var total = 0
        if textLength > 0 {
            let ok = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return EVP_EncryptUpdate(ctx, base, &written, plaintext, textLength)
            }
            guard ok == 1, written >= 0, Int(written) <= plaintext.count else { throw libcryptoFailure("EVP_EncryptUpdate") }
            total = Int(written)
        }
        let finalOK = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return EVP_EncryptFinal_ex(ctx, base + total, &written)
        }
        guard finalOK == 1, written >= 0, total + Int(written) <= plaintext.count + 16 else {
            throw libcryptoFailure("EVP_EncryptFinal_ex")
        }
        total += Int(written)
        var tag = [UInt8](repeating: 0, count: tagSize)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), &tag) == 1 else {
            throw libcryptoFailure("EVP_CTRL_AEAD_GET_TAG")
        }
        return Array(out[0..<total]) + tag
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
        guard let ctx = EVP_CIPHER_CTX_new() else { throw libcryptoFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw libcryptoFailure("EVP_DecryptInit_ex")
        }
        var written: Int32 = 0
        if aadLength > 0 {
            guard EVP_DecryptUpdate(ctx, nil, &written, aad, aadLength) == 1 else { throw libcryptoFailure("EVP_DecryptUpdate (aad)") }
        }
        var out = [UInt8](repeating: 0, count: textCount + 16)
        var total = 0
        if textLength > 0 {
            let ok = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return EVP_DecryptUpdate(ctx, base, &written, ciphertext, textLength)
            }
            guard ok == 1, written >= 0, Int(written) <= textCount else { throw libcryptoFailure("EVP_DecryptUpdate") }
            total = Int(written)
        }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1 else {
            throw libcryptoFailure("EVP_CTRL_AEAD_SET_TAG")
        }
        let finalOK = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return EVP_DecryptFinal_ex(ctx, base + total, &written)
        }
        guard finalOK == 1 else {
            // A tag mismatch: not libcrypto's failure but forged or damaged input.
            ERR_clear_error()
            return nil
        }
        guard written >= 0, total + Int(written) <= textCount else { return nil }
        total += Int(written)
        return Array(out[0..<total])
    }
}
