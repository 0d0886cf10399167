// A second reader of certificate fields, through libcrypto's getters, for tests only:
// CertificateDifferentialTests compares what `Certificate` reads from its own DER walk
// with what libcrypto reports for the same bytes. Nothing on a verification path calls it.
internal import CWebAuthnOpenSSL
import Foundation
package import WebAuthnCrypto

/// The fields of one certificate as libcrypto's getters report them (`d2i_X509`, then
/// `X509_get_version`, `X509_get0_serialNumber`, `X509_get0_notBefore`… and `i2d_*` for
/// the encoded parts). For differential tests; not used by the library.
package struct LibCryptoCertificateFields: Sendable, Equatable {
    /// `X509_get_version` + 1.
    package let version: Int
    /// The serial number's INTEGER content octets (`i2d_ASN1_INTEGER`, header removed).
    package let serialNumberDER: [UInt8]
    /// `i2d_X509_NAME` of the subject.
    package let subjectDER: [UInt8]
    /// `i2d_X509_NAME` of the issuer.
    package let issuerDER: [UInt8]
    /// notBefore in seconds since 1970 (`ASN1_TIME_to_tm`, `timegm`).
    package let notBefore: Int
    /// notAfter in seconds since 1970.
    package let notAfter: Int
    /// Every extension: dotted OID, critical flag, extnValue contents.
    package let extensions: [CertificateExtension]
    /// The outer signatureAlgorithm OID (`X509_get0_signature`), dotted.
    package let signatureAlgorithmOID: String
    /// The tbsCertificate's signature OID (`X509_get0_tbs_sigalg`), dotted.
    package let tbsSignatureAlgorithmOID: String
    /// `i2d_X509_PUBKEY`.
    package let subjectPublicKeyInfoDER: [UInt8]
    /// `i2d_re_X509_tbs`: the tbsCertificate encoded again by libcrypto (DER in, the same DER out).
    package let tbsCertificateDER: [UInt8]
    /// `X509_NAME_cmp(subject, issuer) == 0`.
    package let isSelfIssued: Bool

    /// Reads the fields through libcrypto.
    /// - Parameter derEncoded: one certificate.
    /// - Throws: ``CryptoError`` when libcrypto refuses it or a getter fails.
    package init(derEncoded: [UInt8]) throws(CryptoError) {
        ERR_clear_error()
        guard let x509 = decodedWhole(derEncoded, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
            ERR_clear_error()
            throw CryptoError(.malformedCertificate, "d2i_X509 rejected the certificate, or bytes follow it")
        }
        defer { X509_free(x509) }
        func fail(_ what: String) -> CryptoError {
            ERR_clear_error()
            return CryptoError(.libcrypto, "libcrypto field reader: \(what)")
        }
        let rawVersion = X509_get_version(x509)
        guard (0...2).contains(rawVersion) else { throw fail("version \(rawVersion)") }
        version = Int(rawVersion) + 1
        guard let serial = X509_get0_serialNumber(x509), let serialDER = encodedBytes({ i2d_ASN1_INTEGER(serial, $0) }),
            let serialContent = try? DER.parse(serialDER).content
        else { throw fail("serial") }
        serialNumberDER = Array(serialContent)
        guard let subject = X509_get_subject_name(x509), let subjectDER = encodedBytes({ i2d_X509_NAME(subject, $0) }),
            let issuer = X509_get_issuer_name(x509), let issuerDER = encodedBytes({ i2d_X509_NAME(issuer, $0) })
        else {
            throw fail("names")
        }
        self.subjectDER = subjectDER
        self.issuerDER = issuerDER
        isSelfIssued = X509_NAME_cmp(subject, issuer) == 0
        guard let notBefore = Self.seconds(X509_get0_notBefore(x509)),
            let notAfter = Self.seconds(X509_get0_notAfter(x509))
        else { throw fail("validity") }
        self.notBefore = notBefore
        self.notAfter = notAfter
        var extensions: [CertificateExtension] = []
        let count = X509_get_ext_count(x509)
        guard count >= 0 else { throw fail("extension count") }
        for index in 0..<count {
            guard let ext = X509_get_ext(x509, index),
                let oid = Self.objectIdentifierText(X509_EXTENSION_get_object(ext)),
                let data = X509_EXTENSION_get_data(ext)
            else { throw fail("extension \(index)") }
            let length = ASN1_STRING_length(data)
            var value: [UInt8] = []
            if length > 0, let bytes = ASN1_STRING_get0_data(data) {
                value = Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
            }
            extensions.append(CertificateExtension(oid: oid, isCritical: X509_EXTENSION_get_critical(ext) > 0, value: value))
        }
        self.extensions = extensions
        var signature: UnsafePointer<ASN1_BIT_STRING>?
        var algorithm: UnsafePointer<X509_ALGOR>?
        X509_get0_signature(&signature, &algorithm, x509)
        var outerObject: OpaquePointer?
        var innerObject: OpaquePointer?
        if let algorithm { X509_ALGOR_get0(&outerObject, nil, nil, algorithm) }
        if let inner = X509_get0_tbs_sigalg(x509) { X509_ALGOR_get0(&innerObject, nil, nil, inner) }
        guard let outerOID = Self.objectIdentifierText(outerObject),
            let innerOID = Self.objectIdentifierText(innerObject)
        else { throw fail("signature algorithm") }
        signatureAlgorithmOID = outerOID
        tbsSignatureAlgorithmOID = innerOID
        guard let spki = X509_get_X509_PUBKEY(x509), let spkiDER = encodedBytes({ i2d_X509_PUBKEY(spki, $0) }) else {
            throw fail("subjectPublicKeyInfo")
        }
        subjectPublicKeyInfoDER = spkiDER
        guard let tbs = encodedBytes({ i2d_re_X509_tbs(x509, $0) }) else { throw fail("tbsCertificate") }
        tbsCertificateDER = tbs
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Int(timegm(&parts))
    }

    /// An ASN1_OBJECT as a dotted OID (`OBJ_obj2txt` with numeric output).
    private static func objectIdentifierText(_ object: OpaquePointer?) -> String? {
        guard let object else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0, Int(length) < buffer.count else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Runs a `d2i_*` call over all of `der`: the object, or nil when it does not decode or bytes
/// follow it (then the object is freed with `free`).
func decodedWhole(
    _ der: [UInt8], _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
    free: (OpaquePointer?) -> Void
) -> OpaquePointer? {
    der.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = base
        let object = decode(&cursor, buffer.count)
        guard cursor.map({ $0 - base }) == buffer.count else {
            free(object)
            return nil
        }
        return object
    }
}

/// Runs an `i2d_*` call that allocates its output and returns the bytes (nil on failure).
func encodedBytes(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) -> [UInt8]? {
    var out: UnsafeMutablePointer<UInt8>?
    let length = withUnsafeMutablePointer(to: &out) { encode($0) }
    guard length > 0, let out else {
        ERR_clear_error()
        return nil
    }
    defer { CRYPTO_free(out, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: out, count: Int(length)))
}
