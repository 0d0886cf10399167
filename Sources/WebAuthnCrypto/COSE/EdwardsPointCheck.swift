/// Refuses Ed25519 and Ed448 public keys that no honest authenticator makes: encodings that are
/// not canonical (RFC 8032 §5.1.3 / §5.2.3: `y` at or above the field prime, stray bits) and
/// points of small order.
///
/// A deliberate extra check, not a WebAuthn rule (SpecMap, "Deliberate extra checks", in the DocC catalog): for the identity point the
/// signature `R = identity, S = 0` verifies for every message under RFC 8032's verification
/// equation, and every small-order key is forgeable in the same way, so a credential registered
/// with one needs no private key to log in. libcrypto does not refuse such keys.
enum EdwardsPointCheck {
    /// Checks an OKP public key (`x` of a COSE key) on its curve.
    /// - Throws: ``CryptoError`` `malformedKey`.
    static func check(_ encoded: ArraySlice<UInt8>, curve: COSECurve) throws(CryptoError) {
        switch curve {
        case .ed25519: try check(encoded, field: ed25519Prime, smallOrderY: ed25519SmallOrderY, name: "Ed25519")
        case .ed448: try check(encoded, field: ed448Prime, smallOrderY: ed448SmallOrderY, name: "Ed448")
        default: return
        }
    }

    /// `encoded` is `y` little-endian with x's sign in the top bit of the last byte. For Ed448
    /// (57 bytes) the last byte holds only that bit; for Ed25519 (32 bytes) it shares the byte
    /// with y's top bits. `field` and `smallOrderY` are little-endian, as long as y's own bytes.
    private static func check(
        _ encoded: ArraySlice<UInt8>, field: [UInt8], smallOrderY: [[UInt8]],
        name: String
    ) throws(CryptoError) {
        var y = Array(encoded)
        guard y.count == field.count || y.count == field.count + 1, let last = y.last else {
            throw CryptoError(.malformedKey, "\(name) public key has \(encoded.count) bytes")
        }
        if y.count == field.count + 1 {
            // Ed448: the 57th byte carries the sign of x and must otherwise be zero.
            guard last & 0x7F == 0 else {
                throw CryptoError(.malformedKey, "\(name) public key is not canonically encoded (stray bits in its last byte)")
            }
            y.removeLast()
        } else {
            y[y.count - 1] = last & 0x7F
        }
        guard isBelow(y, field) else {
            throw CryptoError(.malformedKey, "\(name) public key is not canonically encoded (y is not below the field prime)")
        }
        // The sign bit is left out on purpose: each listed y is a small-order point (or the only
        // point with that y) whichever x it picks, and x = 0 with the sign set is no point at all.
        guard !smallOrderY.contains(y) else {
            throw CryptoError(.malformedKey, "\(name) public key is a point of small order (a forgeable key)")
        }
    }

    /// Whether little-endian `value` is below little-endian `bound` (same length).
    private static func isBelow(_ value: [UInt8], _ bound: [UInt8]) -> Bool {
        for (v, b) in zip(value, bound).reversed() where v != b { return v < b }
        return false
    }

    /// 2^255 - 19, little-endian.
    private static let ed25519Prime: [UInt8] = [0xED] + Array(repeating: 0xFF, count: 30) + [0x7F]

    /// 2^448 - 2^224 - 1, little-endian.
    private static let ed448Prime: [UInt8] = Array(repeating: 0xFF, count: 28) + [0xFE] + Array(repeating: 0xFF, count: 27)

    /// The y coordinates of edwards25519's eight points of order dividing 8: 1 (the identity),
    /// p - 1 (order 2), 0 (the two points of order 4) and the two y values of the four points of
    /// order 8.
    private static let ed25519SmallOrderY: [[UInt8]] = [
        [0x01] + Array(repeating: 0, count: 31),
        [0xEC] + Array(repeating: 0xFF, count: 30) + [0x7F],
        Array(repeating: 0, count: 32),
        [
            0x26, 0xE8, 0x95, 0x8F, 0xC2, 0xB2, 0x27, 0xB0, 0x45, 0xC3, 0xF4, 0x89, 0xF2, 0xEF, 0x98, 0xF0,
            0xD5, 0xDF, 0xAC, 0x05, 0xD3, 0xC6, 0x33, 0x39, 0xB1, 0x38, 0x02, 0x88, 0x6D, 0x53, 0xFC, 0x05,
        ],
        [
            0xC7, 0x17, 0x6A, 0x70, 0x3D, 0x4D, 0xD8, 0x4F, 0xBA, 0x3C, 0x0B, 0x76, 0x0D, 0x10, 0x67, 0x0F,
            0x2A, 0x20, 0x53, 0xFA, 0x2C, 0x39, 0xCC, 0xC6, 0x4E, 0xC7, 0xFD, 0x77, 0x92, 0xAC, 0x03, 0x7A,
        ],
    ]

    /// The y coordinates of edwards448's four points of order dividing 4: 1 (the identity),
    /// p - 1 (order 2) and 0 (x = ±1, order 4).
    private static let ed448SmallOrderY: [[UInt8]] = [
        [0x01] + Array(repeating: 0, count: 55),
        [0xFE] + Array(repeating: 0xFF, count: 27) + [0xFE] + Array(repeating: 0xFF, count: 27),
        Array(repeating: 0, count: 56),
    ]
}
