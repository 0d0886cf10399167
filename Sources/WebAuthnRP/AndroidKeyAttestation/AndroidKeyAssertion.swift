import WebAuthnCrypto

/// The one byte layout an Android app signs (ECDSA P-256 with SHA-256, `SHA256withECDSA`) to
/// assert a request with its attested key (the DocC article "Android app integrity" shows it
/// with the app's code):
///
/// ```
/// "android-key-assertion/1" 0x00     24 bytes: the layout's name and version
/// counter                            4 bytes, big-endian: greater than the last one accepted
/// length ‖ binding                   4-byte big-endian length, then the UTF-8 of the server's
///                                    challenge text or the token id the request carries
/// length ‖ method                    the HTTP method, UTF-8 ("POST")
/// length ‖ path                      the request target's path and query, UTF-8
/// SHA-256(body)                      32 bytes (of no bytes for a request without a body)
/// ```
///
/// Every variable-length field carries its length, so no two requests sign the same bytes.
package enum AndroidKeyAssertion {
    /// The layout's first bytes.
    static let prefix = Array("android-key-assertion/1".utf8) + [0]

    /// The bytes the app signs for one request.
    /// - Parameters:
    ///   - counter: the app's counter for this key.
    ///   - binding: the challenge text or token id.
    ///   - method: the HTTP method.
    ///   - path: the path and query.
    ///   - body: the request body.
    /// - Returns: the signed bytes.
    package static func signedBytes(counter: UInt32, binding: String, method: String, path: String, body: [UInt8]) -> [UInt8] {
        var bytes = prefix
        bytes += bigEndian(counter)
        for field in [binding, method, path] {
            let utf8 = Array(field.utf8)
            bytes += bigEndian(UInt32(clamping: utf8.count))
            bytes += utf8
        }
        return bytes + Digest.sha256.hash(body)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}

extension AndroidKeyAttestationVerifier {
    /// Verifies a request assertion against a stored key, recording each step in `trace`.
    /// - Parameters:
    ///   - signature: the DER ECDSA signature the app sent.
    ///   - counter: the counter the app signed.
    ///   - signedBytes: the layout rebuilt from the request (``AndroidKeyAssertion/signedBytes(counter:binding:method:path:body:)``).
    ///   - key: the stored key.
    ///   - trace: receives each step.
    /// - Returns: the key with its new counter (not stored).
    /// - Throws: ``WebAuthnError``: `signature`, `signCount`, `malformed` for a stored key that is
    ///   not a P-256 point.
    package func verifyAssertion(
        signature: [UInt8], counter: UInt32, signedBytes: [UInt8], key: AttestedAndroidKey,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> AttestedAndroidKey {
        try trace.check(AndroidKeyStep.assertionSignature, "the signature over the request verifies with the stored key (ES256)") {
            () throws(WebAuthnError) in
            let publicKey = try VerificationCache.p256Key(key.publicKey, cache: cache)
            let valid: Bool
            do {
                valid = try publicKey.verify(signature: signature[...], over: signedBytes[...], algorithm: .es256)
            } catch {
                throw WebAuthnError(.signature, "the signature could not be checked: \(error)")
            }
            guard valid else { throw WebAuthnError(.signature, "the signature does not verify over the request") }
        }
        try trace.check(
            AndroidKeyStep.assertionCounter, "the counter is greater than the stored one",
            detail: "stored \(key.counter), received \(counter)"
        ) { () throws(WebAuthnError) in
            guard counter > key.counter else {
                throw WebAuthnError(.signCount, "the counter \(counter) is not greater than the stored \(key.counter)")
            }
        }
        var updated = key
        updated.counter = counter
        return updated
    }
}
