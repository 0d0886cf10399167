internal import CWebAuthnOpenSSL
import WebAuthnCrypto

// MARK: - Test-only building

enum X509Building {
    /// One certificate, assembled and signed by libcrypto; returns its DER.
    /// - Parameter subjectKeyDER: the subject public key as a DER SubjectPublicKeyInfo.
    static func certificateDER(
        version: Int, serialNumber: [UInt8], issuerNameDER: [UInt8], subjectNameDER: [UInt8],
        notBefore: Int64, notAfter: Int64, subjectKeyDER: [UInt8], extensions: [CertificateExtension],
        signingKey: LibCryptoKeyPair, digest: Digest?
    ) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard let x509 = X509_new() else { throw libcryptoFailure("X509_new") }
        defer { X509_free(x509) }
        guard X509_set_version(x509, version - 1) == 1 else { throw libcryptoFailure("X509_set_version") }

        guard let number = serialNumber.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            throw libcryptoFailure("BN_bin2bn")
        }
        defer { BN_free(number) }
        guard let serial = BN_to_ASN1_INTEGER(number, nil) else { throw libcryptoFailure("BN_to_ASN1_INTEGER") }
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(x509, serial) == 1 else { throw libcryptoFailure("X509_set_serialNumber") }

        let issuer = try name(issuerNameDER)
        defer { X509_NAME_free(issuer) }
        let subject = try name(subjectNameDER)
        defer { X509_NAME_free(subject) }
        guard X509_set_issuer_name(x509, issuer) == 1, X509_set_subject_name(x509, subject) == 1 else {
            throw libcryptoFailure("X509_set_*_name")
        }

        guard let start = ASN1_TIME_set(nil, time_t(notBefore)) else { throw libcryptoFailure("ASN1_TIME_set") }
        defer { ASN1_TIME_free(start) }
        guard let end = ASN1_TIME_set(nil, time_t(notAfter)) else { throw libcryptoFailure("ASN1_TIME_set") }
        defer { ASN1_TIME_free(end) }
        guard X509_set1_notBefore(x509, start) == 1, X509_set1_notAfter(x509, end) == 1 else {
            throw libcryptoFailure("X509_set1_not*")
        }
        let subjectKey: OpaquePointer? = subjectKeyDER.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let subjectKey else { throw libcryptoFailure("d2i_PUBKEY") }
        defer { EVP_PKEY_free(subjectKey) }
        guard X509_set_pubkey(x509, subjectKey) == 1 else { throw libcryptoFailure("X509_set_pubkey") }

        for item in extensions {
            guard let object = OBJ_txt2obj(item.oid, 1) else { throw libcryptoFailure("OBJ_txt2obj(\(item.oid))") }
            defer { ASN1_OBJECT_free(object) }
            guard let octets = ASN1_OCTET_STRING_new() else { throw libcryptoFailure("ASN1_OCTET_STRING_new") }
            defer { ASN1_OCTET_STRING_free(octets) }
            let stored = item.value.withUnsafeBufferPointer { ASN1_OCTET_STRING_set(octets, $0.baseAddress, Int32($0.count)) }
            guard stored == 1 else { throw libcryptoFailure("ASN1_OCTET_STRING_set") }
            guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, item.isCritical ? 1 : 0, octets) else {
                throw libcryptoFailure("X509_EXTENSION_create_by_OBJ")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw libcryptoFailure("X509_add_ext") }
        }

        // EVP_get_digestbyname gives a static object: nothing to free.
        let md = digest.flatMap { EVP_get_digestbyname($0.libcryptoName) }
        guard digest == nil || md != nil else { throw libcryptoFailure("EVP_get_digestbyname") }
        guard X509_sign(x509, signingKey.pointer, md) > 0 else { throw libcryptoFailure("X509_sign") }
        guard let der = encodedBytes({ i2d_X509(x509, $0) }) else { throw libcryptoFailure("i2d_X509") }
        return der
    }

    private static func name(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509_NAME(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw libcryptoFailure("d2i_X509_NAME") }
        return parsed
    }
}
