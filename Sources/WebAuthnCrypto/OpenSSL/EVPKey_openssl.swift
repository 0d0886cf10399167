internal import CWebAuthnOpenSSL

/// Owns one libcrypto `EVP_PKEY` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable` is sound because the key is never mutated after it is
/// built: every use is a read-only verification through a fresh `EVP_MD_CTX` /
/// `EVP_PKEY_CTX`, and OpenSSL 3 documents concurrent use of a const `EVP_PKEY`
/// by several threads as safe. That lets one key, built once, serve every later
/// verification from any task.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a key from libcrypto; the caller must not free it.
    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }
}

/// The text of libcrypto's most recent error on this thread (and clears the queue).
func libcryptoErrorText(_ context: String) -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? context : "\(context): \(parts.joined(separator: "; "))"
}
