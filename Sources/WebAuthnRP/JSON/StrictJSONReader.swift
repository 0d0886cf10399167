/// A strict RFC 8259 JSON reader for bytes that are hashed as received
/// (`clientDataJSON`), where Foundation's parser is too lenient: it cannot report a
/// duplicate member.
///
/// Accepted: exactly one JSON value (any kind) surrounded by optional white space,
/// in valid UTF-8. Rejected: duplicate member names in any object (names compare as
/// Swift strings, so canonically equivalent names also count as duplicates),
/// lone surrogate escapes, control characters in strings, numbers outside the
/// RFC 8259 grammar or beyond `Double`'s range, nesting deeper than the limit, input
/// larger than the limit, and anything after the value.
struct StrictJSONReader {
    /// Why the input was refused: the byte offset and a reason.
    struct ParseError: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "JSON at byte \(offset): \(reason)" }
    }

    /// Limits for one parse.
    struct Limits {
        /// Deepest nesting of arrays and objects (the top-level container is depth 1).
        var maximumDepth = 32
        /// Largest accepted input in bytes.
        var maximumBytes = 1 << 20
    }

    private let input: ArraySlice<UInt8>
    private let limits: Limits
    private var position: Int

    private init(_ input: ArraySlice<UInt8>, limits: Limits) {
        self.input = input
        self.limits = limits
        self.position = input.startIndex
    }

    /// Parses one JSON text.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON (without a byte order mark).
    ///   - limits: depth and size limits.
    /// - Returns: the value.
    /// - Throws: ``ParseError``.
    static func parse(_ bytes: ArraySlice<UInt8>, limits: Limits = Limits()) throws(ParseError) -> JSONValue {
        guard bytes.count <= limits.maximumBytes else {
            throw ParseError(offset: 0, reason: "input of \(bytes.count) bytes exceeds the limit of \(limits.maximumBytes)")
        }
        try validateUTF8(bytes)
        var reader = StrictJSONReader(bytes, limits: limits)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 1)
        reader.skipWhitespace()
        guard reader.position == bytes.endIndex else {
            throw reader.fail("\(bytes.endIndex - reader.position) byte(s) after the JSON value")
        }
        return value
    }

    private static func validateUTF8(_ bytes: ArraySlice<UInt8>) throws(ParseError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: scalars += 1
            case .emptyInput: return
            case .error: throw ParseError(offset: 0, reason: "not valid UTF-8 (after \(scalars) scalar(s))")
            }
        }
    }

    // MARK: Cursor

    private func fail(_ reason: String, at index: Int? = nil) -> ParseError {
        ParseError(offset: (index ?? position) - input.startIndex, reason: reason)
    }

    private var peek: UInt8? { position < input.endIndex ? input[position] : nil }

    private mutating func next(_ what: String) throws(ParseError) -> UInt8 {
        guard position < input.endIndex else { throw fail("input ended inside \(what)") }
        let b = input[position]
        position += 1
        return b
    }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d { position += 1 }
    }

    private mutating func expectLiteral(_ literal: String, value: JSONValue) throws(ParseError) -> JSONValue {
        let start = position
        let bytes = Array(literal.utf8)
        guard input.endIndex - position >= bytes.count,
              input[position..<(position + bytes.count)].elementsEqual(bytes) else {
            throw fail("invalid literal (expected \(literal))", at: start)
        }
        position += bytes.count
        return value
    }

    // MARK: Values

    private mutating func readValue(depth: Int) throws(ParseError) -> JSONValue {
        guard let b = peek else { throw fail("input ended where a value was expected") }
        switch b {
        case UInt8(ascii: "{"): return try readObject(depth: depth)
        case UInt8(ascii: "["): return try readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): return try expectLiteral("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expectLiteral("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expectLiteral("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw fail("unexpected character 0x\(String(b, radix: 16)) where a value was expected")
        }
    }

    private mutating func enter(_ depth: Int) throws(ParseError) {
        guard depth <= limits.maximumDepth else {
            throw fail("nesting deeper than \(limits.maximumDepth)")
        }
    }

    private mutating func readObject(depth: Int) throws(ParseError) -> JSONValue {
        try enter(depth)
        position += 1  // "{"
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let keyStart = position
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name string") }
            let key = try readString()
            skipWhitespace()
            guard try next("an object") == UInt8(ascii: ":") else {
                throw fail("expected ':' after a member name", at: position - 1)
            }
            skipWhitespace()
            let value = try readValue(depth: depth + 1)
            guard members.updateValue(value, forKey: key) == nil else {
                throw fail("duplicate member \"\(key.unicodeScalars.prefix(40).map(String.init).joined())\"", at: keyStart)
            }
            skipWhitespace()
            switch try next("an object") {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return .object(members)
            default: throw fail("expected ',' or '}' in an object", at: position - 1)
            }
        }
    }

    private mutating func readArray(depth: Int) throws(ParseError) -> JSONValue {
        try enter(depth)
        position += 1  // "["
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth + 1))
            skipWhitespace()
            switch try next("an array") {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return .array(elements)
            default: throw fail("expected ',' or ']' in an array", at: position - 1)
            }
        }
    }

    private mutating func readString() throws(ParseError) -> String {
        position += 1  // opening quote
        var out: [UInt8] = []
        while true {
            let b = try next("a string")
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try readEscape(into: &out)
            case 0x00..<0x20:
                throw fail("unescaped control character 0x\(String(b, radix: 16)) in a string", at: position - 1)
            default:
                out.append(b)  // the input was validated as UTF-8 as a whole
            }
        }
    }

    private mutating func readEscape(into out: inout [UInt8]) throws(ParseError) {
        let escapeStart = position - 1
        let c = try next("an escape")
        let simple: UInt8?
        switch c {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5c
        case UInt8(ascii: "/"): simple = 0x2f
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0c
        case UInt8(ascii: "n"): simple = 0x0a
        case UInt8(ascii: "r"): simple = 0x0d
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw fail("invalid escape '\\\(Character(Unicode.Scalar(c)))'", at: escapeStart)
        }
        if let simple {
            out.append(simple)
            return
        }
        let unit = try readHex4()
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard try next("a surrogate pair") == UInt8(ascii: "\\"), try next("a surrogate pair") == UInt8(ascii: "u") else {
                throw fail("high surrogate \\u\(String(unit, radix: 16)) not followed by a low surrogate escape", at: escapeStart)
            }
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw fail("high surrogate \\u\(String(unit, radix: 16)) not followed by a low surrogate", at: escapeStart)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw fail("lone low surrogate \\u\(String(unit, radix: 16))", at: escapeStart)
        default:
            scalarValue = UInt32(unit)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw fail("escape is not a Unicode scalar", at: escapeStart)
        }
        out.append(contentsOf: String(scalar).utf8)
    }

    private mutating func readHex4() throws(ParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            let c = try next("a \\u escape")
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw fail("non-hexadecimal character in a \\u escape", at: position - 1)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func readNumber() throws(ParseError) -> Double {
        let start = position
        func isDigit(_ b: UInt8?) -> Bool { b.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, isDigit(first) else { throw fail("a number needs a digit", at: start) }
        position += 1
        if first == UInt8(ascii: "0") {
            guard !isDigit(peek) else { throw fail("a number has a leading zero", at: start) }
        } else {
            while isDigit(peek) { position += 1 }
        }
        if peek == UInt8(ascii: ".") {
            position += 1
            guard isDigit(peek) else { throw fail("a fraction needs a digit after '.'", at: start) }
            while isDigit(peek) { position += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek) else { throw fail("an exponent needs a digit", at: start) }
            while isDigit(peek) { position += 1 }
        }
        let text = String(decoding: input[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw fail("number \(text.prefix(40)) is out of range", at: start)
        }
        return value
    }
}
