public import Foundation

/// An X.509 certificate, parsed by libcrypto and read into Swift values once.
///
/// Parsing requires the input to be exactly one certificate, structurally valid
/// DER (definite, minimal lengths), accepted by libcrypto's `d2i_X509`, with no
/// extension present twice and with the extensions WebAuthn reads (basicConstraints,
/// keyUsage, extKeyUsage, subjectAltName) well formed.
public struct Certificate: Sendable {
    let handle: X509Handle

    /// The certificate's DER encoding, exactly as given.
    public let derBytes: [UInt8]
    /// The DER of the signed part (tbsCertificate), a slice of ``derBytes``' content.
    package let tbsCertificateBytes: [UInt8]
    /// The version: 1, 2 or 3.
    package let version: Int
    /// The serial number's INTEGER content octets (big-endian two's complement, as encoded).
    public let serialNumber: [UInt8]
    /// The subject.
    package let subject: DistinguishedName
    /// The issuer.
    package let issuer: DistinguishedName
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period.
    public let notAfter: Date
    /// Every extension, in order.
    package let extensions: [CertificateExtension]
    /// basicConstraints, or nil when the extension is absent.
    package let basicConstraints: BasicConstraints?
    /// keyUsage, or nil when the extension is absent.
    package let keyUsage: KeyUsage?
    /// extKeyUsage purposes as dotted OIDs, or nil when the extension is absent.
    package let extendedKeyUsage: [String]?
    /// subjectAltName entries; empty when the extension is absent.
    package let subjectAlternativeNames: [GeneralName]
    /// The subject public key.
    package let publicKey: PublicKey
    /// The SubjectPublicKeyInfo's DER.
    package let subjectPublicKeyInfoDER: [UInt8]
    /// The certificate's signatureAlgorithm OID, dotted (`1.2.840.10045.4.3.2` for ecdsa-with-SHA256).
    package let signatureAlgorithmOID: String
    /// Whether subject and issuer are the same name (it says nothing about the signature).
    package let isSelfIssued: Bool

    /// Parses one DER certificate.
    /// - Parameter derEncoded: exactly one certificate; trailing bytes are refused.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    public init(derEncoded: [UInt8]) throws(CryptoError) {
        // Structural DER first: libcrypto alone would also take BER (indefinite lengths).
        let outer: [DERNode]
        do {
            outer = try DER.parseSequence(derEncoded)
        } catch {
            throw CryptoError(.malformedCertificate, "not a DER certificate: \(error)")
        }
        guard outer.count == 3, let tbs = outer.first, tbs.tag == .sequence else {
            throw CryptoError(.malformedCertificate, "a certificate is SEQUENCE { tbsCertificate, signatureAlgorithm, signature }")
        }
        let handle = try X509Handle.parse(derEncoded)

        guard let version = handle.version else {
            throw CryptoError(.malformedCertificate, "version is not 1, 2 or 3")
        }
        guard let serialDER = handle.serialNumberDER,
              let serial = try? DER.parse(serialDER).integerBytes() else {
            throw CryptoError(.malformedCertificate, "serial number cannot be read")
        }
        guard let notBefore = handle.notBefore, let notAfter = handle.notAfter else {
            throw CryptoError(.malformedCertificate, "validity times cannot be read")
        }
        guard let signatureAlgorithmOID = handle.signatureAlgorithmOID else {
            throw CryptoError(.malformedCertificate, "signature algorithm cannot be read")
        }
        guard let spki = handle.subjectPublicKeyInfoDER else {
            throw CryptoError(.malformedCertificate, "subjectPublicKeyInfo cannot be encoded")
        }
        let subject = try Self.name(handle.subjectNameDER, "subject")
        let issuer = try Self.name(handle.issuerNameDER, "issuer")
        let extensions = try handle.extensions()
        var seen: Set<String> = []
        for item in extensions {
            guard seen.insert(item.oid).inserted else {
                throw CryptoError(.malformedCertificate, "extension \(item.oid) appears more than once")
            }
        }
        func decode<T>(_ oid: String, _ what: String, _ body: ([UInt8]) throws(DERError) -> T) throws(CryptoError) -> T? {
            guard let item = extensions.first(where: { $0.oid == oid }) else { return nil }
            do {
                return try body(item.value)
            } catch {
                throw CryptoError(.malformedCertificate, "\(what) extension: \(error)")
            }
        }

        self.basicConstraints = try decode(CertificateExtension.basicConstraintsOID, "basicConstraints") { bytes throws(DERError) in
            try BasicConstraints(derEncoded: bytes)
        }
        self.keyUsage = try decode(CertificateExtension.keyUsageOID, "keyUsage") { bytes throws(DERError) in
            try KeyUsage(derEncoded: bytes)
        }
        self.extendedKeyUsage = try decode(CertificateExtension.extendedKeyUsageOID, "extKeyUsage") { bytes throws(DERError) in
            var purposes: [String] = []
            for node in try DER.parseSequence(bytes) { purposes.append(try node.objectIdentifier()) }
            return purposes
        }
        self.subjectAlternativeNames = try decode(CertificateExtension.subjectAlternativeNameOID, "subjectAltName") { bytes throws(DERError) in
            try GeneralName.decodeList(bytes)
        } ?? []

        self.publicKey = PublicKey(evpKey: try handle.publicKey())
        self.handle = handle
        self.derBytes = derEncoded
        self.tbsCertificateBytes = Array(tbs.encodedBytes)
        self.version = version
        self.serialNumber = Array(serial)
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.extensions = extensions
        self.subjectPublicKeyInfoDER = spki
        self.signatureAlgorithmOID = signatureAlgorithmOID
        self.isSelfIssued = handle.isSelfIssued
    }

    /// Parses one DER certificate from a slice (for example a CBOR byte string of `x5c`).
    /// - Parameter derEncoded: exactly one certificate; trailing bytes are refused.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    public init(derEncoded: ArraySlice<UInt8>) throws(CryptoError) {
        try self.init(derEncoded: Array(derEncoded))
    }

    private static func name(_ der: [UInt8]?, _ what: String) throws(CryptoError) -> DistinguishedName {
        guard let der else { throw CryptoError(.malformedCertificate, "\(what) cannot be encoded") }
        do {
            return try DistinguishedName(derEncoded: der[...])
        } catch {
            throw CryptoError(.malformedCertificate, "\(what): \(error)")
        }
    }

    /// The extension with this OID, if present (an OID appears at most once).
    /// - Parameter oid: the dotted OID.
    package func `extension`(oid: String) -> CertificateExtension? {
        extensions.first { $0.oid == oid }
    }

    /// Whether `issuer`'s public key verifies this certificate's signature. Names,
    /// validity and CA flags are not looked at; use ``CertificateChain`` for that.
    /// - Parameter issuer: the certificate whose key should have signed this one.
    package func isSignatureValid(issuer: Certificate) -> Bool {
        handle.isSigned(by: issuer.publicKey.evpKey)
    }

    /// Whether `key` verifies this certificate's signature.
    /// - Parameter key: the candidate signer's public key.
    package func isSignatureValid(publicKey key: PublicKey) -> Bool {
        handle.isSigned(by: key.evpKey)
    }
}

extension Certificate: Equatable {
    /// Two certificates are equal when their DER encodings are.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derBytes == rhs.derBytes }
}
