package import Foundation

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

extension CertificateChain {
    /// As ``verify(leaf:intermediates:trustAnchors:at:)``, and every certificate of the path
    /// whose issuer has a list among `crls` is checked against it: a revoked certificate, a
    /// list past its nextUpdate at `time` or a list whose signature does not verify fails the
    /// chain. A certificate whose issuer has no list here is not checked for revocation.
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: untrusted certificates that may complete the path, in any order.
    ///   - trustAnchors: the trusted certificates.
    ///   - crls: revocation lists (may be empty: then no revocation check).
    ///   - time: the moment at which every certificate and list must be valid.
    /// - Returns: the verified chain.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/untrustedChain``.
    package static func verify(
        leaf: Certificate, intermediates: [Certificate], trustAnchors: [Certificate],
        crls: [CertificateRevocationList], at time: Date
    ) throws(CryptoError) -> VerifiedCertificateChain {
        guard !trustAnchors.isEmpty else {
            throw CryptoError(.untrustedChain, "no trust anchors were given")
        }
        let seconds = time.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 9_007_199_254_740_992 else {
            throw CryptoError(.untrustedChain, "verification time is out of range")
        }
        let indices = try X509RevocationAwareVerification.verify(
            leaf: leaf.handle, untrusted: intermediates.map(\.handle),
            anchors: trustAnchors.map(\.handle), crls: crls.map(\.handle), time: Int64(seconds))
        let candidates = [leaf] + intermediates + trustAnchors
        var chain: [Certificate] = []
        for index in indices {
            guard candidates.indices.contains(index) else {
                throw CryptoError(.libcrypto, "verified chain index out of range")
            }
            chain.append(candidates[index])
        }
        guard let anchor = chain.last else {
            throw CryptoError(.libcrypto, "libcrypto returned an empty verified chain")
        }
        return VerifiedCertificateChain(certificates: chain, anchor: anchor)
    }
}
