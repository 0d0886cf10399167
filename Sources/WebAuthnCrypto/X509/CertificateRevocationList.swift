/// An X.509 certificate revocation list (RFC 5280 §5), parsed by libcrypto.
///
/// Used when verifying a chain with ``CertificateChain/verify(leaf:intermediates:trustAnchors:crls:at:)``:
/// the list's signature and validity are checked against its issuer during path validation.
public struct CertificateRevocationList: Sendable {
    let handle: X509CRLHandle

    /// The list's DER encoding, exactly as given.
    public let derBytes: [UInt8]

    /// Parses one DER CRL.
    /// - Parameter derEncoded: exactly one `CertificateList`; trailing bytes are refused.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    public init(derEncoded: [UInt8]) throws(CryptoError) {
        // Structural DER first: libcrypto alone would also take BER.
        let outer: [DERNode]
        do {
            outer = try DER.parseSequence(derEncoded)
        } catch {
            throw CryptoError(.malformedCertificate, "not a DER CRL: \(error)")
        }
        guard outer.count == 3, let tbs = outer.first, tbs.tag == .sequence else {
            throw CryptoError(.malformedCertificate, "a CRL is SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue }")
        }
        handle = try X509CRLHandle.parse(derEncoded)
        derBytes = derEncoded
    }
}
