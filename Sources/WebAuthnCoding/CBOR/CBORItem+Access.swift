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
