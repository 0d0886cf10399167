internal import CWebAuthnOpenSSL
package import WebAuthnCrypto

/// The benchmark's yardstick: libcrypto's own signature-verification rate, written
/// directly against libcrypto the way a best-case caller would use it, with nothing
/// of this library in the loop. Not part of the library's API.
///
/// The message has the size an assertion signs (37 bytes of authenticator data and a
/// 32-byte client-data hash). The public key is prepared once (an `EVP_PKEY` built
/// from the public half's SubjectPublicKeyInfo), the digest is fetched once, and one
/// `EVP_MD_CTX` per loop is reused: each operation is `EVP_DigestVerifyInit`, the
/// single-use flag (`EVP_MD_CTX_FLAG_FINALISE`, so the final step does not copy the key
/// context) and `EVP_DigestVerify`, which is what verifying one signature with a known
/// key costs a best-case caller.
package final class LibCryptoVerifyBaseline: @unchecked Sendable {
    /// The signature schemes the benchmark compares against.
    package enum Algorithm: String, Sendable, CaseIterable {
        /// ECDSA P-256 with SHA-256.
        case es256
        /// Ed25519 (pure EdDSA).
        case eddsa
        /// RSASSA-PKCS1-v1_5 with SHA-256, 2048-bit modulus.
        case rs256
    }

    /// The algorithm measured.
    package let algorithm: Algorithm
    /// The signed message: 69 bytes (authenticator data and a SHA-256 hash).
    package let message: [UInt8]
    /// A valid signature over ``message``.
    package let signature: [UInt8]
    // Owned here, freed once in deinit. Only read after init: libcrypto documents
    // concurrent verification with one EVP_PKEY as safe; each loop has its own EVP_MD_CTX.
    private let publicKey: OpaquePointer
    private let digest: OpaquePointer?

    /// Generates a key pair, signs a 69-byte message, and keeps only the public key,
    /// rebuilt from its DER SubjectPublicKeyInfo.
    /// - Parameter algorithm: the scheme.
    /// - Throws: ``CryptoError`` when libcrypto fails.
    package init(_ algorithm: Algorithm) throws(CryptoError) {
        self.algorithm = algorithm
        let privateKey: LibCryptoKeyPair
        switch algorithm {
        case .es256: privateKey = try LibCryptoKeyGen.generate(algorithm: "EC", .ecGroup("prime256v1"))
        case .eddsa: privateKey = try LibCryptoKeyGen.generate(algorithm: "ED25519", .none)
        case .rs256: privateKey = try LibCryptoKeyGen.generate(algorithm: "RSA", .rsaBits(2048))
        }
        var message = [UInt8](repeating: 0, count: 69)
        for index in message.indices { message[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        self.message = message
        let scheme: SignatureScheme
        switch algorithm {
        case .es256: scheme = .ecdsa(.sha256)
        case .eddsa: scheme = .eddsa
        case .rs256: scheme = .rsaPKCS1(.sha256)
        }
        signature = try privateKey.sign(message[...], scheme: scheme)
        let spki = try privateKey.subjectPublicKeyInfoDER()
        let built = try spki.withUnsafeBufferPointer { (buffer) throws(CryptoError) -> OpaquePointer in
            var cursor = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { throw libcryptoFailure("d2i_PUBKEY") }
            return key
        }
        publicKey = built
        if algorithm == .eddsa {
            digest = nil
        } else {
            guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
                EVP_PKEY_free(built)
                throw libcryptoFailure("EVP_MD_fetch(SHA256)")
            }
            digest = md
        }
    }

    deinit {
        EVP_PKEY_free(publicKey)
        if let digest { EVP_MD_free(digest) }
    }

    /// Verifies ``signature`` over ``message`` `iterations` times with one reused
    /// `EVP_MD_CTX`.
    /// - Parameter iterations: how many verifications.
    /// - Returns: how many verified (equal to `iterations` unless libcrypto failed).
    package func run(iterations: Int) -> Int {
        guard let context = EVP_MD_CTX_new() else { return 0 }
        defer { EVP_MD_CTX_free(context) }
        var verified = 0
        message.withUnsafeBufferPointer { tbs in
            signature.withUnsafeBufferPointer { sig in
                guard let tbsBase = tbs.baseAddress, let sigBase = sig.baseAddress else { return }
                for _ in 0..<max(0, iterations) {
                    guard EVP_DigestVerifyInit(context, nil, digest, nil, publicKey) == 1 else { continue }
                    EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
                    if EVP_DigestVerify(context, sigBase, sig.count, tbsBase, tbs.count) == 1 { verified += 1 }
                }
            }
        }
        ERR_clear_error()
        return verified
    }
}
