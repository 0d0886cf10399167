/// The library's one JSON reader (RFC 8259): a streaming cursor over UTF-8 bytes that knows
/// the grammar, string escapes, UTF-8 validity, duplicate member names, and the depth and
/// length caps, and reports every refusal with its byte offset and reason.
///
/// Two kinds of callers share it. ``parse(_:limits:)`` builds a tree of the caller's
/// ``JSONTree`` type (WebAuthnRP's `JSONValue`: client data on its general path, the metadata
/// BLOB, JWS headers and payloads). The readers of
/// the response documents and of `clientDataJSON` (`PlainResponseDecoding`,
/// `CollectedClientData(jsonBytes:)`) walk the same tokens without building a tree: they
/// read the members they need and skip the others with ``skipValue(depth:)``, which checks
/// everything ``readValue(depth:)`` checks.
///
/// Accepted by ``parse(_:limits:)``: exactly one JSON value (any kind) surrounded by optional
/// white space, in valid UTF-8. Rejected: duplicate member names in any object (names
/// compare as Swift strings, so canonically equivalent names also count as duplicates),
/// lone surrogate escapes, control characters in strings, numbers outside the RFC 8259
/// grammar or beyond `Double`'s range, nesting deeper than the limit, input larger than the
/// limit, and anything after the value.
package struct JSONReader {
    /// Why the input was refused: the byte offset and a reason.
    package struct ParseError: Error, CustomStringConvertible {
        package let offset: Int
        package let reason: String
        package var description: String { "JSON at byte \(offset): \(reason)" }
    }

    /// Limits for one document.
    package struct Limits {
        /// Deepest nesting of arrays and objects (the top-level container is depth 1).
        package var maximumDepth: Int
        /// Largest accepted input in bytes.
        package var maximumBytes: Int

        /// Limits for one document (by default 32 levels and 1 MiB).
        package init(maximumDepth: Int = 32, maximumBytes: Int = 1 << 20) {
            self.maximumDepth = maximumDepth
            self.maximumBytes = maximumBytes
        }
    }

    /// A string as read: its content bytes (the input's own bytes when it had no escape,
    /// the decoded bytes otherwise).
    package struct Text {
        /// The content, escapes decoded.
        package let bytes: ArraySlice<UInt8>
        /// Whether the string was written with an escape.
        package let escaped: Bool
        /// Whether every content byte is ASCII.
        package let ascii: Bool

        /// Plain text as browsers write it: ASCII without escapes.
        package var plain: Bool { ascii && !escaped }
        /// The content as a Swift string.
        package var string: String { String(decoding: bytes, as: UTF8.self) }

        /// Whether two member names are the same name: as Swift strings (canonical
        /// equivalence), which for ASCII is byte equality.
        package func sameName(as other: Text) -> Bool {
            if ascii && other.ascii { return bytes.elementsEqual(other.bytes) }
            return string == other.string
        }
    }

    package let input: ArraySlice<UInt8>
    package let limits: Limits
    /// Where the next byte is read. Set by the reader only; `package` (not `private(set)`) so
    /// that the per-byte helpers (``peek``, ``skipWhitespace()``, ``consume(_:)``) can be
    /// inlined into WebAuthnRP's readers across the module boundary.
    package var position: Int
    /// Whether this reads a whole document (``document(_:limits:)``), whose UTF-8 is checked
    /// as a whole: when the first string with a non-ASCII byte is read, or before any refusal
    /// (so an input that is not UTF-8 gets that error, as if it had been checked first; a
    /// successful read of an ASCII document never looks twice). Otherwise each string with a
    /// non-ASCII byte is checked when it is read. Outside strings the grammar allows ASCII only.
    private var isDocument = false
    /// Whether the whole document is known to be UTF-8.
    private var validatedUTF8 = false

    /// A reader at the start of `input`. The size is not checked, and UTF-8 only inside
    /// strings, as they are read: ``document(_:limits:)`` checks both for a whole document.
    package init(_ input: ArraySlice<UInt8>, limits: Limits = Limits()) {
        self.input = input
        self.limits = limits
        self.position = input.startIndex
    }

    // MARK: Documents

    /// A reader over a whole document after the document-level checks: at most
    /// `limits.maximumBytes`, valid UTF-8.
    /// - Throws: ``ParseError``.
    package static func document(_ bytes: ArraySlice<UInt8>, limits: Limits = Limits()) throws(ParseError) -> JSONReader {
        guard bytes.count <= limits.maximumBytes else {
            throw ParseError(offset: 0, reason: "input of \(bytes.count) bytes exceeds the limit of \(limits.maximumBytes)")
        }
        var reader = JSONReader(bytes, limits: limits)
        reader.isDocument = true
        reader.skipWhitespace()
        return reader
    }

    /// Parses one JSON text into a value tree of the type the caller asks for.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON (without a byte order mark).
    ///   - limits: depth and size limits.
    /// - Returns: the value.
    /// - Throws: ``ParseError``.
    package static func parse<Tree: JSONTree>(_ bytes: ArraySlice<UInt8>, limits: Limits = Limits()) throws(ParseError) -> Tree {
        var reader = try document(bytes, limits: limits)
        let value: Tree = try reader.readValue(depth: 1)
        try reader.finish()
        return value
    }

    /// Refuses anything but white space after the value.
    package mutating func finish() throws(ParseError) {
        skipWhitespace()
        guard position == input.endIndex else {
            throw fail("\(input.endIndex - position) byte(s) after the JSON value")
        }
    }

    /// The refusal of a document that is not UTF-8, or nil when it is.
    private static func utf8Error(_ bytes: ArraySlice<UInt8>) -> ParseError? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: scalars += 1
            case .emptyInput: return nil
            case .error: return ParseError(offset: 0, reason: "not valid UTF-8 (after \(scalars) scalar(s))")
            }
        }
    }

    /// Checks the UTF-8 of a string with a non-ASCII byte (the whole document, once, for a document).
    private mutating func checkUTF8(_ content: ArraySlice<UInt8>, stringStart: Int) throws(ParseError) {
        if isDocument {
            guard !validatedUTF8 else { return }
            if let error = Self.utf8Error(input) { throw error }
            validatedUTF8 = true
        } else {
            try Self.validateString(content, at: stringStart - input.startIndex)
        }
    }

    /// A string's content that is not known to be UTF-8 (the document was not checked as a whole).
    private static func validateString(_ content: ArraySlice<UInt8>, at offset: Int) throws(ParseError) {
        var iterator = content.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return
            case .error: throw ParseError(offset: offset, reason: "a string is not valid UTF-8")
            }
        }
    }

    // MARK: Cursor

    /// A refusal at `index` (default: the current position).
    package func fail(_ reason: String, at index: Int? = nil) -> ParseError {
        // A document that is not UTF-8 is refused as that, whatever else is wrong with it.
        if isDocument && !validatedUTF8, let error = Self.utf8Error(input) { return error }
        return ParseError(offset: (index ?? position) - input.startIndex, reason: reason)
    }

    /// The refusal of a member name that repeats an earlier one of its object.
    package func duplicate(_ name: Text, at index: Int) -> ParseError {
        fail("duplicate member \"\(name.string.unicodeScalars.prefix(40).map(String.init).joined())\"", at: index)
    }

    /// The next byte, not consumed (white space included).
    @inlinable package var peek: UInt8? { position < input.endIndex ? input[position] : nil }

    /// Whether only the end of the input is left.
    package var atEnd: Bool { position == input.endIndex }

    @inline(__always)
    private mutating func next(_ what: String) throws(ParseError) -> UInt8 {
        guard position < input.endIndex else { throw fail("input ended inside \(what)") }
        let b = input[position]
        position += 1
        return b
    }

    @inlinable @inline(__always)
    package mutating func skipWhitespace() {
        while position < input.endIndex {
            let b = input[position]
            guard b <= 0x20, b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d else { return }
            position += 1
        }
    }

    /// Skips white space, then consumes `byte` if it is next.
    @inlinable package mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < input.endIndex, input[position] == byte else { return false }
        position += 1
        return true
    }

    // MARK: Values

    /// Reads one value into a tree (`depth`: the nesting a container here would have).
    package mutating func readValue<Tree: JSONTree>(depth: Int) throws(ParseError) -> Tree {
        guard let b = peek else { throw fail("input ended where a value was expected") }
        switch b {
        case UInt8(ascii: "{"):
            var members: [String: Tree] = [:]
            try readObject(depth: depth) { (reader: inout JSONReader, name: Text, nameStart: Int) throws(ParseError) in
                let value: Tree = try reader.readValue(depth: depth + 1)
                guard members.updateValue(value, forKey: name.string) == nil else {
                    throw reader.duplicate(name, at: nameStart)
                }
                return true
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [Tree] = []
            try readArray(depth: depth) { (reader: inout JSONReader) throws(ParseError) in
                elements.append(try reader.readValue(depth: depth + 1))
            }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try readString().string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber().value)
        default: return try readLiteral()
        }
    }

    /// Reads one value without keeping it: every check of ``readValue(depth:)``, the same
    /// refusals at the same offsets.
    package mutating func skipValue(depth: Int) throws(ParseError) {
        guard let b = peek else { throw fail("input ended where a value was expected") }
        switch b {
        case UInt8(ascii: "{"):
            try readObject(depth: depth) { (reader: inout JSONReader, _: Text, _: Int) throws(ParseError) in
                try reader.skipValue(depth: depth + 1)
                return false
            }
        case UInt8(ascii: "["):
            try readArray(depth: depth) { (reader: inout JSONReader) throws(ParseError) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try readNumber()
        default: _ = try readBooleanOrNull()
        }
    }

    private func enter(_ depth: Int) throws(ParseError) {
        guard depth <= limits.maximumDepth else {
            throw fail("nesting deeper than \(limits.maximumDepth)")
        }
    }

    /// Enters an object at the current position (`{` next): false when it is empty (and read).
    private mutating func openObject(_ depth: Int) throws(ParseError) -> Bool {
        try enter(depth)
        position += 1  // "{"
        skipWhitespace()
        guard peek == UInt8(ascii: "}") else { return true }
        position += 1
        return false
    }

    /// The `:` after a member name, with the white space around it.
    private mutating func readColon() throws(ParseError) {
        skipWhitespace()
        guard try next("an object") == UInt8(ascii: ":") else {
            throw fail("expected ':' after a member name", at: position - 1)
        }
        skipWhitespace()
    }

    /// What follows a member's value: true for `,` (another member), false for `}` (the end).
    private mutating func readMemberSeparator() throws(ParseError) -> Bool {
        skipWhitespace()
        switch try next("an object") {
        case UInt8(ascii: ","): return true
        case UInt8(ascii: "}"): return false
        default: throw fail("expected ',' or '}' in an object", at: position - 1)
        }
    }

    /// Reads an object at the current position (`{` next), calling `member` with the reader
    /// on each member's value, the member's name and where the name starts. `member` reads
    /// the value and returns true when it has itself made sure the name is not repeated (a
    /// name it reads); for the others (false) the reader refuses a name that repeats an
    /// earlier one of this object, after the value, as a duplicate.
    package mutating func readObject(
        depth: Int, _ member: (inout JSONReader, Text, Int) throws(ParseError) -> Bool
    ) throws(ParseError) {
        guard try openObject(depth) else { return }
        // Names the caller did not check, kept only when there are any (no allocation when
        // every name is one the caller reads); past 16 of them, a set.
        var unchecked: [Text] = []
        var uncheckedSet: Set<String> = []
        while true {
            skipWhitespace()
            let nameStart = position
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name string") }
            let name = try readString()
            try readColon()
            if try !member(&self, name, nameStart) {
                if unchecked.count < 16 {
                    guard !unchecked.contains(where: { $0.sameName(as: name) }) else { throw duplicate(name, at: nameStart) }
                    unchecked.append(name)
                    if unchecked.count == 16 { uncheckedSet = Set(unchecked.map(\.string)) }
                } else {
                    guard uncheckedSet.insert(name.string).inserted else { throw duplicate(name, at: nameStart) }
                }
            }
            guard try readMemberSeparator() else { return }
        }
    }

    /// A member name of plain text (ASCII without escapes): where its content lies in the
    /// input. Compared with ``name(_:is:)`` through a span: no slice of the input is made, so
    /// nothing is retained and released per name.
    package struct PlainName {
        package let range: Range<Int>
    }

    /// ``readObject(depth:_:)`` for readers that take only plain member names (the response
    /// fast path, which leaves anything else to the tree path): throws for a name with an
    /// escape, a control character or a non-ASCII byte, and for a name repeated among those
    /// `member` did not take (returned false for); past 16 of those it throws too.
    package mutating func readPlainObject(
        depth: Int, _ member: (inout JSONReader, PlainName) throws(ParseError) -> Bool
    ) throws(ParseError) {
        guard try openObject(depth) else { return }
        var unchecked: [Range<Int>] = []
        while true {
            skipWhitespace()
            let nameStart = position
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name string") }
            let start = position + 1
            let (end, high) = Self.plainRun(input, from: start)
            guard end < input.endIndex, input[end] == UInt8(ascii: "\""), high < 0x80 else {
                throw fail("not a plain member name", at: nameStart)
            }
            position = end + 1
            let name = PlainName(range: start..<end)
            try readColon()
            if try !member(&self, name) {
                guard unchecked.count < 16, !unchecked.contains(where: { sameContent($0, name.range) }) else {
                    throw fail("a repeated member name, or too many unknown ones", at: nameStart)
                }
                unchecked.append(name.range)
            }
            guard try readMemberSeparator() else { return }
        }
    }

    /// Whether a plain name is `literal` (ASCII), compared through a span of the input.
    package func name(_ name: PlainName, is literal: String) -> Bool {
        let expected = literal.utf8.span
        guard name.range.count == expected.count else { return false }
        let span = input.span
        let base = name.range.lowerBound - input.startIndex
        for offset in 0..<expected.count where span[base + offset] != expected[offset] { return false }
        return true
    }

    /// Whether two ranges of the input hold the same bytes.
    private func sameContent(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        let span = input.span
        let x = a.lowerBound - input.startIndex, y = b.lowerBound - input.startIndex
        for offset in 0..<a.count where span[x + offset] != span[y + offset] { return false }
        return true
    }

    /// Reads an array at the current position (`[` next), calling `element` with the reader
    /// on each element.
    package mutating func readArray(depth: Int, _ element: (inout JSONReader) throws(ParseError) -> Void) throws(ParseError) {
        try enter(depth)
        position += 1  // "["
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            switch try next("an array") {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return
            default: throw fail("expected ',' or ']' in an array", at: position - 1)
            }
        }
    }

    /// `true`, `false` or `null` at the current position, in the caller's tree; anything else
    /// is refused as the value that was expected.
    package mutating func readLiteral<Tree: JSONTree>() throws(ParseError) -> Tree {
        try readBooleanOrNull().map(Tree.bool) ?? .null
    }

    /// ``readLiteral()`` without a tree: the boolean, or nil for `null`.
    private mutating func readBooleanOrNull() throws(ParseError) -> Bool? {
        guard let b = peek else { throw fail("input ended where a value was expected") }
        switch b {
        case UInt8(ascii: "t"): return try expectLiteral("true", value: true)
        case UInt8(ascii: "f"): return try expectLiteral("false", value: false)
        case UInt8(ascii: "n"): return try expectLiteral("null", value: nil)
        default: throw fail("unexpected character 0x\(String(b, radix: 16)) where a value was expected")
        }
    }

    private mutating func expectLiteral(_ literal: String, value: Bool?) throws(ParseError) -> Bool? {
        let start = position
        let count = literal.utf8.count
        guard input.endIndex - position >= count, input[position..<(position + count)].elementsEqual(literal.utf8) else {
            throw fail("invalid literal (expected \(literal))", at: start)
        }
        position += count
        return value
    }

    // MARK: Strings

    /// Reads a string at the current position (`"` next).
    package mutating func readString() throws(ParseError) -> Text {
        position += 1  // opening quote
        let start = position
        let (end, high) = Self.plainRun(input, from: start)
        position = end
        let ascii = high < 0x80
        guard position < input.endIndex else { throw fail("input ended inside a string") }
        switch input[position] {
        case UInt8(ascii: "\""):
            position += 1
            let content = input[start..<(position - 1)]
            if !ascii { try checkUTF8(content, stringStart: start - 1) }
            return Text(bytes: content, escaped: false, ascii: ascii)
        case UInt8(ascii: "\\"):
            return try readEscapedString(from: start, ascii: ascii)
        case let b:
            throw fail("unescaped control character 0x\(String(b, radix: 16)) in a string")
        }
    }

    /// Reads a string at the current position (`"` next) whose content is strict unpadded
    /// base64url, and returns the decoded bytes; nil (the string read and checked as
    /// ``readString()`` checks it) when the content is anything else.
    ///
    /// The base64url alphabet holds no quote, backslash, control character or non-ASCII
    /// byte, so content up to the first quote that decodes is a string the grammar accepts,
    /// without escapes: finding that quote is all the checking it needs.
    package mutating func readBase64URL() throws(ParseError) -> [UInt8]? {
        let contentStart = position + 1
        // The content up to the first quote decodes: a string the grammar accepts, without
        // escapes (the alphabet holds no quote, backslash, control character or non-ASCII byte).
        if contentStart <= input.endIndex, let (bytes, quote) = Self.plainBase64URL(input, contentStart: contentStart) {
            position = quote + 1
            return bytes
        }
        _ = try readString()
        return nil
    }

    /// ``readBase64URL()`` appending the decoded bytes to `out` (several members in one
    /// buffer, one allocation); returns where they lie in `out`, or nil (the string read and
    /// checked as ``readString()`` checks it, `out` unchanged) when the content is anything else.
    package mutating func readBase64URL(appendingTo out: inout [UInt8]) throws(ParseError) -> Range<Int>? {
        let contentStart = position + 1
        let first = out.count
        if contentStart <= input.endIndex, let quote = Self.plainBase64URL(input, contentStart: contentStart, appendingTo: &out) {
            position = quote + 1
            return first..<out.count
        }
        _ = try readString()
        return nil
    }

    /// ``plainBase64URL(_:contentStart:)`` appending to `out`; the index of the closing quote,
    /// or nil (`out` unchanged).
    private static func plainBase64URL(_ input: ArraySlice<UInt8>, contentStart: Int, appendingTo out: inout [UInt8]) -> Int? {
        let span = input.span
        let start = contentStart - input.startIndex
        let end = closingQuote(span, from: start)
        guard end < span.count, Base64URL.decodeIfStrict(span.extracting(start..<end), appendingTo: &out) else { return nil }
        return input.startIndex + end
    }

    /// The offset of the first quote in `span` at or after `start` (`span.count` when none).
    private static func closingQuote(_ span: Span<UInt8>, from start: Int) -> Int {
        let quote = UInt8(ascii: "\""), count = span.count
        var end = start
        // Eight bytes a step while eight remain (one length check for the eight), then one at a time.
        while end <= count - 8 {
            let chunk = span.extracting(end..<(end + 8))
            if chunk[0] == quote || chunk[1] == quote || chunk[2] == quote || chunk[3] == quote
                || chunk[4] == quote || chunk[5] == quote || chunk[6] == quote || chunk[7] == quote
            {
                break
            }
            end += 8
        }
        while end < count, span[end] != quote { end += 1 }
        return end
    }

    /// The decoded content of a string whose content starts at `contentStart` and is strict
    /// base64url, with the index of its closing quote (the first quote after `contentStart`);
    /// nil when the content is anything else. Read through a span: no slice of the input is
    /// made (each one retained and released the document's storage).
    private static func plainBase64URL(_ input: ArraySlice<UInt8>, contentStart: Int) -> ([UInt8], Int)? {
        let span = input.span
        let start = contentStart - input.startIndex
        let end = closingQuote(span, from: start)
        guard end < span.count, let bytes = Base64URL.decodeIfStrict(span.extracting(start..<end)) else { return nil }
        return (bytes, input.startIndex + end)
    }

    /// Where the run of string bytes from `start` ends (the closing quote, an escape, a control
    /// character or the end of the input), read through a span, and the bytes' top bits
    /// or-ed together (non-ASCII when 0x80 is set).
    private static func plainRun(_ input: ArraySlice<UInt8>, from start: Int) -> (end: Int, high: UInt8) {
        let span = input.span
        var offset = start - input.startIndex
        var high: UInt8 = 0
        while offset < span.count {
            let b = span[offset]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { break }
            high |= b
            offset += 1
        }
        return (input.startIndex + offset, high)
    }

    /// The rest of a string from its first escape (at the current position) on.
    private mutating func readEscapedString(from start: Int, ascii: Bool) throws(ParseError) -> Text {
        var out = Array(input[start..<position])
        var ascii = ascii
        while true {
            let b = try next("a string")
            switch b {
            case UInt8(ascii: "\""):
                if !ascii { try checkUTF8(out[...], stringStart: start - 1) }
                return Text(bytes: out[...], escaped: true, ascii: ascii)
            case UInt8(ascii: "\\"):
                if try readEscape(into: &out) >= 0x80 { ascii = false }
            case 0x00..<0x20:
                throw fail("unescaped control character 0x\(String(b, radix: 16)) in a string", at: position - 1)
            default:
                if b >= 0x80 { ascii = false }
                out.append(b)
            }
        }
    }

    /// Decodes one escape (after its backslash) into `out`; returns the scalar's value.
    private mutating func readEscape(into out: inout [UInt8]) throws(ParseError) -> UInt32 {
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
            return UInt32(simple)
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
        return scalarValue
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

    // MARK: Numbers

    /// A number as read.
    package struct Number {
        /// Its value (finite).
        package let value: Double
        /// Its text.
        package let text: ArraySlice<UInt8>
        /// Whether it has neither fraction nor exponent.
        package let integral: Bool
    }

    /// Reads a number at the current position (`-` or a digit next).
    package mutating func readNumber() throws(ParseError) -> Number {
        let start = position
        func isDigit(_ b: UInt8?) -> Bool { b.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
        var integral = true
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, isDigit(first) else { throw fail("a number needs a digit", at: start) }
        position += 1
        if first == UInt8(ascii: "0") {
            guard !isDigit(peek) else { throw fail("a number has a leading zero", at: start) }
        } else {
            while isDigit(peek) { position += 1 }
        }
        if peek == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard isDigit(peek) else { throw fail("a fraction needs a digit after '.'", at: start) }
            while isDigit(peek) { position += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            integral = false
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek) else { throw fail("an exponent needs a digit", at: start) }
            while isDigit(peek) { position += 1 }
        }
        let text = input[start..<position]
        let string = String(decoding: text, as: UTF8.self)
        guard let value = Double(string), value.isFinite else {
            throw fail("number \(string.prefix(40)) is out of range", at: start)
        }
        return Number(value: value, text: text, integral: integral)
    }
}

/// Tells one member name apart from a fixed set of names, for the document readers.
extension ArraySlice where Element == UInt8 {
    @inlinable @inline(__always)
    package func `is`(_ name: String) -> Bool {
        // Lengths first: most names differ there. The literal's bytes are read through a span.
        guard count == name.utf8.count else { return false }
        let expected = name.utf8.span
        var index = startIndex
        for offset in 0..<expected.count {
            guard self[index] == expected[offset] else { return false }
            index += 1
        }
        return true
    }
}
