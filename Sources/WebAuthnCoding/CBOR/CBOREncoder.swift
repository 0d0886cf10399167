/// A small deterministic CBOR encoder producing CTAP2 canonical output: shortest
/// integer and length encodings, definite lengths, map keys in CTAP2 order, and
/// floats in their shortest form that keeps the value (RFC 8949 §4.2.2).
///
/// It serves tests and the project's own test authenticator. Verification re-encodes
/// only map keys that are arrays, maps, tags or simple values, to compare them by value
/// (`DuplicateKeyDetector`, under a per-decode budget), so encoding allocates little.
package enum CBOREncoder {
    /// Encodes a value.
    /// - Parameter value: the value to encode.
    /// - Returns: its canonical encoding.
    package static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    /// Encodes an item's value (its stored `encodedBytes` are not reused).
    /// - Parameter item: the item to encode.
    /// - Returns: its canonical encoding.
    package static func encode(_ item: CBORItem) -> [UInt8] { encode(item.value) }

    static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24: out.append(m | UInt8(argument))
        case 24...0xff: out.append(m | 24); out.append(UInt8(argument))
        case 0x100...0xffff: out.append(m | 25); appendBigEndian(argument, bytes: 2, to: &out)
        case 0x1_0000...0xffff_ffff: out.append(m | 26); appendBigEndian(argument, bytes: 4, to: &out)
        default: out.append(m | 27); appendBigEndian(argument, bytes: 8, to: &out)
        }
    }

    private static func appendBigEndian(_ v: UInt64, bytes: Int, to out: inout [UInt8]) {
        for i in stride(from: bytes - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): appendHead(major: 0, argument: n, to: &out)
        case .negative(let n): appendHead(major: 1, argument: n, to: &out)
        case .bytes(let b):
            appendHead(major: 2, argument: UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let s):
            appendHead(major: 3, argument: UInt64(s.utf8.count), to: &out)
            out.append(contentsOf: s.utf8)
        case .array(let items):
            appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { append(item.value, to: &out) }
        case .map(let entries):
            appendHead(major: 5, argument: UInt64(entries.count), to: &out)
            guard entries.count > 1 else {
                for entry in entries {
                    append(entry.key.value, to: &out)
                    append(entry.value.value, to: &out)
                }
                return
            }
            // Every key is encoded once, into one scratch buffer, and the entries are written
            // in the order of those encodings (not one array per key).
            var keys: [UInt8] = []
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(entries.count)
            for entry in entries {
                let start = keys.count
                append(entry.key.value, to: &keys)
                ranges.append(start..<keys.count)
            }
            let order = ranges.indices.sorted { CTAP2Order.precedes(keys[ranges[$0]], keys[ranges[$1]]) }
            for index in order {
                out.append(contentsOf: keys[ranges[index]])
                append(entries[index].value.value, to: &out)
            }
        case .tagged(let tag, let item):
            appendHead(major: 6, argument: tag, to: &out)
            append(item.value, to: &out)
        case .bool(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case .simple(let v):
            if v < 24 { out.append(0xe0 | v) } else { out.append(0xf8); out.append(v) }
        case .float(let d): appendFloat(d, to: &out)
        }
    }

    private static func appendFloat(_ d: Double, to out: inout [UInt8]) {
        if d.isNaN { out.append(contentsOf: [0xf9, 0x7e, 0x00]); return }
        if let half = exactHalf(d) {
            out.append(0xf9)
            appendBigEndian(UInt64(half), bytes: 2, to: &out)
            return
        }
        let single = Float(d)
        if Double(single) == d {
            out.append(0xfa)
            appendBigEndian(UInt64(single.bitPattern), bytes: 4, to: &out)
            return
        }
        out.append(0xfb)
        appendBigEndian(d.bitPattern, bytes: 8, to: &out)
    }

    /// The half-precision bits that represent `d` exactly, if any. Works on the
    /// single-precision bit pattern so the module needs no libm.
    private static func exactHalf(_ d: Double) -> UInt16? {
        let f = Float(d)
        guard Double(f) == d else { return nil }
        let bits = f.bitPattern
        let sign = UInt16(truncatingIfNeeded: (bits >> 16) & 0x8000)
        if f == 0 { return sign }
        if f.isInfinite { return sign | 0x7c00 }
        let exponent = Int((bits >> 23) & 0xff) - 127
        let mantissa = bits & 0x7f_ffff
        if (-14...15).contains(exponent) {
            guard mantissa & 0x1fff == 0 else { return nil }
            return sign | UInt16(exponent + 15) << 10 | UInt16(truncatingIfNeeded: mantissa >> 13)
        }
        if (-24 ..< -14).contains(exponent) {
            // A half subnormal: an integer multiple of 2^-24.
            let full = 0x80_0000 | mantissa
            let shift = UInt32(-1 - exponent)
            guard full & ((1 << shift) - 1) == 0 else { return nil }
            return sign | UInt16(truncatingIfNeeded: full >> shift)
        }
        return nil
    }
}
