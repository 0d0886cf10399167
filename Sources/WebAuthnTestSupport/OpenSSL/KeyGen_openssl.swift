internal import CWebAuthnOpenSSL
import WebAuthnCrypto

/// Key generation for tests (``PrivateKey``).
enum LibCryptoKeyGen {
    /// The parameters one generation needs.
    enum Parameters {
        case ecGroup(String)
        case rsaBits(Int32)
        case none
    }

    /// Generates a key pair of the named libcrypto algorithm ("EC", "RSA", "ED25519", ...).
    static func generate(algorithm name: String, _ parameters: Parameters) throws(CryptoError) -> LibCryptoKeyPair {
        ERR_clear_error()
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw libcryptoFailure("libcrypto does not provide \(name) keys", code: .unsupportedByLibCrypto)
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw libcryptoFailure("EVP_PKEY_keygen_init(\(name))") }
        switch parameters {
        case .ecGroup(let group):
            guard EVP_PKEY_CTX_set_group_name(ctx, group) == 1 else {
                throw libcryptoFailure("EVP_PKEY_CTX_set_group_name(\(group))")
            }
        case .rsaBits(let bits):
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits) == 1 else {
                throw libcryptoFailure("EVP_PKEY_CTX_set_rsa_keygen_bits(\(bits))")
            }
        case .none:
            break
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &key) == 1, let key else { throw libcryptoFailure("EVP_PKEY_generate(\(name))") }
        return LibCryptoKeyPair(takingOwnershipOf: key)
    }
}
