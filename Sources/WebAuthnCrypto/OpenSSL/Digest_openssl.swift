internal import CWebAuthnOpenSSL

/// Digests, constant-time comparison and random bytes through libcrypto.
/// Every pointer the digest, comparison and random helpers need is taken here, inside the fence.
enum LibCryptoDigest {
    /// Hashes any bytes: contiguous ones in place, others copied once.
    static func compute(_ digest: Digest, _ data: some Sequence<UInt8>) -> [UInt8] {
        if let contiguous = data.withContiguousStorageIfAvailable({ compute(digest, buffer: $0) }) {
            return contiguous
        }
        return Array(data).withUnsafeBufferPointer { compute(digest, buffer: $0) }
    }

    /// SHA-256 of a slice into an inline result (no array).
    static func sha256Inline(_ data: ArraySlice<UInt8>) -> InlineArray<32, UInt8> {
        data.withUnsafeBufferPointer { sha256Inline(buffer: $0) }
    }

    /// Constant-time equality of a received slice and a computed value (the common shape,
    /// without the generic form's closures).
    static func memoryEquals(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in memoryEquals(buffer: pa, pb) } }
    }

    /// Constant-time equality of any two byte collections: contiguous ones (arrays, slices, a
    /// String's UTF-8) in place, others copied once.
    static func memoryEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let inPlace: Bool?? = a.withContiguousStorageIfAvailable { pa in
            b.withContiguousStorageIfAvailable { pb in memoryEquals(buffer: pa, pb) }
        }
        if let inPlace, let result = inPlace { return result }
        let copyA = Array(a), copyB = Array(b)
        return copyA.withUnsafeBufferPointer { pa in copyB.withUnsafeBufferPointer { pb in memoryEquals(buffer: pa, pb) } }
    }

    private static func compute(_ digest: Digest, buffer data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let size = digest.outputSize
        var ok: Int32 = 0
        var length: UInt32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            if let input = data.baseAddress, data.count > 0 {
                ok = EVP_Digest(input, data.count, base, &length, digest.evpMD, nil)
            } else {
                // libcrypto wants a non-null input pointer even for empty input.
                ok = withBytePointer([UInt8]()[...]) { pointer, _ in EVP_Digest(pointer, 0, base, &length, digest.evpMD, nil) }
            }
            // Zero-filled on failure, so the array is always fully initialized.
            if ok != 1 || Int(length) != size { buffer.initialize(repeating: 0) }
            initialized = size
        }
        // EVP_Digest with a built-in digest and no engine only fails on allocation
        // failure, which Swift treats as fatal everywhere else too.
        precondition(ok == 1 && Int(length) == size, "EVP_Digest failed: \(libcryptoErrorText("digest"))")
        return out
    }

    private static func sha256Inline(buffer data: UnsafeBufferPointer<UInt8>) -> InlineArray<32, UInt8> {
        var out = InlineArray<32, UInt8>(repeating: 0)
        var ok: Int32 = 0
        var length: UInt32 = 0
        var span = out.mutableSpan
        span.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            if let input = data.baseAddress, data.count > 0 {
                ok = EVP_Digest(input, data.count, base, &length, Digest.sha256.evpMD, nil)
            } else {
                // libcrypto wants a non-null input pointer even for empty input.
                ok = withBytePointer([UInt8]()[...]) { pointer, _ in EVP_Digest(pointer, 0, base, &length, Digest.sha256.evpMD, nil) }
            }
        }
        // As in `compute`: only an allocation failure makes this fail.
        precondition(ok == 1 && length == 32, "EVP_Digest failed: \(libcryptoErrorText("digest"))")
        return out
    }

    private static func memoryEquals(buffer a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress, a.count > 0 else { return true }
        return CRYPTO_memcmp(pa, pb, a.count) == 0
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
    /// libcrypto's digest method, fetched from the default provider once per process
    /// (an implicit fetch on every `EVP_DigestInit` is what the plain `EVP_sha256()`
    /// object costs in OpenSSL 3). Falls back to the built-in object if the fetch fails.
    var evpMD: OpaquePointer? {
        switch self {
        case .sha1: return FetchedDigests.shared.sha1 ?? EVP_sha1()
        case .sha256: return FetchedDigests.shared.sha256 ?? EVP_sha256()
        case .sha384: return FetchedDigests.shared.sha384 ?? EVP_sha384()
        case .sha512: return FetchedDigests.shared.sha512 ?? EVP_sha512()
        }
    }
}

/// Digest methods fetched once and kept for the life of the process (never freed).
/// `@unchecked Sendable`: fetched `EVP_MD` objects are immutable and reference-counted
/// by libcrypto, and OpenSSL documents sharing them between threads as safe.
final class FetchedDigests: @unchecked Sendable {
    let sha1: OpaquePointer?
    let sha256: OpaquePointer?
    let sha384: OpaquePointer?
    let sha512: OpaquePointer?

    static let shared = FetchedDigests()

    private init() {
        sha1 = EVP_MD_fetch(nil, "SHA1", nil)
        sha256 = EVP_MD_fetch(nil, "SHA256", nil)
        sha384 = EVP_MD_fetch(nil, "SHA384", nil)
        sha512 = EVP_MD_fetch(nil, "SHA512", nil)
        ERR_clear_error()
    }
}

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
    var outputSize: Int {
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
