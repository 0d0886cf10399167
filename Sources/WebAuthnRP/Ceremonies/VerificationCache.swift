import WebAuthnCrypto

/// What verifiers may keep between ceremonies so that repeated work is done once: credential
/// keys built from their COSE bytes (a login no longer rebuilds the libcrypto key), and
/// attestation certificates already parsed and chained. Bounded, safe to share between tasks.
///
/// ``RelyingPartyService`` owns one and hands it to its verifiers (the App Attest service owns
/// another); a verifier given none keeps nothing.
package final class VerificationCache: Sendable {
    let keys: COSEKeyCache
    let certificates: CertificateCache

    /// Creates an empty cache.
    /// - Parameter credentialKeyCapacity: how many credential keys to keep (the oldest go first).
    init(credentialKeyCapacity: Int = 10_000) {
        self.keys = COSEKeyCache(capacity: credentialKeyCapacity)
        self.certificates = CertificateCache()
    }
}

extension VerificationCache {
    /// The libcrypto key of a stored P-256 point `04 ‖ x ‖ y` (an app key of App Attest or
    /// Android key attestation): the cached one when this point was seen before, else built from
    /// the point itself (no COSE map to encode and decode again).
    /// - Parameters:
    ///   - point: the stored point.
    ///   - cache: where built keys are kept, or nil.
    /// - Throws: `malformed` when the point is not an uncompressed P-256 point.
    static func p256Key(_ point: [UInt8], cache: VerificationCache?) throws(WebAuthnError) -> PublicKey {
        if let cached = cache?.keys.key(forPoint: point) { return cached }
        guard point.count == 65, point.first == 0x04 else {
            throw WebAuthnError(.malformed, "the stored public key is not an uncompressed P-256 point (\(point.count) bytes)")
        }
        do {
            let built = try PublicKey(p256Point: point)
            cache?.keys.insert(built, forPoint: point)
            return built
        } catch {
            throw WebAuthnError(.malformed, "the stored public key is not an uncompressed P-256 point: \(error)")
        }
    }
}
