// The libcrypto reference for the strict-DER rule on ECDSA signatures, for the differential
// test only: the verifier uses the allocation-free ECDSASignature.requireStrictDER.
internal import CWebAuthnOpenSSL
import WebAuthnCrypto

/// The strict-DER rule for ECDSA signatures as libcrypto states it.
package enum ECDSAStrictDERReference {
    /// Whether libcrypto parses the signature (`d2i_ECDSA_SIG`) over all its bytes and
    /// re-encodes it (`i2d_ECDSA_SIG`) to exactly the same bytes.
    /// - Parameter signature: the signature bytes.
    /// - Returns: whether it is accepted.
    package static func libcryptoAccepts(_ signature: ArraySlice<UInt8>) -> Bool {
        guard !signature.isEmpty else { return false }
        let reencoded: [UInt8]? = signature.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(sig) }
            guard let cursor, cursor - base == buffer.count else { return nil }
            var out: UnsafeMutablePointer<UInt8>?
            let outLength = i2d_ECDSA_SIG(sig, &out)
            guard outLength > 0, let out else { return nil }
            defer { CRYPTO_free(out, #fileID, #line) }
            return Array(UnsafeBufferPointer(start: out, count: Int(outLength)))
        }
        ERR_clear_error()
        guard let reencoded else { return false }
        return reencoded.elementsEqual(signature)
    }
}
