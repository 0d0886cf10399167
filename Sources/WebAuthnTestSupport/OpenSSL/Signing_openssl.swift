internal import CWebAuthnOpenSSL
import WebAuthnCrypto

// Signing exists for the software authenticator only; the shipping crypto layer verifies.
extension LibCryptoKeyPair {
    /// Signs with libcrypto (`EVP_DigestSign`); ECDSA output is DER. RSASSA-PSS is not
    /// signed here: `PrivateKey` derives its salt so the signature is deterministic.
    func sign(_ data: ArraySlice<UInt8>, scheme: SignatureScheme) throws(CryptoError) -> [UInt8] {
        let digest: Digest?
        switch scheme {
        case .ecdsa(let chosen), .rsaPKCS1(let chosen): digest = chosen
        case .eddsa, .mlDSA: digest = nil
        case .rsaPSS: throw CryptoError(.unsupportedAlgorithm, "RSASSA-PSS is signed by PrivateKey's deterministic PSS")
        }
        ERR_clear_error()
        guard let mdContext = EVP_MD_CTX_new() else { throw libcryptoFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(mdContext) }
        guard EVP_DigestSignInit_ex(mdContext, nil, digest?.libcryptoName, nil, nil, pointer, nil) == 1 else {
            throw libcryptoFailure("EVP_DigestSignInit_ex", code: .algorithmMismatch)
        }
        // One spare byte, so libcrypto gets a non-null pointer for an empty message.
        let message = Array(data) + [0]
        return try message.withUnsafeBufferPointer { (buffer) throws(CryptoError) -> [UInt8] in
            let tbs = buffer.baseAddress
            let tbsCount = buffer.count - 1
            var length = 0
            guard EVP_DigestSign(mdContext, nil, &length, tbs, tbsCount) == 1 else {
                throw libcryptoFailure("EVP_DigestSign (length)")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(mdContext, &signature, &length, tbs, tbsCount) == 1 else {
                throw libcryptoFailure("EVP_DigestSign")
            }
            return Array(signature.prefix(length))
        }
    }
}
