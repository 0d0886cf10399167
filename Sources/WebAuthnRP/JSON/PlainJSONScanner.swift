import WebAuthnCoding
/// A scanner for the plain subset of JSON that browsers write: printable ASCII, strings
/// without escapes, integers without fraction or exponent, `true`, `false`, `null`,
/// objects without duplicate member names, and arrays.
///
/// It is the fast path in front of the general parsers (Foundation's `JSONDecoder` for
/// the response documents, ``StrictJSONReader`` for client data). It never rejects
/// anything: whatever lies outside the plain subset, or anything it does not expect
/// (an escape, a non-ASCII byte, a fraction, a duplicate, a missing member, a wrong
/// type, bad base64url), makes it give up with `nil`, and the caller runs the general
/// parser, which accepts or rejects with its own error, exactly as without the fast path.
/// Every document the scanner accepts is therefore one the general parser accepts with
/// the same values: plain JSON means the same thing to both, and within it a member
/// name is its bytes, so byte-equal names are the only duplicates.
struct PlainJSONScanner {
    let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    /// The deepest nesting skipped inside values the caller does not read.
    static let maximumSkipDepth = 8

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var atEnd: Bool { position == bytes.endIndex }

    mutating func skipWhitespace() {
        while position < bytes.endIndex {
            switch bytes[position] {
            case 0x20, 0x09, 0x0a, 0x0d: position += 1
            default: return
            }
        }
    }

    /// Skips white space, then consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.endIndex, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The next byte after white space, not consumed.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.endIndex ? bytes[position] : nil
    }

    /// A plain string: printable ASCII without `"` or `\` inside. Returns its content.
    mutating func string() -> ArraySlice<UInt8>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.endIndex {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return bytes[start..<(position - 1)]
            }
            // Escapes, control characters and non-ASCII are for the general parser.
            guard b >= 0x20, b < 0x7f, b != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    /// A plain string as a Swift string.
    mutating func text() -> String? {
        string().map { String(decoding: $0, as: UTF8.self) }
    }

    /// A plain string holding strict base64url, decoded: only alphabet characters may
    /// come before the closing quote.
    mutating func base64URL() -> [UInt8]? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        // The decoder refuses any character outside the alphabet (an escape, a control
        // character, non-ASCII), so finding the closing quote is enough here.
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        position = end + 1
        return try? Base64URL.decode(utf8: bytes[start..<end])
    }

    /// `null`, consumed, or false (nothing consumed) when something else is next.
    mutating func null() -> Bool { literal("null") }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// An integer of at most 15 digits, without fraction or exponent (`-0` is left to the
    /// general parser).
    mutating func integer() -> Int? {
        skipWhitespace()
        var cursor = position
        var negative = false
        if cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "-") {
            negative = true
            cursor += 1
        }
        let digitsStart = cursor
        var value = 0
        while cursor < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor]) {
            value = value * 10 + Int(bytes[cursor] - UInt8(ascii: "0"))
            cursor += 1
            guard cursor - digitsStart <= 15 else { return nil }
        }
        let digits = cursor - digitsStart
        guard digits > 0 else { return nil }
        // A leading zero only alone; "-0" is left to the general parser.
        if bytes[digitsStart] == UInt8(ascii: "0") && (digits > 1 || negative) { return nil }
        if cursor < bytes.endIndex {
            switch bytes[cursor] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        position = cursor
        return negative ? -value : value
    }

    private mutating func literal(_ word: String) -> Bool {
        skipWhitespace()
        let count = word.utf8.count
        guard bytes.endIndex - position >= count, bytes[position..<(position + count)].is(word) else { return false }
        position += count
        return true
    }

    /// What a member callback did with the member's value.
    enum Member {
        /// A name the caller reads; the caller consumed the value and refuses repeats itself.
        case read
        /// A name the caller does not read; the caller skipped the value, and the scanner
        /// gives up if an earlier member had the same name.
        case skipped
        /// Give up.
        case giveUp
    }

    /// Reads an object, calling `member` with each member's name and the scanner on its
    /// value. False when the object is not plain, an unread name repeats, or `member`
    /// gave up.
    mutating func object(_ member: (inout PlainJSONScanner, ArraySlice<UInt8>) -> Member) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        let firstMember = position
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            let nameStart = position
            guard let name = string(), consume(UInt8(ascii: ":")) else { return false }
            switch member(&self, name) {
            case .read: break
            case .skipped:
                guard Self.isNew(name, among: bytes[firstMember..<nameStart]) else { return false }
            case .giveUp: return false
            }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// Skips one plain value of any kind.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth <= Self.maximumSkipDepth, let next = peek() else { return false }
        switch next {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return object { scanner, _ in scanner.skipValue(depth: depth + 1) ? .skipped : .giveUp }
        case UInt8(ascii: "["):
            return array { scanner in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
        case UInt8(ascii: "n"): return null()
        default: return integer() != nil
        }
    }

    /// Reads an array, calling `element` with the scanner on each element.
    mutating func array(_ element: (inout PlainJSONScanner) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "[")) else { return false }
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    /// Whether no member in `earlier` (the members before this one, already scanned as
    /// plain) has this name. False also when the members cannot be scanned again.
    private static func isNew(_ name: ArraySlice<UInt8>, among earlier: ArraySlice<UInt8>) -> Bool {
        var scanner = PlainJSONScanner(earlier)
        while !scanner.atEndAfterWhitespace() {
            guard let previous = scanner.string(), scanner.consume(UInt8(ascii: ":")),
                  !previous.hasSameBytes(as: name), scanner.skipValue(depth: 1),
                  scanner.consume(UInt8(ascii: ",")) else { return false }
        }
        return true
    }

    private mutating func atEndAfterWhitespace() -> Bool {
        skipWhitespace()
        return atEnd
    }
}

/// Tells one member name apart from a fixed set of names, for the fast decoders.
extension ArraySlice where Element == UInt8 {
    func `is`(_ name: String) -> Bool {
        // Lengths first: most names differ there. The literal's bytes are read through a span.
        let expected = name.utf8.span
        guard count == expected.count else { return false }
        let actual = span
        for offset in 0..<expected.count {
            guard actual[offset] == expected[offset] else { return false }
        }
        return true
    }
}

extension ArraySlice where Element == UInt8 {
    /// Whether two slices hold the same bytes (read through spans).
    func hasSameBytes(as other: ArraySlice<UInt8>) -> Bool {
        guard count == other.count else { return false }
        let a = span, b = other.span
        for offset in 0..<a.count where a[offset] != b[offset] { return false }
        return true
    }
}
