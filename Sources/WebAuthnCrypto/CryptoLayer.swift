// The crypto layer: the only module that imports libcrypto (CWebAuthnOpenSSL).
internal import CWebAuthnOpenSSL

/// Facts about the libcrypto this build is linked against.
public enum LibCrypto {
    /// The linked libcrypto's version text, as `OpenSSL_version(OPENSSL_VERSION)` reports it.
    public static var versionText: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
