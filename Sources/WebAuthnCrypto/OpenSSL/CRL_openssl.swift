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
        try parseWholeDER(der, what: "CRL", decoder: "d2i_X509_CRL", { d2i_X509_CRL(nil, $0, $1) }) {
            X509CRLHandle(takingOwnershipOf: $0)
        }
    }
}

/// Accepts a missing CRL (a certificate whose issuer the caller gave no list for) and
/// nothing else: every other verification error stands. A plain C function, no captures.
func acceptMissingCRL(_ ok: Int32, _ context: OpaquePointer?) -> Int32 {
    guard ok == 0, let context else { return ok }
    return X509_STORE_CTX_get_error(context) == X509_V_ERR_UNABLE_TO_GET_CRL ? 1 : 0
}
