/// A public key held by libcrypto, built once and reused for every verification.
///
/// Made from a COSE key (``COSEKey``), a SubjectPublicKeyInfo, or a certificate.
package struct PublicKey: Sendable {
    let evpKey: EVPKey

    init(evpKey: EVPKey) { self.evpKey = evpKey }
}
