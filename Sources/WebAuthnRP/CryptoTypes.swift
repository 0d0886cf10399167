public import WebAuthnCrypto

// The few crypto-layer types a server names in its own code, given names in this module so that
// `import WebAuthnRP` is the only import a server writes. The rest of WebAuthnCrypto (DER,
// keys, libcrypto handles) is `package`: the library's business, not the server's.

/// A COSE algorithm identifier (RFC 9053, IANA "COSE Algorithms"), as offered in
/// `pubKeyCredParams` and accepted by a ``VerificationPolicy``'s `acceptedAlgorithms`.
public typealias COSEAlgorithm = WebAuthnCrypto.COSEAlgorithm

/// An X.509 certificate (an attestation trust anchor, or one read from an attestation
/// statement), parsed from DER with `init(derEncoded:)` or from PEM with `init(pemEncoded:)`.
public typealias Certificate = WebAuthnCrypto.Certificate

/// Why the crypto layer refused a key, signature or certificate, for example a trust anchor
/// that does not parse.
public typealias CryptoError = WebAuthnCrypto.CryptoError

/// A certificate revocation list (RFC 5280 §5, DER) a caller hands to metadata verification, for
/// example the CRLs named by the FIDO Metadata Service BLOB's signing chain.
public typealias CertificateRevocationList = WebAuthnCrypto.CertificateRevocationList
