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
