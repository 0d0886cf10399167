internal import CWebAuthnOpenSSL
import Synchronization

/// Owns one libcrypto `EVP_PKEY` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable` is sound because the key is never mutated after it is
/// built: every use is a read-only verification through a fresh `EVP_MD_CTX` /
/// `EVP_PKEY_CTX`, and OpenSSL 3 documents concurrent use of a const `EVP_PKEY`
/// by several threads as safe. That lets one key, built once, serve every later
/// verification from any task.
package final class EVPKey: @unchecked Sendable {
    package let pointer: OpaquePointer
    /// Verification contexts this key has used, kept for the next verification. A context
    /// that verified once keeps its key context, so initializing it again skips building a
    /// new one from the key (for RSA that search costs about 4% of a verification). Each
    /// context is taken out while one caller uses it, so none is ever shared.
    private let spareContexts = Mutex<[SpareContext]>([])
    private static let maximumSpareContexts = 8

    /// The key's family, read from libcrypto once: each read is a series of name lookups
    /// (about 5,000 instructions), and every key check and verification needs it.
    package let family: KeyFamily

    /// Takes ownership of a key from libcrypto; the caller must not free it.
    package init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
        self.family = Self.family(of: pointer)
    }

    deinit {
        spareContexts.withLock { contexts in
            for context in contexts { EVP_MD_CTX_free(context.pointer) }
            contexts.removeAll()
        }
        EVP_PKEY_free(pointer)
    }

    /// A verification context used before with this key, or a new one; nil if libcrypto
    /// cannot allocate one.
    func takeVerifyContext() -> OpaquePointer? {
        if let spare = spareContexts.withLock({ $0.popLast() }) { return spare.pointer }
        return EVP_MD_CTX_new()
    }

    /// Gives a context back after a verification that ran to the end; frees it when
    /// enough are kept already.
    func returnVerifyContext(_ context: OpaquePointer) {
        let kept = spareContexts.withLock { contexts -> Bool in
            guard contexts.count < Self.maximumSpareContexts else { return false }
            contexts.append(SpareContext(pointer: context))
            return true
        }
        if !kept { EVP_MD_CTX_free(context) }
    }
}

/// An idle `EVP_MD_CTX` kept by a key. `@unchecked Sendable`: it is only ever held by the
/// key's lock or by the one caller that took it out.
struct SpareContext: @unchecked Sendable {
    let pointer: OpaquePointer
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

/// Empties this thread's libcrypto error queue. `ERR_clear_error` walks every slot of the
/// queue (about 400 instructions) even when it is empty, which it is on every verification
/// that succeeds; a look at the oldest error (`ERR_peek_error`, 0 when none is queued) is
/// enough to tell.
func clearLibcryptoErrors() {
    if ERR_peek_error() != 0 { ERR_clear_error() }
}
