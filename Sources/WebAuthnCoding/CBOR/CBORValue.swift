/// One decoded CBOR data item together with the exact bytes it was decoded from.
///
/// `encodedBytes` is a slice of the caller's input (no copy), so anything that is
/// signed or hashed can be hashed exactly as received. Items built in code (for the
/// encoder) carry their canonical encoding instead.
package struct CBORItem: Sendable, Equatable {
    /// The decoded value.
    package let value: CBORValue
    /// The item's exact encoding: a slice of the decoded input, or the canonical
    /// encoding for items built with ``init(_:)``.
    package let encodedBytes: ArraySlice<UInt8>

    /// Wraps a decoded value with the input bytes it came from.
    /// - Parameters:
    ///   - value: the decoded value.
    ///   - encodedBytes: the bytes of the whole item.
    package init(value: CBORValue, encodedBytes: ArraySlice<UInt8>) {
        self.value = value
        self.encodedBytes = encodedBytes
    }

    /// Builds an item in code; its `encodedBytes` are the CTAP2 canonical encoding.
    /// - Parameter value: the value to encode.
    package init(_ value: CBORValue) {
        self.value = value
        self.encodedBytes = ArraySlice(CBOREncoder.encode(value))
    }

    /// Items compare by value; the encoding they came from is not part of equality.
    package static func == (lhs: CBORItem, rhs: CBORItem) -> Bool { lhs.value == rhs.value }
}

/// A CBOR value (RFC 8949 §3), covering every major type.
///
/// Only a tagged item is boxed (it holds an item inline); arrays and maps already keep
/// their elements in their own storage, so the other cases need no allocation of their own.
package enum CBORValue: Sendable, Equatable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`. Holding `n` keeps the whole range
    /// down to `-2^64` representable without overflow.
    case negative(UInt64)
    /// Major type 2: a byte string; a slice of the input when definite-length.
    case bytes(ArraySlice<UInt8>)
    /// Major type 3: a text string, validated as UTF-8.
    case text(String)
    /// Major type 4: an array.
    case array([CBORItem])
    /// Major type 5: a map, entries in encoded order.
    case map([CBORMapEntry])
    /// Major type 6: a tagged item.
    indirect case tagged(UInt64, CBORItem)
    /// Major type 7: `false` or `true`.
    case bool(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: an unassigned simple value (0-19, 32-255).
    case simple(UInt8)
    /// Major type 7: a half, single or double precision float, widened to `Double`.
    case float(Double)

    package static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): return a == b
        case let (.bytes(a), .bytes(b)): return a.elementsEqual(b)
        case let (.text(a), .text(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.map(a), .map(b)): return a == b
        case let (.tagged(ta, a), .tagged(tb, b)): return ta == tb && a == b
        case let (.bool(a), .bool(b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case let (.simple(a), .simple(b)): return a == b
        case let (.float(a), .float(b)): return a == b || (a.isNaN && b.isNaN)
        default: return false
        }
    }
}

/// One key/value pair of a CBOR map.
package struct CBORMapEntry: Sendable, Equatable {
    /// The key.
    package let key: CBORItem
    /// The value.
    package let value: CBORItem

    /// Creates an entry.
    /// - Parameters:
    ///   - key: the key item.
    ///   - value: the value item.
    package init(key: CBORItem, value: CBORItem) {
        self.key = key
        self.value = value
    }
}
