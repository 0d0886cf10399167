package import Foundation

/// A chain that verified from a leaf to one of the caller's trust anchors.
///
/// Only ``CertificateChain/verify(leaf:intermediates:trustAnchors:at:)`` makes one.
package struct VerifiedCertificateChain: Sendable {
    /// The chain in order: the leaf first, the anchor last (one element when the
    /// leaf is itself an anchor).
    package let certificates: [Certificate]
    /// The trust anchor that ends the chain.
    package let anchor: Certificate

    init(certificates: [Certificate], anchor: Certificate) {
        self.certificates = certificates
        self.anchor = anchor
    }
}

/// Certificate path validation through libcrypto's verifier.
package enum CertificateChain {
    /// Verifies that `leaf` chains, through some of `intermediates`, to one of `trustAnchors` at `time`.
    ///
    /// Only `trustAnchors` are trusted: a self-signed certificate among the
    /// intermediates is not. An anchor need not be self-signed (an intermediate CA
    /// may be given as the anchor). Validity is judged at `time`, never by the system
    /// clock. Signatures, validity periods, CA basicConstraints on every issuer,
    /// path lengths and unknown critical extensions are checked; no extended key
    /// usage is required (attestation certificates rarely carry one).
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: untrusted certificates that may complete the path, in any order.
    ///   - trustAnchors: the trusted certificates.
    ///   - crls: revocation lists (default none: no revocation check); a certificate whose issuer
    ///     has no list among them is not checked for revocation.
    ///   - time: the moment at which every certificate (and list) must be valid.
    /// - Returns: the verified chain.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/untrustedChain`` naming
    ///   libcrypto's reason and the depth it failed at.
    package static func verify(
        leaf: Certificate, intermediates: [Certificate], trustAnchors: [Certificate],
        crls: [CertificateRevocationList] = [], at time: Date
    ) throws(CryptoError) -> VerifiedCertificateChain {
        guard !trustAnchors.isEmpty else {
            throw CryptoError(.untrustedChain, "no trust anchors were given")
        }
        let seconds = time.timeIntervalSince1970.rounded(.down)
        // time_t is 64-bit; ±2^53 keeps the conversion exact and far from overflow.
        guard seconds.isFinite, abs(seconds) < 9_007_199_254_740_992 else {
            throw CryptoError(.untrustedChain, "verification time is out of range")
        }
        let indices = try X509ChainVerification.verify(
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
