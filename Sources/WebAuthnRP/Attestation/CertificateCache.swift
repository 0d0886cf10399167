import Synchronization
import WebAuthnCrypto

/// Keeps parsed attestation certificates so a registration does not parse the same
/// certificate again. Packed, fido-u2f and most other attestations carry batch
/// certificates that thousands of authenticators share, and libcrypto 3's certificate
/// parse (`d2i_X509`, which decodes the public key through its provider decoders)
/// costs about two signature verifications.
///
/// Keyed by the exact DER bytes, so a hit is the very certificate that would have been
/// parsed; only certificates that parsed are kept. Bounded, safe under concurrency.
/// Chains are still validated on every registration: only the parse is reused.
final class CertificateCache: Sendable {
    private let entries = Mutex([[UInt8]: Certificate]())
    private let capacity: Int

    init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    /// The certificate with these DER bytes, parsed now or earlier.
    /// - Throws: what ``Certificate/init(derEncoded:)`` throws; failures are not kept.
    func certificate(derEncoded der: ArraySlice<UInt8>) throws(CryptoError) -> Certificate {
        let key = Array(der)
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let parsed = try Certificate(derEncoded: der)
        entries.withLock { dict in
            if dict.count >= capacity { dict.removeAll(keepingCapacity: true) }
            dict[key] = parsed
        }
        return parsed
    }
}
