/// Policy for accepting COSE keys and verifying signatures.
package struct COSEKeyOptions: Sendable {
    /// The smallest RSA modulus accepted, in bits. 2048 by default; lower it only through
    /// ``unsafeLegacyAttestation``.
    package var minimumRSABits: Int = 2048
    /// Whether RS1 (RSASSA-PKCS1-v1_5 with SHA-1, -65535) is accepted. Only legacy
    /// attestation statements need it; never enable it for credential keys.
    package var allowRS1: Bool = false
    /// Whether the key's CBOR must be CTAP2 canonical (shortest heads, definite lengths, keys
    /// in canonical order), as CTAP2 requires authenticators to write it. The registration
    /// verifier requires it of new credential keys (L3 §2.5: non-canonical CBOR SHOULD be
    /// rejected), so a stored record always holds canonical bytes; keys read back from storage
    /// do not need it.
    package var requireCanonicalEncoding: Bool = false

    /// The safe defaults: RSA ≥ 2048 bits, no RS1.
    package init() {}

    /// The safe defaults: RSA ≥ 2048 bits, no RS1.
    package static let `default` = COSEKeyOptions()

    /// UNSAFE: accepts RSA keys down to 1024 bits and RS1, for verifying old attestation
    /// statements only. Never use it for credential public keys.
    package static let unsafeLegacyAttestation: COSEKeyOptions = {
        var options = COSEKeyOptions()
        options.minimumRSABits = 1024
        options.allowRS1 = true
        return options
    }()
}
