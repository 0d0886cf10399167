// X.509 through libcrypto: parsing (d2i_X509), field extraction, signature checks,
// chain verification (X509_STORE / X509_STORE_CTX) and the test-only builder.
// Every pointer in this file is confined to a function body or to `X509Handle`.
internal import CWebAuthnOpenSSL
import Foundation

/// Owns one libcrypto `X509` and frees it exactly once, in `deinit`.
///
/// `@unchecked Sendable`: after parsing the certificate is only read. libcrypto
/// caches decoded extensions inside the `X509` on first use, under the object's
/// own lock, so concurrent verifications from several tasks are safe.
final class X509Handle: @unchecked Sendable {
    package let pointer: OpaquePointer

    /// Takes ownership of a certificate from libcrypto; the caller must not free it.
    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// `d2i_X509` over exactly `der`: anything libcrypto does not consume is an error.
    static func parse(_ der: [UInt8]) throws(CryptoError) -> X509Handle {
        guard !der.isEmpty else { throw CryptoError(.malformedCertificate, "empty certificate") }
        ERR_clear_error()
        let (parsed, consumed): (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = base
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            return (x509, cursor.map { $0 - base } ?? 0)
        }
        guard let parsed else {
            throw CryptoError(.malformedCertificate, libcryptoErrorText("d2i_X509 rejected the certificate"))
        }
        let handle = X509Handle(takingOwnershipOf: parsed)
        guard consumed == der.count else {
            throw CryptoError(.malformedCertificate, "\(der.count - consumed) byte(s) follow the certificate")
        }
        return handle
    }

    /// The version as written (1, 2 or 3), or nil for anything else.
    var version: Int? {
        let raw = X509_get_version(pointer)
        guard (0...2).contains(raw) else { return nil }
        return Int(raw) + 1
    }

    /// The serial number's DER INTEGER encoding.
    var serialNumberDER: [UInt8]? {
        guard let serial = X509_get0_serialNumber(pointer) else { return nil }
        return encodedBytes { i2d_ASN1_INTEGER(serial, $0) }
    }

    /// The subject Name's DER (libcrypto keeps the encoding it parsed).
    var subjectNameDER: [UInt8]? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        return encodedBytes { i2d_X509_NAME(name, $0) }
    }

    /// The issuer Name's DER.
    var issuerNameDER: [UInt8]? {
        guard let name = X509_get_issuer_name(pointer) else { return nil }
        return encodedBytes { i2d_X509_NAME(name, $0) }
    }

    /// Whether subject and issuer are the same name (`X509_NAME_cmp`).
    var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_issuer_name(pointer)) == 0
    }

    /// notBefore as a Date.
    var notBefore: Date? { Self.date(X509_get0_notBefore(pointer)) }
    /// notAfter as a Date.
    var notAfter: Date? { Self.date(X509_get0_notAfter(pointer)) }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            ERR_clear_error()
            return nil
        }
        let seconds = unixTime(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
        guard let seconds else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Seconds since 1970 for a UTC civil time (proleptic Gregorian calendar).
    static func unixTime(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int? {
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The extensions in order, with their OIDs, critical flags and extnValue contents.
    func extensions() throws(CryptoError) -> [CertificateExtension] {
        let count = X509_get_ext_count(pointer)
        guard count >= 0 else { throw CryptoError(.malformedCertificate, "cannot count extensions") }
        var result: [CertificateExtension] = []
        for index in 0..<count {
            guard let ext = X509_get_ext(pointer, index),
                  let oid = objectIdentifierText(X509_EXTENSION_get_object(ext)),
                  let data = X509_EXTENSION_get_data(ext) else {
                ERR_clear_error()
                throw CryptoError(.malformedCertificate, "extension \(index) cannot be read")
            }
            result.append(CertificateExtension(
                oid: oid, isCritical: X509_EXTENSION_get_critical(ext) > 0, value: asn1StringBytes(data)))
        }
        return result
    }

    /// The outer signatureAlgorithm's OID, dotted.
    var signatureAlgorithmOID: String? {
        var signature: UnsafePointer<ASN1_BIT_STRING>?
        var algorithm: UnsafePointer<X509_ALGOR>?
        X509_get0_signature(&signature, &algorithm, pointer)
        guard let algorithm else { return nil }
        var object: OpaquePointer?
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        return objectIdentifierText(object)
    }

    /// The subject public key as a new reference (`X509_get_pubkey`).
    func publicKey() throws(CryptoError) -> EVPKey {
        ERR_clear_error()
        guard let key = X509_get_pubkey(pointer) else {
            throw CryptoError(.malformedCertificate, libcryptoErrorText("the subject public key cannot be decoded"))
        }
        return EVPKey(takingOwnershipOf: key)
    }

    /// The SubjectPublicKeyInfo's DER.
    package var subjectPublicKeyInfoDER: [UInt8]? {
        guard let spki = X509_get_X509_PUBKEY(pointer) else { return nil }
        return encodedBytes { i2d_X509_PUBKEY(spki, $0) }
    }

    /// Whether `key` verifies this certificate's signature (`X509_verify`).
    func isSigned(by key: EVPKey) -> Bool {
        let result = X509_verify(pointer, key.pointer)
        ERR_clear_error()
        return result == 1
    }
}

/// Runs an `i2d_*` call that allocates its output and returns the bytes (nil on failure).
package func encodedBytes(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) -> [UInt8]? {
    var out: UnsafeMutablePointer<UInt8>?
    let length = withUnsafeMutablePointer(to: &out) { encode($0) }
    guard length > 0, let out else {
        ERR_clear_error()
        return nil
    }
    defer { CRYPTO_free(out, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: out, count: Int(length)))
}

/// The bytes of an ASN1_STRING (an OCTET STRING's contents, for example).
private func asn1StringBytes(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
    let length = ASN1_STRING_length(string)
    guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: Int(length)))
}

/// An ASN1_OBJECT as a dotted OID (`OBJ_obj2txt` with numeric output).
private func objectIdentifierText(_ object: OpaquePointer?) -> String? {
    guard let object else { return nil }
    var buffer = [CChar](repeating: 0, count: 128)
    var length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
    if length >= Int32(buffer.count) {
        buffer = [CChar](repeating: 0, count: Int(length) + 1)
        length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
    }
    guard length > 0, Int(length) < buffer.count else {
        ERR_clear_error()
        return nil
    }
    return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
    static func verify(leaf: X509Handle, untrusted: [X509Handle], anchors: [X509Handle], crls: [X509CRLHandle] = [],
                       time: Int64) throws(CryptoError) -> [Int] {
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
              X509_STORE_CTX_set_purpose(context, X509_PURPOSE_ANY) == 1 else {
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
            guard let index = candidates.firstIndex(where: { $0.pointer == member })
                ?? candidates.firstIndex(where: { X509_cmp($0.pointer, member) == 0 }) else {
                throw CryptoError(.libcrypto, "verified chain holds a certificate that was not given")
            }
            indices.append(index)
        }
        return indices
    }
}
