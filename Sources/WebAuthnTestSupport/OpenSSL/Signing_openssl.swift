internal import CWebAuthnOpenSSL
import WebAuthnCrypto

// Signing exists for the software authenticator only; the shipping crypto layer verifies.
extension EVPKey {
    /// Signs (tests only); ECDSA output is DER.
    func sign(_ data: ArraySlice<UInt8>, scheme: AlgorithmProfile.Scheme) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard let mdContext = EVP_MD_CTX_new() else { throw libcryptoFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(mdContext) }
        try initialize(mdContext, scheme: scheme, signing: true)
        return try withBytePointer(data) { (tbs, tbsCount) throws(CryptoError) -> [UInt8] in
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
