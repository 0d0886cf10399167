/// Converts between the two ECDSA signature encodings. WebAuthn carries ECDSA
/// signatures as DER `ECDSA-Sig-Value`, which is what ``PublicKey/verify(signature:over:algorithm:options:)``
/// requires; JOSE (RFC 7518 §3.4, e.g. SafetyNet's JWS) carries the fixed-width `r || s`.
package enum ECDSASignature {
    /// The DER `ECDSA-Sig-Value` for a fixed-width `r || s` signature.
    /// - Parameters:
    ///   - raw: `r || s`, each `coordinateLength` bytes, big-endian.
    ///   - coordinateLength: the curve's coordinate size (32 for P-256, 48 for P-384, 66 for P-521).
    /// - Returns: `SEQUENCE { INTEGER r, INTEGER s }` in DER.
    /// - Throws: ``CryptoError`` `malformedSignature` when `raw` is not exactly two coordinates long.
    package static func derEncoded(raw: ArraySlice<UInt8>, coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        guard coordinateLength > 0, raw.count == 2 * coordinateLength else {
            throw CryptoError(
                .malformedSignature,
                "raw ECDSA signature is \(raw.count) bytes, expected \(2 * max(coordinateLength, 0))")
        }
        return DEREncoder.sequence([
            DEREncoder.unsignedInteger(Array(raw.prefix(coordinateLength))),
            DEREncoder.unsignedInteger(Array(raw.suffix(coordinateLength))),
        ])
    }
}

extension ECDSASignature {
    /// Requires an ECDSA signature to be one DER `ECDSA-Sig-Value` exactly as libcrypto
    /// would write it: `SEQUENCE { INTEGER r, INTEGER s }` with minimal definite lengths,
    /// each integer in its shortest unsigned form (a single leading zero only before a
    /// byte with the top bit set), and nothing after the sequence.
    ///
    /// This is the same rule as parsing with `d2i_ECDSA_SIG` and requiring `i2d_ECDSA_SIG`
    /// to give back the same bytes (tests compare the two), without the four allocations
    /// that round trip costs on every login.
    /// - Parameter signature: the signature bytes.
    /// - Throws: ``CryptoError`` `malformedSignature`.
    static func requireStrictDER(_ signature: ArraySlice<UInt8>) throws(CryptoError) {
        guard !signature.isEmpty else { throw CryptoError(.malformedSignature, "ECDSA signature is empty") }
        guard isStrictDER(signature) else {
            throw CryptoError(.malformedSignature, "ECDSA signature is not one strict DER ECDSA-Sig-Value (\(signature.count) bytes)")
        }
    }

    static func isStrictDER(_ signature: ArraySlice<UInt8>) -> Bool {
        var position = signature.startIndex
        let end = signature.endIndex
        guard let sequence = element(signature, &position, tag: 0x30), position == end else { return false }
        var inner = sequence.lowerBound
        guard let r = element(signature, &inner, tag: 0x02), isMinimalUnsigned(signature[r]),
            let s = element(signature, &inner, tag: 0x02), isMinimalUnsigned(signature[s]),
            inner == sequence.upperBound
        else { return false }
        return true
    }

    /// Reads one tag-length-value with a minimal definite length; returns the value's range.
    private static func element(_ bytes: ArraySlice<UInt8>, _ position: inout Int, tag: UInt8) -> Range<Int>? {
        let end = bytes.endIndex
        guard position < end, bytes[position] == tag, end - position >= 2 else { return nil }
        let first = bytes[position + 1]
        var cursor = position + 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7f)
            // 0x80 is BER's indefinite length; more than 4 length bytes cannot fit a signature.
            guard count >= 1, count <= 4, end - cursor >= count, bytes[cursor] != 0 else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
            // Minimal: a long form only for 128 and more, and no more length bytes than needed.
            guard length >= 0x80 else { return nil }
        }
        guard end - cursor >= length else { return nil }
        position = cursor + length
        return cursor..<(cursor + length)
    }

    /// The content is how DER writes a non-negative integer: not empty, and a leading zero
    /// byte only alone (zero) or before a byte with the top bit set.
    private static func isMinimalUnsigned(_ content: ArraySlice<UInt8>) -> Bool {
        guard let first = content.first else { return false }
        if first >= 0x80 { return false }
        if first == 0 && content.count > 1 { return content[content.startIndex + 1] >= 0x80 }
        return true
    }
}
