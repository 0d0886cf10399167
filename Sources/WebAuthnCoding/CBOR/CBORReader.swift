/// The index-based reader behind ``CBOR``. It owns no bytes: it walks a slice of
/// the caller's input, checking every declared length against what remains.
struct CBORReader {
    let input: ArraySlice<UInt8>
    private(set) var position: Int
    private let options: CBORDecodingOptions
    private let maximumDepth: Int
    private var itemsLeft: Int
    /// What is left of ``CBORDecodingOptions/maximumCompositeKeyBytes`` for this decode.
    private var compositeKeyBytesLeft: Int

    init(input: ArraySlice<UInt8>, options: CBORDecodingOptions) {
        self.input = input
        self.position = input.startIndex
        self.options = options
        self.maximumDepth = max(1, min(options.maximumDepth, CBORDecodingOptions.hardMaximumDepth))
        self.itemsLeft = max(0, options.maximumItems)
        self.compositeKeyBytesLeft = max(0, options.maximumCompositeKeyBytes)
    }

    private var remaining: Int { input.endIndex - position }
    private var offset: Int { position - input.startIndex }

    private func fail(_ code: CBORError.Code, at index: Int? = nil, _ reason: String) -> CBORError {
        CBORError(code, offset: (index ?? position) - input.startIndex, reason)
    }

    // MARK: Primitive reads

