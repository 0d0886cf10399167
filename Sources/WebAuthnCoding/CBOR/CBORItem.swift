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

// Typed accessors for the shapes WebAuthn structures use. They return nil on a
// type mismatch; callers turn that into their own typed error with context.

extension CBORItem {
    /// The value as a signed integer when it is an integer that fits `Int64`.
    package var int64: Int64? {
        switch value {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// The value as `Int` when it is an integer that fits.
    package var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// The byte string's bytes, when this is a byte string.
    package var bytes: ArraySlice<UInt8>? {
        if case .bytes(let b) = value { return b }
        return nil
    }

    /// The text, when this is a text string.
    package var text: String? {
        if case .text(let s) = value { return s }
        return nil
    }

    /// The elements, when this is an array.
    package var array: [CBORItem]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The entries in encoded order, when this is a map.
    package var mapEntries: [CBORMapEntry]? {
        if case .map(let m) = value { return m }
        return nil
    }

    /// The boolean, when this is `true` or `false`.
    package var bool: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }

    /// Looks up an integer key in a map (nil when absent or not a map).
    /// - Parameter key: the integer key, as COSE uses.
    package subscript(intKey key: Int64) -> CBORItem? {
        mapEntries?.first(where: { $0.key.int64 == key })?.value
    }

    /// Looks up a text key in a map (nil when absent or not a map).
    /// - Parameter key: the text key, compared byte for byte.
    package subscript(textKey key: String) -> CBORItem? {
        mapEntries?.first(where: {
            if case .text(let s) = $0.key.value { return s.utf8.elementsEqual(key.utf8) }
            return false
        })?.value
    }
}

extension CBORItem {
    /// An unsigned or negative integer item.
    package static func int(_ n: Int64) -> CBORItem {
        CBORItem(n >= 0 ? .unsigned(UInt64(n)) : .negative(UInt64(-1 - n)))
    }
    /// A byte-string item.
    package static func bytes<S: Sequence>(_ b: S) -> CBORItem where S.Element == UInt8 {
        CBORItem(.bytes(ArraySlice(b)))
    }
    /// A text-string item.
    package static func text(_ s: String) -> CBORItem { CBORItem(.text(s)) }
    /// An array item.
    package static func array(_ a: [CBORItem]) -> CBORItem { CBORItem(.array(a)) }
    /// A map item; the encoder sorts entries into CTAP2 canonical order.
    package static func map(_ entries: [(CBORItem, CBORItem)]) -> CBORItem {
        CBORItem(.map(entries.map { CBORMapEntry(key: $0.0, value: $0.1) }))
    }
    /// A boolean item.
    package static func bool(_ b: Bool) -> CBORItem { CBORItem(.bool(b)) }
}
