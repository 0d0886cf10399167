/// A message digest computed by libcrypto.
package enum Digest: Sendable {
    /// SHA-1 (legacy attestation only).
    case sha1
    /// SHA-256.
    case sha256
    /// SHA-384.
    case sha384
    /// SHA-512.
    case sha512

    /// The digest length in bytes.
    package var outputSize: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// Hashes bytes.
    /// - Parameter data: the bytes to hash.
    /// - Returns: the digest, ``outputSize`` bytes long.
    package func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        LibCryptoDigest.compute(self, data)
    }

    /// SHA-256 of `data`, held inline: for a hash that is used at once and dropped (a login's
    /// client-data hash), which then needs no array of its own.
    /// - Parameter data: the bytes to hash.
    /// - Returns: the 32-byte digest.
    static func sha256Inline(_ data: [UInt8]) -> InlineArray<32, UInt8> {
        LibCryptoDigest.sha256Inline(data[...])
    }

    /// SHA-256 of a slice (a member of a larger buffer), held inline as by the array form.
    /// - Parameter data: the bytes.
    /// - Returns: the 32-byte digest.
    package static func sha256Inline(_ data: ArraySlice<UInt8>) -> InlineArray<32, UInt8> {
        LibCryptoDigest.sha256Inline(data)
    }
}

/// Comparison of secrets and MACs in time that does not depend on where they differ.
package enum ConstantTime {
    /// Whether two byte sequences are equal, in time independent of their contents
    /// (`CRYPTO_memcmp`). A length mismatch returns `false` at once; lengths are not secret.
    /// - Parameters:
    ///   - a: the first bytes.
    ///   - b: the second bytes.
    /// - Returns: `true` when both have the same length and the same bytes.
    package static func equals(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Bool {
        // The common shape (a slice of received bytes against a computed value), without the
        // generic form's closures: a call from another module is not specialized.
        LibCryptoDigest.memoryEquals(a, b)
    }

    /// Whether two byte sequences are equal, in time independent of their contents
    /// (`CRYPTO_memcmp`). A length mismatch returns `false` at once; lengths are not secret.
    /// - Parameters:
    ///   - a: the first bytes.
    ///   - b: the second bytes.
    /// - Returns: `true` when both have the same length and the same bytes.
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        LibCryptoDigest.memoryEquals(a, b)
    }
}

/// Random bytes from libcrypto's CSPRNG.
package enum SecureRandom {
    /// Fills a new array with cryptographically secure random bytes (`RAND_bytes`).
    /// - Parameter count: how many bytes, 0 or more.
    /// - Returns: the bytes.
    /// - Throws: ``CryptoError`` `libcrypto` when the generator fails, `malformedKey` never;
    ///   a negative count is refused as `libcrypto` with a reason.
    package static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw CryptoError(.libcrypto, "SecureRandom.bytes: negative count \(count)") }
        return try LibCryptoDigest.randomBytes(count)
    }
}
