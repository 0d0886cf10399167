/// Converts between the two ECDSA signature encodings. WebAuthn carries ECDSA
/// signatures as DER `ECDSA-Sig-Value`, which is what ``PublicKey/verify(signature:over:algorithm:options:)``
/// requires; JOSE (RFC 7518 §3.4, e.g. SafetyNet's JWS) carries the fixed-width `r || s`.
public enum ECDSASignature {
    /// The DER `ECDSA-Sig-Value` for a fixed-width `r || s` signature.
    /// - Parameters:
    ///   - raw: `r || s`, each `coordinateLength` bytes, big-endian.
    ///   - coordinateLength: the curve's coordinate size (32 for P-256, 48 for P-384, 66 for P-521).
    /// - Returns: `SEQUENCE { INTEGER r, INTEGER s }` in DER.
    /// - Throws: ``CryptoError`` `malformedSignature` when `raw` is not exactly two coordinates long.
    public static func derEncoded(raw: ArraySlice<UInt8>, coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        guard coordinateLength > 0, raw.count == 2 * coordinateLength else {
            throw CryptoError(.malformedSignature,
                              "raw ECDSA signature is \(raw.count) bytes, expected \(2 * max(coordinateLength, 0))")
        }
        return DEREncoder.sequence([DEREncoder.unsignedInteger(Array(raw.prefix(coordinateLength))),
                                    DEREncoder.unsignedInteger(Array(raw.suffix(coordinateLength)))])
    }
}
