/// What verifiers may keep between ceremonies so that repeated work is done once: credential
/// keys built from their COSE bytes (a login no longer rebuilds the libcrypto key), and
/// attestation certificates already parsed and chained. Bounded, safe to share between tasks.
///
/// ``RelyingPartyService`` owns one and hands it to its verifiers. A server that calls
/// ``RegistrationVerifier`` and ``AuthenticationVerifier`` itself creates one per process and
/// passes it to every verifier it builds; a verifier given none keeps nothing.
public final class VerificationCache: Sendable {
    let keys: COSEKeyCache
    let certificates: CertificateCache

    /// Creates an empty cache.
    /// - Parameter credentialKeyCapacity: how many credential keys to keep (the oldest go first).
    public init(credentialKeyCapacity: Int = 10_000) {
        self.keys = COSEKeyCache(capacity: credentialKeyCapacity)
        self.certificates = CertificateCache()
    }
}
