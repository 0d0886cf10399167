package import Foundation
package import WebAuthnCrypto

/// Builds and signs certificates for tests and the test authenticator. Not for production use.
///
/// Every field has a plain default; set what a test needs, then call
/// ``sign(with:digest:)``. The standard extensions are written in this order:
/// basicConstraints, keyUsage, extKeyUsage, subjectAltName, then ``extraExtensions``.
package struct CertificateBuilder: Sendable {
    /// basicConstraints to write.
    package struct BasicConstraintsSpec: Sendable {
        /// The cA flag (written only when true, as DER requires).
        package var isCA: Bool
        /// pathLenConstraint.
        package var pathLength: Int?
        /// The critical flag.
        package var isCritical: Bool
        /// Creates the spec.
        package init(isCA: Bool, pathLength: Int? = nil, isCritical: Bool = true) {
            self.isCA = isCA
            self.pathLength = pathLength
            self.isCritical = isCritical
        }
    }

    /// The version to write (1, 2 or 3).
    package var version = 3
    /// The serial number as an unsigned big-endian magnitude.
    package var serialNumber: [UInt8] = [0x01]
    /// The subject; may be empty (TPM AIK certificates).
    package var subject: DistinguishedName
    /// The issuer; nil means the subject (self-issued).
    package var issuer: DistinguishedName?
    /// Start of validity.
    package var notBefore: Date
    /// End of validity.
    package var notAfter: Date
    /// The subject public key.
    package var publicKey: PublicKey
    /// basicConstraints, if any.
    package var basicConstraints: BasicConstraintsSpec?
    /// keyUsage, if any.
    package var keyUsage: KeyUsage?
    /// Whether keyUsage is critical.
    package var keyUsageIsCritical = true
    /// extKeyUsage purposes (dotted OIDs), if any.
    package var extendedKeyUsage: [String]?
    /// subjectAltName entries, if any.
    package var subjectAlternativeNames: [GeneralName]?
    /// Whether subjectAltName is critical (RFC 5280 wants it critical when the subject is empty).
    package var subjectAlternativeNamesAreCritical = false
    /// Further extensions, written as given (duplicates included, for negative tests).
    package var extraExtensions: [CertificateExtension] = []

    /// Starts a certificate for `publicKey` named `subject`.
    /// - Parameters:
    ///   - subject: the subject name.
    ///   - publicKey: the subject public key.
    ///   - notBefore: start of validity.
    ///   - notAfter: end of validity.
    package init(subject: DistinguishedName, publicKey: PublicKey, notBefore: Date, notAfter: Date) {
        self.subject = subject
        self.publicKey = publicKey
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Makes `issuerCertificate`'s subject this certificate's issuer.
    /// - Parameter issuerCertificate: the CA that will sign.
    package mutating func issued(by issuerCertificate: Certificate) {
        issuer = issuerCertificate.subject
    }

    // The extension OIDs of RFC 5280 §4.2.1 this builder writes.
    private static let basicConstraintsOID = "2.5.29.19"
    private static let keyUsageOID = "2.5.29.15"
    private static let extendedKeyUsageOID = "2.5.29.37"

    /// The extensions this builder will write.
    package func allExtensions() throws(CryptoError) -> [CertificateExtension] {
        var out: [CertificateExtension] = []
        if let spec = basicConstraints {
            var parts: [[UInt8]] = []
            if spec.isCA { parts.append(DEREncoder.boolean(true)) }
            if let length = spec.pathLength { parts.append(DEREncoder.integer(length)) }
            out.append(
                CertificateExtension(
                    oid: Self.basicConstraintsOID, isCritical: spec.isCritical,
                    value: DEREncoder.sequence(parts)))
        }
        if let keyUsage {
            out.append(
                CertificateExtension(
                    oid: Self.keyUsageOID, isCritical: keyUsageIsCritical,
                    value: keyUsage.derEncoded))
        }
        if let extendedKeyUsage {
            var oids: [[UInt8]] = []
            for oid in extendedKeyUsage {
                do { oids.append(try DEREncoder.objectIdentifier(oid)) } catch {
                    throw CryptoError(.malformedCertificate, "extKeyUsage: \(error)")
                }
            }
            out.append(
                CertificateExtension(
                    oid: Self.extendedKeyUsageOID, isCritical: false,
                    value: DEREncoder.sequence(oids)))
        }
        if let subjectAlternativeNames {
            out.append(
                CertificateExtension(
                    oid: CertificateExtension.subjectAlternativeNameOID,
                    isCritical: subjectAlternativeNamesAreCritical,
                    value: DEREncoder.sequence(subjectAlternativeNames.map(\.derEncoded))))
        }
        return out + extraExtensions
    }

    /// Assembles the certificate and signs it.
    /// - Parameters:
    ///   - key: the issuer's private key (the subject's own for a self-signed certificate).
    ///   - digest: the signature digest; ignored for Ed25519 and Ed448, which take none.
    /// - Returns: the parsed certificate.
    /// - Throws: ``CryptoError`` when libcrypto refuses a part or the result does not parse.
    package func sign(with key: PrivateKey, digest: Digest = .sha256) throws(CryptoError) -> Certificate {
        let usesDigest = !(key.keyPair.isA("ED25519") || key.keyPair.isA("ED448"))
        let der = try X509Building.certificateDER(
            version: version, serialNumber: serialNumber,
            issuerNameDER: (issuer ?? subject).derBytes, subjectNameDER: subject.derBytes,
            notBefore: try Self.seconds(notBefore), notAfter: try Self.seconds(notAfter),
            subjectKeyDER: publicKey.subjectPublicKeyInfoDER, extensions: try allExtensions(),
            signingKey: key.keyPair, digest: usesDigest ? digest : nil)
        guard key.keyPair.isA("EC") else { return try Certificate(derEncoded: der) }
        // libcrypto's ECDSA nonce is random; sign the TBSCertificate again with an RFC 6979
        // nonce so the same inputs always give the same certificate.
        guard let parts = try? DER.parseSequence(der), parts.count == 3 else {
            throw CryptoError(.malformedCertificate, "libcrypto's certificate is not three DER values")
        }
        let tbs = Array(parts[0].encodedBytes)
        let signature = try key.sign(tbs, scheme: .ecdsa(digest))
        return try Certificate(
            derEncoded: DEREncoder.sequence([
                tbs, Array(parts[1].encodedBytes),
                DEREncoder.bitString(signature),
            ]))
    }

    private static func seconds(_ date: Date) throws(CryptoError) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite, abs(value) < 1e15 else { throw CryptoError(.malformedCertificate, "date out of range") }
        return Int64(value)
    }
}

extension DistinguishedName.Attribute {
    /// An attribute by short name (`C`, `ST`, `L`, `O`, `OU`, `CN`) or dotted OID.
    /// - Parameters:
    ///   - type: the short name or OID.
    ///   - value: the text value.
    package init(_ type: String, _ value: String) {
        let shortNames = ["C": "2.5.4.6", "ST": "2.5.4.8", "L": "2.5.4.7", "O": "2.5.4.10", "OU": "2.5.4.11", "CN": "2.5.4.3"]
        self.init(oid: shortNames[type] ?? type, value: value)
    }
}
