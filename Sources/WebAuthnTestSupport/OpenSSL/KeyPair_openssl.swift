internal import CWebAuthnOpenSSL
import WebAuthnCrypto

// Test support holds its private keys itself: the library only ever holds public keys, and
// meets these through their DER SubjectPublicKeyInfo (`PrivateKey.publicKey`).

/// One libcrypto key pair (`EVP_PKEY` with its private half), owned here and freed exactly
/// once, in `deinit`. `@unchecked Sendable`: it is never changed after it is made, and
/// OpenSSL 3 documents concurrent reads of one `EVP_PKEY` as safe.
final class LibCryptoKeyPair: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a key from libcrypto; the caller must not free it.
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Whether libcrypto holds a key of the named type ("EC", "RSA", "ED25519", ...).
    func isA(_ name: String) -> Bool { EVP_PKEY_is_a(pointer, name) == 1 }

    /// The size of the key in bits (the modulus for RSA).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The public half as a DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    func subjectPublicKeyInfoDER() throws(CryptoError) -> [UInt8] {
        guard let der = encodedBytes({ i2d_PUBKEY(pointer, $0) }) else { throw libcryptoFailure("i2d_PUBKEY") }
        return der
    }

    /// A key pair from DER: a PKCS #1 `RSAPrivateKey` or an RFC 5915 `ECPrivateKey`
    /// (`d2i_AutoPrivateKey`), which must span all of `der`.
    static func privateKey(der: [UInt8]) throws(CryptoError) -> LibCryptoKeyPair {
        ERR_clear_error()
        guard let parsed = decodedWhole(der, { d2i_AutoPrivateKey(nil, $0, $1) }, free: { EVP_PKEY_free($0) }) else {
            throw libcryptoFailure("d2i_AutoPrivateKey")
        }
        return LibCryptoKeyPair(takingOwnershipOf: parsed)
    }
}

/// A `CryptoError` (code `libcrypto` unless given) naming `context` and libcrypto's oldest
/// queued error; empties this thread's error queue.
func libcryptoFailure(_ context: String, code: CryptoError.Code = .libcrypto) -> CryptoError {
    let first = ERR_get_error()
    var text = context
    if first != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(first, &buffer, buffer.count)
        text += ": " + String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    ERR_clear_error()
    return CryptoError(code, text)
}

extension Digest {
    /// libcrypto's name for the digest.
    var libcryptoName: String {
        switch self {
        case .sha1: return "SHA1"
        case .sha256: return "SHA256"
        case .sha384: return "SHA384"
        case .sha512: return "SHA512"
        }
    }

    /// The digest's length in bytes.
    var byteCount: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }
}