    @inline(__always)
    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < input.endIndex else { throw fail(.truncated, "input ended where a byte was expected") }
        let b = input[position]
        position += 1
        return b
    }

    @inline(__always)
    private mutating func readBigEndian(_ count: Int) throws(CBORError) -> UInt64 {
        guard remaining >= count else {
            throw fail(.truncated, "input ended inside a \(count)-byte argument")
        }
        var v: UInt64 = 0
        for i in position..<(position + count) { v = (v << 8) | UInt64(input[i]) }
        position += count
        return v
    }

    @inline(__always)
    private mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let s = input[position..<(position + count)]
        position += count
        return s
    }

    /// The head of an item: its major type and argument (nil for indefinite length).
    private struct Head {
        var major: UInt8
        var additional: UInt8
        var argument: UInt64?
        var start: Int
    }

    private mutating func readHead() throws(CBORError) -> Head {
        let start = position
        let initial = try readByte()
        let major = initial >> 5
        let ai = initial & 0x1f
        // Most heads carry their argument in the initial byte, which is always canonical.
        if ai < 24 { return Head(major: major, additional: ai, argument: UInt64(ai), start: start) }
        let argument: UInt64?
        switch ai {
        case 24: argument = try readBigEndian(1)
        case 25: argument = try readBigEndian(2)
        case 26: argument = try readBigEndian(4)
        case 27: argument = try readBigEndian(8)
        case 28...30:
            throw fail(.invalid, at: start, "reserved additional information value \(ai)")
        default: argument = nil  // 31: indefinite length or break
        }
        if options.requireCanonical, let value = argument, major != 7 {
            let shortest: Bool
            switch ai {
            case 24: shortest = value >= 24
            case 25: shortest = value > 0xff
            case 26: shortest = value > 0xffff
            case 27: shortest = value > 0xffff_ffff
            default: shortest = true
            }
            guard shortest else {
                throw fail(.nonCanonical, at: start, "argument \(value) is not in its shortest encoding")
            }
        }
        return Head(major: major, additional: ai, argument: argument, start: start)
    }

    /// Converts a declared length to Int after checking it against the bytes left.
    private func checkedLength(_ declared: UInt64, perElement: Int, at start: Int, what: String) throws(CBORError) -> Int {
        let available = UInt64(remaining / perElement)
        guard declared <= available else {
            throw fail(
                .limit, at: start,
                "\(what) declares \(declared) but only \(remaining) byte(s) remain")
        }
        return Int(declared)  // declared <= available <= Int.max
    }

    @inline(__always)
    private mutating func countItem(at start: Int) throws(CBORError) {
        guard itemsLeft > 0 else {
            throw fail(.limit, at: start, "more than \(options.maximumItems) data items")
        }
        itemsLeft -= 1
    }

    // MARK: Items

    mutating func readItem(depth: Int) throws(CBORError) -> CBORItem {
        let start = position
        guard depth <= maximumDepth else {
            throw fail(.depth, "nesting deeper than \(maximumDepth)")
        }
        try countItem(at: start)
        let head = try readHead()
        let value: CBORValue
        switch head.major {
        case 0:
            guard let n = head.argument else { throw fail(.invalid, at: start, "indefinite length on an integer") }
            value = .unsigned(n)
        case 1:
            guard let n = head.argument else { throw fail(.invalid, at: start, "indefinite length on an integer") }
            value = .negative(n)
        case 2:
            value = .bytes(try readString(head, major: 2))
        case 3:
            value = .text(try readText(head, itemStart: start))
        case 4:
            value = .array(try readArray(head, depth: depth))
        case 5:
            value = .map(try readMap(head, depth: depth))
        case 6:
            guard let tag = head.argument else { throw fail(.invalid, at: start, "indefinite length on a tag") }
            value = .tagged(tag, try readItem(depth: depth + 1))
        default:
            value = try readSimpleOrFloat(head)
        }
        return CBORItem(value: value, encodedBytes: input[start..<position])
    }

    private mutating func readString(_ head: Head, major: UInt8) throws(CBORError) -> ArraySlice<UInt8> {
        if let declared = head.argument {
            let length = try checkedLength(declared, perElement: 1, at: head.start, what: "string length")
            return take(length)
        }
        guard !options.requireCanonical else {
            throw fail(.nonCanonical, at: head.start, "indefinite-length string")
        }
        // Indefinite length: definite chunks of the same major type until a break.
        var joined: [UInt8] = []
        while true {
            let chunkStart = position
            let initial = try readByte()
            if initial == 0xff { break }
            position = chunkStart
            try countItem(at: chunkStart)
            let chunk = try readHead()
            guard chunk.major == major else {
                throw fail(
                    .invalid, at: chunkStart,
                    "chunk of major type \(chunk.major) inside an indefinite string of major type \(major)")
            }
            guard let declared = chunk.argument else {
                throw fail(.invalid, at: chunkStart, "nested indefinite-length chunk")
            }
            let length = try checkedLength(declared, perElement: 1, at: chunkStart, what: "chunk length")
            if major == 3 {
                // Each chunk of a text string must be valid UTF-8 on its own (RFC 8949 §3.2.3).
                _ = try Self.validatedText(input[position..<(position + length)], offset: chunkStart - input.startIndex)
            }
            joined.append(contentsOf: take(length))
        }
        return joined[...]
    }

    /// A text string. A definite-length one is read in place: the common WebAuthn texts
    /// come back as literals without a slice being made of them.
    private mutating func readText(_ head: Head, itemStart: Int) throws(CBORError) -> String {
        guard let declared = head.argument else {
            return try Self.validatedText(try readString(head, major: 3), offset: itemStart - input.startIndex)
        }
        let length = try checkedLength(declared, perElement: 1, at: head.start, what: "string length")
        let range = position..<(position + length)
        position += length
        if let known = CommonText.lookup(input, range) { return known }
        return try Self.validatedText(input[range], offset: itemStart - input.startIndex)
    }

    private mutating func readArray(_ head: Head, depth: Int) throws(CBORError) -> [CBORItem] {
        var elements: [CBORItem] = []
        if let declared = head.argument {
            let count = try checkedLength(declared, perElement: 1, at: head.start, what: "array count")
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try readItem(depth: depth + 1)) }
            return elements
        }
        guard !options.requireCanonical else { throw fail(.nonCanonical, at: head.start, "indefinite-length array") }
        while try !consumeBreak() { elements.append(try readItem(depth: depth + 1)) }
        return elements
    }

    private mutating func readMap(_ head: Head, depth: Int) throws(CBORError) -> [CBORMapEntry] {
        var entries: [CBORMapEntry] = []
        var keySet = DuplicateKeyDetector()
        func readEntry(_ reader: inout CBORReader) throws(CBORError) {
            let keyStart = reader.position
            let key = try reader.readItem(depth: depth + 1)
            // Duplicates first: a repeated key is a duplicate in canonical mode too,
            // not merely a key out of order.
            guard try reader.isNewKey(key, at: keyStart, earlier: entries, keySet: &keySet) else {
                throw reader.fail(.duplicateKey, at: keyStart, "duplicate map key")
            }
            if reader.options.requireCanonical, let previous = entries.last,
                !CTAP2Order.precedes(previous.key.encodedBytes, key.encodedBytes)
            {
                throw reader.fail(.nonCanonical, at: keyStart, "map keys are not in CTAP2 canonical order")
            }
            let value = try reader.readItem(depth: depth + 1)
            entries.append(CBORMapEntry(key: consume key, value: consume value))
        }
        if let declared = head.argument {
            let count = try checkedLength(declared, perElement: 2, at: head.start, what: "map size")
            entries.reserveCapacity(count)
            for _ in 0..<count { try readEntry(&self) }
            return entries
        }
        guard !options.requireCanonical else { throw fail(.nonCanonical, at: head.start, "indefinite-length map") }
        while try !consumeBreak() { try readEntry(&self) }
        return entries
    }

    // MARK: Duplicate keys

    /// Whether `key`, read at `start`, differs from every key in `earlier`.
    ///
    /// Small maps whose keys are integers or definite-length strings (every map WebAuthn
    /// uses) are checked from the keys' heads and bytes in the input, so no decoded item
    /// is copied. From its 16th key, or its first key of any other kind, a map hands its
    /// keys to `keySet`, which compares values.
    private mutating func isNewKey(
        _ key: CBORItem, at start: Int, earlier: [CBORMapEntry],
        keySet: inout DuplicateKeyDetector
    ) throws(CBORError) -> Bool {
        if !keySet.isActive, earlier.count < DuplicateKeyDetector.linearLimit, let new = scalarKey(at: start),
            let isNew = isNewScalarKey(new, earlier: earlier)
        {
            return isNew
        }
        do throws(DuplicateKeyDetector.OverBudget) {
            if !keySet.isActive { try keySet.activate(earlier: earlier, budget: &compositeKeyBytesLeft) }
            return try keySet.insert(key, budget: &compositeKeyBytesLeft)
        } catch {
            throw fail(
                .limit, at: start,
                "map keys that are arrays, maps, tags or simple values encode to more than "
                    + "\(options.maximumCompositeKeyBytes) bytes in all")
        }
    }

    /// Compares a scalar key with the keys of a map whose keys so far are all scalar (the
    /// map's `keySet` is inactive until another kind of key comes), in place; nil if one is not.
    private func isNewScalarKey(_ new: ScalarKey, earlier: [CBORMapEntry]) -> Bool? {
        for entry in earlier {
            guard let old = scalarKey(at: entry.key.encodedBytes.startIndex) else { return nil }
            if sameScalarKey(old, new) { return false }
        }
        return true
    }

    /// A key that is an integer or a definite-length string, as read from its head:
    /// major type, argument (the integer, or the string's length) and where a string's
    /// bytes begin.
    private struct ScalarKey {
        var major: UInt8
        var argument: UInt64
        var contentStart: Int
    }

    /// The ``ScalarKey`` of the item that starts at `start`, or nil for any other kind of item.
    private func scalarKey(at start: Int) -> ScalarKey? {
        guard start >= input.startIndex, start < input.endIndex else { return nil }
        let initial = input[start]
        let major = initial >> 5, additional = initial & 0x1f
        guard major <= 3 else { return nil }
        let width: Int
        switch additional {
        case 0..<24: return ScalarKey(major: major, argument: UInt64(additional), contentStart: start + 1)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default: return nil
        }
        guard input.endIndex - start > width else { return nil }
        var argument: UInt64 = 0
        for i in (start + 1)...(start + width) { argument = argument << 8 | UInt64(input[i]) }
        return ScalarKey(major: major, argument: argument, contentStart: start + 1 + width)
    }

    /// Integers compare by value; strings by their exact bytes (text by its UTF-8, not by
    /// canonical equivalence), which are compared in place.
    private func sameScalarKey(_ a: ScalarKey, _ b: ScalarKey) -> Bool {
        guard a.major == b.major, a.argument == b.argument else { return false }
        guard a.major >= 2 else { return true }
        guard let length = Int(exactly: a.argument),
            input.endIndex - a.contentStart >= length, input.endIndex - b.contentStart >= length
        else { return false }
        for offset in 0..<length where input[a.contentStart + offset] != input[b.contentStart + offset] {
            return false
        }
        return true
    }

    /// Consumes a break byte if one is next; throws `truncated` at end of input.
    private mutating func consumeBreak() throws(CBORError) -> Bool {
        guard position < input.endIndex else {
            throw fail(.truncated, "input ended before the break of an indefinite-length item")
        }
        if input[position] == 0xff {
            position += 1
            return true
        }
        return false
    }

    private mutating func readSimpleOrFloat(_ head: Head) throws(CBORError) -> CBORValue {
        switch head.additional {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(head.additional)
        case 24:
            let v = UInt8(truncatingIfNeeded: head.argument ?? 0)
            guard v >= 32 else {
                throw fail(.invalid, at: head.start, "simple value \(v) in two-byte form (RFC 8949 §3.3)")
            }
            return .simple(v)
        case 25: return .float(Self.halfToDouble(UInt16(truncatingIfNeeded: head.argument ?? 0)))
        case 26: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument ?? 0))))
        case 27: return .float(Double(bitPattern: head.argument ?? 0))
        default:
            throw fail(.invalid, at: head.start, "break byte outside an indefinite-length item")
        }
    }

    // MARK: Helpers

    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int((half >> 10) & 0x1f)
        let mantissa = Double(half & 0x3ff)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }

    static func validatedText(_ utf8: ArraySlice<UInt8>, offset: Int) throws(CBORError) -> String {
        // ASCII (every key WebAuthn uses) is valid UTF-8 as it stands; String(decoding:) then
        // copies the contiguous bytes on the standard library's fast path.
        if !utf8.contains(where: { $0 >= 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        var iterator = utf8.makeIterator()
        var decoder = UTF8()
        var scalars = 0
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: scalars += 1
            case .emptyInput: break loop
            case .error:
                throw CBORError(.invalidUTF8, offset: offset, "text string is not valid UTF-8 (after \(scalars) scalar(s))")
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}

/// The short texts every WebAuthn CBOR object repeats (attestation-object and attStmt keys,
/// format names), returned as string literals: making a `String` from bytes validates and
/// copies them, which was about a sixth of decoding a `none` attestation object.
enum CommonText {
    /// The literal whose UTF-8 is exactly `input[range]`, if it is one of the table's.
    /// The bytes are packed big-endian into one integer and matched by length.
    static func lookup(_ input: ArraySlice<UInt8>, _ range: Range<Int>) -> String? {
        guard range.count >= 3, range.count <= 8,
            range.lowerBound >= input.startIndex, range.upperBound <= input.endIndex
        else { return nil }
        var packed: UInt64 = 0
        for index in range { packed = packed << 8 | UInt64(input[index]) }
        switch range.count {
        case 3:
            switch packed {
            case 0x666D74: return "fmt"
            case 0x616C67: return "alg"
            case 0x736967: return "sig"
            case 0x783563: return "x5c"
            case 0x74706D: return "tpm"
            case 0x766572: return "ver"
            default: return nil
            }
        case 4: return packed == 0x6E6F6E65 ? "none" : nil
        case 5: return packed == 0x6170706C65 ? "apple" : nil
        case 6: return packed == 0x7061636B6564 ? "packed" : nil
        case 7:
            switch packed {
            case 0x61747453746D74: return "attStmt"
            case 0x70756241726561: return "pubArea"
            default: return nil
            }
        default:
            switch packed {
            case 0x6175746844617461: return "authData"
            case 0x63657274496E666F: return "certInfo"
            case 0x6669646F2D753266: return "fido-u2f"
            default: return nil
            }
        }
    }
}

/// Finds a repeated map key. Keys compare by value: integers by value, byte strings and
/// text strings by their bytes (text by its exact UTF-8, not by canonical equivalence),
/// floats by bit pattern, and anything else by its canonical encoding, so two encodings
/// of one value are the same key (RFC 8949 §5.6).
///
/// The reader checks small maps of integer and definite-string keys itself, in place. A
/// map it hands over (from the 16th key, or from the first key of another kind) keeps the
/// ``Identity`` of each key in a set, built once per key, so a map costs one identity per
/// key rather than one per pair. An identity made by encoding a key (an array, map, tag or
/// simple value) is charged to the decode's composite-key budget: keys nested in keys are
/// encoded again at every level, and without the budget a 60 KB input could cost tenths of
/// a second.
struct DuplicateKeyDetector {
    /// Thrown when a key's encoding would overdraw the budget.
    struct OverBudget: Error {}

    private enum Identity: Hashable {
        case unsigned(UInt64), negative(UInt64), bytes(ArraySlice<UInt8>), text(ArraySlice<UInt8>), float(UInt64)
        case encoded([UInt8])
    }
    static let linearLimit = 16
    private var set: Set<Identity> = []
    /// Whether the map's keys are kept here; once true, every later key of the map comes here.
    private(set) var isActive = false

    /// Takes over a map whose earlier keys the reader compared in place.
    mutating func activate(earlier: [CBORMapEntry], budget: inout Int) throws(OverBudget) {
        isActive = true
        set.reserveCapacity(earlier.count + 1)
        for entry in earlier { set.insert(try Self.identity(entry.key, budget: &budget)) }
    }

    /// Whether `key` is new to the map; it is remembered either way.
    mutating func insert(_ key: CBORItem, budget: inout Int) throws(OverBudget) -> Bool {
        set.insert(try Self.identity(key, budget: &budget)).inserted
    }

    private static func identity(_ key: CBORItem, budget: inout Int) throws(OverBudget) -> Identity {
        switch key.value {
        case .unsigned(let n): return .unsigned(n)
        case .negative(let n): return .negative(n)
        case .bytes(let b): return .bytes(b)
        case .text(let s):
            // A definite-length text item ends with its UTF-8 (validated, so exactly the
            // string's bytes); an indefinite one is made of chunks and is copied.
            let count = s.utf8.count
            if let first = key.encodedBytes.first, first & 0x1f != 31, key.encodedBytes.count >= count {
                return .text(key.encodedBytes.suffix(count))
            }
            return .text(ArraySlice(Array(s.utf8)))
        case .float(let d): return .float(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        default:
            // Arrays, maps, tags and simple values compare by value: their canonical
            // encoding, so two encodings of one value (e.g. [1] as 81 01 and 81 18 01)
            // are the same key (RFC 8949 §5.6). The charge is the encoding's length, which
            // depends on the value only, so every encoding of an input decodes alike.
            let encoded = CBOREncoder.encode(key.value)
            guard encoded.count <= budget else { throw OverBudget() }
            budget -= encoded.count
            return .encoded(encoded)
        }
    }
}

enum CTAP2Order {
    static func precedes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        let majorA = (a.first ?? 0) >> 5, majorB = (b.first ?? 0) >> 5
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}

/// Entry points of the CBOR (RFC 8949) decoder.
///
/// The decoder reads the caller's bytes in place: byte strings and every item's
/// `encodedBytes` are slices of the input, never copies (an indefinite-length byte
/// string is the one exception, since its chunks must be joined).
package enum CBOR {
    /// Decodes exactly one item that must span the whole input.
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item.
    /// - Throws: ``CBORError`` with code `trailing` when bytes remain after the item,
    ///   or any other code for an item that does not decode.
    package static func decode(
        _ bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default
    ) throws(CBORError) -> CBORItem {
        var reader = CBORReader(input: bytes, options: options)
        let item = try reader.readItem(depth: 1)
        guard reader.position == bytes.endIndex else {
            throw CBORError(
                .trailing, offset: reader.position - bytes.startIndex,
                "\(bytes.endIndex - reader.position) byte(s) after the top-level item")
        }
        return item
    }

    /// Decodes exactly one item that must span the whole input.
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item.
    /// - Throws: ``CBORError``.
    package static func decode(_ bytes: [UInt8], options: CBORDecodingOptions = .default) throws(CBORError) -> CBORItem {
        try decode(bytes[...], options: options)
    }

    /// Decodes the first item of the input and returns it with the bytes after it.
    ///
    /// Authenticator data embeds a COSE key followed by an extensions map, so the
    /// caller needs to know where the key ended.
    /// - Parameters:
    ///   - bytes: input that starts with an encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item and the unread remainder (a slice of `bytes`).
    /// - Throws: ``CBORError``.
    package static func decodePrefix(
        _ bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default
    ) throws(CBORError) -> (item: CBORItem, rest: ArraySlice<UInt8>) {
        var reader = CBORReader(input: bytes, options: options)
        let item = try reader.readItem(depth: 1)
        return (item, bytes[reader.position...])
    }
}

/// Limits and strictness for `CBOR.decode(_:options:)`.
///
/// Every limit is checked before anything is allocated for the item it guards.
package struct CBORDecodingOptions: Sendable, Equatable {
    /// Deepest nesting of arrays, maps and tags. The top-level item is depth 1.
    /// Default 16, enough for every WebAuthn structure. Values above
    /// ``hardMaximumDepth`` are clamped so that recursion cannot exhaust the stack.
    package var maximumDepth: Int
    /// Most data items (of any kind, nested ones included) one decode may produce.
    package var maximumItems: Int
    /// Most bytes the map keys that are arrays, maps, tags or simple values may take, in
    /// their canonical encoding, summed over one decode. Such keys compare by that encoding,
    /// and a key nested in a key is encoded again at each level; the budget keeps the work
    /// linear. WebAuthn never uses such keys.
    package var maximumCompositeKeyBytes: Int
    /// Require CTAP2 canonical form: shortest integer, length and tag encodings,
    /// definite lengths only, and map keys in CTAP2 canonical order.
    package var requireCanonical: Bool

    /// The deepest nesting any configuration may ask for.
    package static let hardMaximumDepth = 256

    /// Creates options.
    /// - Parameters:
    ///   - maximumDepth: deepest nesting allowed (default 16).
    ///   - maximumItems: most items one decode may produce (default 65,536).
    ///   - maximumCompositeKeyBytes: most bytes of composite map keys one decode may compare
    ///     (default 65,536).
    ///   - requireCanonical: whether CTAP2 canonical form is required (default false).
    package init(
        maximumDepth: Int = 16, maximumItems: Int = 65_536, maximumCompositeKeyBytes: Int = 65_536,
        requireCanonical: Bool = false
    ) {
        self.maximumDepth = maximumDepth
        self.maximumItems = maximumItems
        self.maximumCompositeKeyBytes = maximumCompositeKeyBytes
        self.requireCanonical = requireCanonical
    }

    /// The defaults: depth 16, 65,536 items, 65,536 bytes of composite keys, canonical form not required.
    package static let `default` = CBORDecodingOptions()
    /// The defaults with CTAP2 canonical form required.
    package static let ctap2Canonical = CBORDecodingOptions(requireCanonical: true)
}

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
