// Certificate revocation lists through libcrypto: parsing (d2i_X509_CRL) and chain
// verification that consults them (X509_STORE with X509_V_FLAG_CRL_CHECK_ALL).
// Every pointer in this file is confined to a function body or to `X509CRLHandle`.
internal import CWebAuthnOpenSSL
import Foundation

/// Owns one libcrypto `X509_CRL` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable`: after parsing the list is only read (libcrypto caches its
/// decoded extensions under the object's own lock).
final class X509CRLHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_CRL_free(pointer) }

    /// `d2i_X509_CRL` over exactly `der`: anything libcrypto does not consume is an error.
    static func parse(_ der: [UInt8]) throws(CryptoError) -> X509CRLHandle {
        guard !der.isEmpty else { throw CryptoError(.malformedCertificate, "empty CRL") }
        ERR_clear_error()
        let (parsed, consumed): (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = base
            let crl = d2i_X509_CRL(nil, &cursor, buffer.count)
            return (crl, cursor.map { $0 - base } ?? 0)
        }
        guard let parsed else {
            throw CryptoError(.malformedCertificate, libcryptoErrorText("d2i_X509_CRL rejected the CRL"))
        }
        let handle = X509CRLHandle(takingOwnershipOf: parsed)
        guard consumed == der.count else {
            throw CryptoError(.malformedCertificate, "\(der.count - consumed) byte(s) follow the CRL")
        }
        return handle
    }
}

/// Accepts a missing CRL (a certificate whose issuer the caller gave no list for) and
/// nothing else: every other verification error stands. A plain C function, no captures.
private func acceptMissingCRL(_ ok: Int32, _ context: OpaquePointer?) -> Int32 {
    guard ok == 0, let context else { return ok }
    return X509_STORE_CTX_get_error(context) == X509_V_ERR_UNABLE_TO_GET_CRL ? 1 : 0
}

enum X509RevocationAwareVerification {
    /// Verifies `leaf` against a store holding only `anchors`, consulting `crls` for every
    /// certificate of the path whose issuer has one (a certificate whose issuer has no list
    /// passes that check; a listed serial, an expired list or a list with a bad signature fail).
    ///
    /// - Returns: the chain, leaf first, as indices into `[leaf] + untrusted + anchors`.
    static func verify(leaf: X509Handle, untrusted: [X509Handle], anchors: [X509Handle],
                       crls: [X509CRLHandle], time: Int64) throws(CryptoError) -> [Int] {
        ERR_clear_error()
        guard let store = X509_STORE_new() else { throw libcryptoFailure("X509_STORE_new") }
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            guard X509_STORE_add_cert(store, anchor.pointer) == 1 else {
                throw libcryptoFailure("X509_STORE_add_cert")
            }
        }
        for crl in crls {
            guard X509_STORE_add_crl(store, crl.pointer) == 1 else {
                throw libcryptoFailure("X509_STORE_add_crl")
            }
        }
        guard let stack = OPENSSL_sk_new_null() else { throw libcryptoFailure("OPENSSL_sk_new_null") }
        // The stack only borrows the certificates; the handles keep them alive.
        defer { OPENSSL_sk_free(stack) }
        for certificate in untrusted {
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(certificate.pointer)) > 0 else {
                throw libcryptoFailure("OPENSSL_sk_push")
            }
        }
        guard let context = X509_STORE_CTX_new() else { throw libcryptoFailure("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, stack) == 1 else {
            throw libcryptoFailure("X509_STORE_CTX_init")
        }
        guard let parameters = X509_STORE_CTX_get0_param(context) else {
            throw libcryptoFailure("X509_STORE_CTX_get0_param")
        }
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))
        var flags = UInt(X509_V_FLAG_PARTIAL_CHAIN)
        if !crls.isEmpty {
            flags |= UInt(X509_V_FLAG_CRL_CHECK) | UInt(X509_V_FLAG_CRL_CHECK_ALL)
            X509_STORE_CTX_set_verify_cb(context, acceptMissingCRL)
        }
        guard X509_VERIFY_PARAM_set_flags(parameters, flags) == 1,
              X509_STORE_CTX_set_purpose(context, X509_PURPOSE_ANY) == 1 else {
            throw libcryptoFailure("X509_VERIFY_PARAM setup")
        }
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let text = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "unknown"
            ERR_clear_error()
            throw CryptoError(.untrustedChain, "\(text) (X509 error \(code) at depth \(depth))")
        }
        guard let chain = X509_STORE_CTX_get0_chain(context) else {
            throw libcryptoFailure("X509_STORE_CTX_get0_chain")
        }
        let candidates = [leaf] + untrusted + anchors
        var indices: [Int] = []
        for position in 0..<OPENSSL_sk_num(chain) {
            guard let raw = OPENSSL_sk_value(chain, position) else {
                throw CryptoError(.libcrypto, "verified chain has a hole at \(position)")
            }
            let member = OpaquePointer(raw)
            guard let index = candidates.firstIndex(where: { $0.pointer == member })
                ?? candidates.firstIndex(where: { X509_cmp($0.pointer, member) == 0 }) else {
                throw CryptoError(.libcrypto, "verified chain holds a certificate that was not given")
            }
            indices.append(index)
        }
        return indices
    }
}
