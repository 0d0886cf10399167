// X.509 through libcrypto: parsing (d2i_X509), the subject public key, signature checks and
// chain verification (X509_STORE / X509_STORE_CTX). The certificate's fields are read in
// Swift from the DER (X509/Certificate.swift); WebAuthnTestSupport's X509Fields_openssl.swift
// reads them again through libcrypto for the differential tests.
// Every pointer in this file is confined to a function body or to `X509Handle`.
internal import CWebAuthnOpenSSL
import Foundation

/// Owns one libcrypto `X509` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable`: after parsing the certificate is only read. libcrypto
/// caches decoded extensions inside the `X509` on first use, under the object's
/// own lock, so concurrent verifications from several tasks are safe.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a certificate from libcrypto; the caller must not free it.
    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// `d2i_X509` over exactly `der`: anything libcrypto does not consume is an error.
    static func parse(_ der: [UInt8]) throws(CryptoError) -> X509Handle {
        try parseWholeDER(der, what: "certificate", decoder: "d2i_X509", { d2i_X509(nil, $0, $1) }) {
            X509Handle(takingOwnershipOf: $0)
        }
    }

    /// The subject public key as a new reference (`X509_get_pubkey`).
    func publicKey() throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        guard let key = X509_get_pubkey(pointer) else {
            throw CryptoError(.malformedCertificate, libcryptoErrorText("the subject public key cannot be decoded"))
        }
        return EVPKey(takingOwnershipOf: key)
    }

    /// Whether `key` verifies this certificate's signature (`X509_verify`).
    func isSigned(by key: EVPKey) -> Bool {
        let result = X509_verify(pointer, key.pointer)
        ERR_clear_error()
        return result == 1
    }
}

// MARK: - Chain verification

enum X509ChainVerification {
    /// Verifies `candidates[0]` (the leaf) against a store holding only the anchors.
    ///
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - untrusted: intermediates offered with the leaf; never trusted by themselves.
    ///   - anchors: the only trusted certificates; any of them may end the chain.
    ///   - crls: revocation lists consulted for every certificate of the path whose issuer has
    ///     one (a certificate whose issuer has no list passes that check; a listed serial, an
    ///     expired list or a list with a bad signature fail); empty: no revocation check.
    ///   - time: seconds since 1970 at which validity is judged.
    /// - Returns: the chain, leaf first, as indices into `[leaf] + untrusted + anchors`.
    static func verify(
        leaf: X509Handle, untrusted: [X509Handle], anchors: [X509Handle], crls: [X509CRLHandle] = [],
        time: Int64
    ) throws(CryptoError) -> [Int] {
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
        // The caller's clock, never the system's; a store certificate may end the chain
        // even when it is not self-signed; attestation leaves carry no serverAuth EKU.
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))
        var flags = UInt(X509_V_FLAG_PARTIAL_CHAIN)
        if !crls.isEmpty {
            flags |= UInt(X509_V_FLAG_CRL_CHECK) | UInt(X509_V_FLAG_CRL_CHECK_ALL)
            X509_STORE_CTX_set_verify_cb(context, acceptMissingCRL)
        }
        guard X509_VERIFY_PARAM_set_flags(parameters, flags) == 1,
            X509_STORE_CTX_set_purpose(context, X509_PURPOSE_ANY) == 1
        else {
            throw libcryptoFailure("X509_VERIFY_PARAM setup")
        }
        let verified = X509_verify_cert(context)
        guard verified == 1 else {
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
            guard
                let index = candidates.firstIndex(where: { $0.pointer == member })
                    ?? candidates.firstIndex(where: { X509_cmp($0.pointer, member) == 0 })
            else {
                throw CryptoError(.libcrypto, "verified chain holds a certificate that was not given")
            }
            indices.append(index)
        }
        return indices
    }
}

/// Runs a libcrypto `d2i_…` decoder over exactly `der` (certificates and CRLs): anything it does
/// not consume is an error. `own` takes the parsed object before the leftover check, so the
/// handle frees it on that error too.
func parseWholeDER<Handle>(
    _ der: [UInt8], what: String, decoder: String,
    _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
    own: (OpaquePointer) -> Handle
) throws(CryptoError) -> Handle {
    guard !der.isEmpty else { throw CryptoError(.malformedCertificate, "empty \(what)") }
    ERR_clear_error()
    let (parsed, consumed): (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return (nil, 0) }
        var cursor: UnsafePointer<UInt8>? = base
        let object = decode(&cursor, buffer.count)
        return (object, cursor.map { $0 - base } ?? 0)
    }
    guard let parsed else {
        throw CryptoError(.malformedCertificate, libcryptoErrorText("\(decoder) rejected the \(what)"))
    }
    let handle = own(parsed)
    guard consumed == der.count else {
        throw CryptoError(.malformedCertificate, "\(der.count - consumed) byte(s) follow the \(what)")
    }
    return handle
}
