/// Policy for accepting COSE keys and verifying signatures.
package struct COSEKeyOptions: Sendable {
    /// The smallest RSA modulus accepted, in bits. 2048 by default; lower it only through
    /// ``unsafeLegacyAttestation``.
    var minimumRSABits: Int = 2048
    /// Whether RS1 (RSASSA-PKCS1-v1_5 with SHA-1, -65535) is accepted. Only legacy
    /// attestation statements need it; never enable it for credential keys.
    package var allowRS1: Bool = false

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
