internal import CWebAuthnOpenSSL

/// Digests, constant-time comparison and random bytes through libcrypto.
enum LibCryptoDigest {
    static func compute(_ digest: Digest, _ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = withBytePointer(ArraySlice(data)) { pointer, count in
            EVP_Digest(pointer, count, &out, &length, digest.evpMD, nil)
        }
        // EVP_Digest with a built-in digest and no engine only fails on allocation
        // failure, which Swift treats as fatal everywhere else too.
        precondition(ok == 1 && Int(length) == digest.outputSize, "EVP_Digest failed: \(libcryptoErrorText("digest"))")
        return Array(out.prefix(Int(length)))
    }

    static func memoryEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return withBytePointer(a[...]) { pa, count in
            withBytePointer(b[...]) { pb, _ in CRYPTO_memcmp(pa, pb, count) == 0 }
        }
    }

    static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard let length = Int32(exactly: count) else {
            throw CryptoError(.libcrypto, "SecureRandom.bytes: count \(count) too large")
        }
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, length) == 1 else { throw libcryptoFailure("RAND_bytes") }
        return out
    }
}

extension Digest {
    /// libcrypto's digest method (a static object; never freed).
    var evpMD: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }
}
