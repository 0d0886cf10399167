import Testing

@testable import WebAuthnCoding

// Small helpers shared by the WebAuthnCoding tests. Nothing here is reachable
// from the library: it only builds inputs and expected values.

/// Parses a hex string (spaces allowed). A malformed literal records an issue and
/// yields an empty array, so a typo in a table fails loudly instead of trapping.
func hex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for c in text.unicodeScalars where c != " " {
        let v: UInt8
        switch c.value {
        case 0x30...0x39: v = UInt8(c.value - 0x30)
        case 0x61...0x66: v = UInt8(c.value - 0x61 + 10)
        case 0x41...0x46: v = UInt8(c.value - 0x41 + 10)
        default:
            Issue.record("bad hex literal \(text)", sourceLocation: sourceLocation)
            return []
        }
        if let h = high {
            out.append(h << 4 | v)
            high = nil
        } else {
            high = v
        }
    }
    if high != nil { Issue.record("odd-length hex literal \(text)", sourceLocation: sourceLocation) }
    return out
}

/// Lowercase hex of some bytes, for messages.
func hexString<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    let digits = Array("0123456789abcdef")
    var s = ""
    for b in bytes {
        s.append(digits[Int(b >> 4)])
        s.append(digits[Int(b & 0x0f)])
    }
    return s
}

/// Decodes and returns the error code, or nil when decoding succeeded.
func decodeErrorCode(_ bytes: [UInt8], options: CBORDecodingOptions = .default) -> CBORError.Code? {
    do {
        _ = try CBOR.decode(bytes, options: options)
        return nil
    } catch {
        return error.code
    }
}

// MARK: Value builders for expected results

func u(_ n: UInt64) -> CBORValue { .unsigned(n) }
/// The integer `-1 - n`.
func neg(_ n: UInt64) -> CBORValue { .negative(n) }
func int(_ n: Int64) -> CBORValue { CBORItem.int(n).value }
func text(_ s: String) -> CBORValue { .text(s) }
func bytes(_ h: String) -> CBORValue { .bytes(ArraySlice(hex(h))) }
func array(_ values: [CBORValue]) -> CBORValue { .array(values.map { CBORItem($0) }) }
func map(_ pairs: [(CBORValue, CBORValue)]) -> CBORValue {
    .map(pairs.map { CBORMapEntry(key: CBORItem($0.0), value: CBORItem($0.1)) })
}
func tag(_ t: UInt64, _ v: CBORValue) -> CBORValue { .tagged(t, CBORItem(v)) }
func float(_ d: Double) -> CBORValue { .float(d) }

/// Exact equality that also tells `0.0` from `-0.0` (``CBORValue``'s `==`
/// treats them as equal, as IEEE 754 does).
func identical(_ a: CBORValue, _ b: CBORValue) -> Bool {
    switch (a, b) {
    case let (.float(x), .float(y)):
        return x.isNaN ? y.isNaN : (x == y && x.sign == y.sign)
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy { identical($0.value, $1.value) }
    case let (.map(x), .map(y)):
        return x.count == y.count
            && zip(x, y).allSatisfy { identical($0.key.value, $1.key.value) && identical($0.value.value, $1.value.value) }
    case let (.tagged(t1, x), .tagged(t2, y)):
        return t1 == t2 && identical(x.value, y.value)
    default:
        return a == b
    }
}

/// A fixed-seed SplitMix64: deterministic across runs and platforms.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
