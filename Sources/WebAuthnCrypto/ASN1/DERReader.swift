import WebAuthnCoding

/// One parsed DER value: its tag, its content and its exact encoding.
///
/// Both byte views are slices of the caller's buffer (no copies). A constructed
/// node's children are parsed and checked when the node is parsed, so a node
/// that exists is structurally valid DER all the way down.
package struct DERNode: Sendable {
    /// The identifier.
    package let tag: DERTag
    /// The content octets (for a constructed node, the encodings of its children).
    package let content: ArraySlice<UInt8>
    /// The whole encoding: identifier, length and content.
    package let encodedBytes: ArraySlice<UInt8>
    /// The nested values of a constructed node; empty for a primitive one.
    let elements: [DERNode]
    /// `startIndex` of the buffer the parse call was given; offsets in errors count from it.
    let origin: Int

    /// Whether the node is constructed.
    package var isConstructed: Bool { tag.isConstructed }

    /// Offset of this node's first byte from the start of the parsed buffer.
    package var offset: Int { encodedBytes.startIndex - origin }

    /// The nested values of a constructed node, in order.
    /// - Throws: ``DERError/Code/unexpectedForm`` when the node is primitive.
    package func children() throws(DERError) -> [DERNode] {
        guard tag.isConstructed else {
            throw error(.unexpectedForm, "\(tag) is primitive and has no children")
        }
        return elements
    }

    func error(_ code: DERError.Code, _ reason: String) -> DERError {
        DERError(code, offset: offset, reason)
    }
}

/// The strict DER reader: definite, minimal lengths; minimal tag numbers; a depth cap.
///
/// A namespace; not meant to be passed around.
package enum DER {
    /// The default cap on nested constructed values.
    static let defaultMaximumDepth = 32

    /// Parses exactly one DER value that fills all of `bytes`.
    /// - Parameters:
    ///   - bytes: the encoding; offsets in errors count from its `startIndex`.
    ///   - maximumDepth: how deep constructed values may nest (the outermost is depth 1).
    /// - Returns: the value, with every nested value already checked.
    /// - Throws: ``DERError`` naming what failed and where.
    package static func parse(_ bytes: ArraySlice<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(DERError) -> DERNode {
        var reader = DERCursor(bytes: bytes, maximumDepth: maximumDepth)
        let node = try reader.readNode(depth: 1)
        guard reader.isAtEnd else {
            throw DERError(.trailingBytes, offset: reader.offset, "\(reader.remaining) byte(s) after the value")
        }
        return node
    }

    /// Parses exactly one DER value that fills all of `bytes`.
    /// - Parameters:
    ///   - bytes: the encoding.
    ///   - maximumDepth: how deep constructed values may nest.
    /// - Returns: the value.
    /// - Throws: ``DERError``.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(DERError) -> DERNode {
        try parse(bytes[...], maximumDepth: maximumDepth)
    }

    /// Parses one DER value at the front of `bytes` and returns it with the bytes after it.
    /// - Parameters:
    ///   - bytes: the encoding.
    ///   - maximumDepth: how deep constructed values may nest.
    /// - Returns: the value and the unread rest.
    /// - Throws: ``DERError``.
    static func parsePrefix(
        _ bytes: ArraySlice<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(DERError) -> (node: DERNode, rest: ArraySlice<UInt8>) {
        var reader = DERCursor(bytes: bytes, maximumDepth: maximumDepth)
        let node = try reader.readNode(depth: 1)
        return (node, reader.rest)
    }

    /// Parses a SEQUENCE that fills all of `bytes` and returns its elements.
    /// - Parameters:
    ///   - bytes: the encoding.
    ///   - maximumDepth: how deep constructed values may nest.
    /// - Returns: the SEQUENCE's elements.
    /// - Throws: ``DERError``, ``DERError/Code/unexpectedTag`` when it is not a SEQUENCE.
    static func parseSequence(_ bytes: ArraySlice<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(DERError) -> [DERNode] {
        try parse(bytes, maximumDepth: maximumDepth).sequence()
    }

    /// Parses a SEQUENCE that fills all of `bytes` and returns its elements.
    /// - Parameters:
    ///   - bytes: the encoding.
    ///   - maximumDepth: how deep constructed values may nest.
    /// - Returns: the SEQUENCE's elements.
    /// - Throws: ``DERError``.
    package static func parseSequence(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(DERError) -> [DERNode] {
        try parseSequence(bytes[...], maximumDepth: maximumDepth)
    }
}

/// The index-based cursor behind ``DER``. Never copies; never reads past `bytes.endIndex`.
struct DERCursor {
    let bytes: ArraySlice<UInt8>
    let origin: Int
    let maximumDepth: Int
    private(set) var position: Int

    init(bytes: ArraySlice<UInt8>, maximumDepth: Int, origin: Int? = nil) {
        self.bytes = bytes
        self.origin = origin ?? bytes.startIndex
        self.maximumDepth = maximumDepth
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }
    var remaining: Int { bytes.endIndex - position }
    var offset: Int { position - origin }
    var rest: ArraySlice<UInt8> { bytes[position...] }

    private mutating func nextByte(_ what: String) throws(DERError) -> UInt8 {
        guard position < bytes.endIndex else {
            throw DERError(.truncated, offset: offset, "input ends inside the \(what)")
        }
        let byte = bytes[position]
        position += 1
        return byte
    }

    mutating func readNode(depth: Int) throws(DERError) -> DERNode {
        let start = position
        let startOffset = offset
        guard depth <= maximumDepth else {
            throw DERError(.tooDeep, offset: startOffset, "values nest deeper than \(maximumDepth)")
        }
        let tag = try readTag()
        let length = try readLength()
        guard length <= remaining else {
            throw DERError(.truncated, offset: startOffset, "\(tag) declares \(length) content byte(s) but \(remaining) remain")
        }
        let contentStart = position
        let contentEnd = contentStart + length
        let content = bytes[contentStart..<contentEnd]
        var elements: [DERNode] = []
        if tag.isConstructed {
            var inner = DERCursor(bytes: content, maximumDepth: maximumDepth, origin: origin)
            while !inner.isAtEnd {
                elements.append(try inner.readNode(depth: depth + 1))
            }
        }
        position = contentEnd
        return DERNode(tag: tag, content: content, encodedBytes: bytes[start..<contentEnd], elements: elements, origin: origin)
    }

    private mutating func readTag() throws(DERError) -> DERTag {
        let tagOffset = offset
        let first = try nextByte("tag")
        let tagClass: DERTag.TagClass
        switch first >> 6 {
        case 0: tagClass = .universal
        case 1: tagClass = .application
        case 2: tagClass = .contextSpecific
        default: tagClass = .private
        }
        let constructed = first & 0x20 != 0
        let low = first & 0x1F
        guard low == 0x1F else {
            return DERTag(tagClass, number: UInt32(low), constructed: constructed)
        }
        // High-tag-number form: base-128 digits, high bit set on all but the last.
        var number: UInt32 = 0
        var digitCount = 0
        while true {
            let digit = try nextByte("tag number")
            if digitCount == 0 && digit == 0x80 {
                throw DERError(.nonMinimalEncoding, offset: tagOffset, "tag number has a leading zero digit")
            }
            digitCount += 1
            guard digitCount <= 4 else {
                throw DERError(.tagTooLarge, offset: tagOffset, "tag number longer than 4 base-128 digits")
            }
            number = (number << 7) | UInt32(digit & 0x7F)
            if digit & 0x80 == 0 { break }
        }
        guard number >= 31 else {
            throw DERError(.nonMinimalEncoding, offset: tagOffset, "tag number \(number) must use the one-byte form")
        }
        return DERTag(tagClass, number: number, constructed: constructed)
    }

    private mutating func readLength() throws(DERError) -> Int {
        let lengthOffset = offset
        let first = try nextByte("length")
        if first < 0x80 { return Int(first) }
        if first == 0x80 {
            throw DERError(.indefiniteLength, offset: lengthOffset, "indefinite length is not DER")
        }
        let count = Int(first & 0x7F)
        // Lengths are capped at 2^31 - 1: four length octets at most.
        guard count <= 4, first != 0xFF else {
            throw DERError(.lengthTooLarge, offset: lengthOffset, "length uses \(count) octets")
        }
        var value: UInt32 = 0
        for i in 0..<count {
            let byte = try nextByte("length")
            if i == 0 && byte == 0 {
                throw DERError(.nonMinimalEncoding, offset: lengthOffset, "length has a leading zero octet")
            }
            value = (value << 8) | UInt32(byte)
        }
        guard value >= 0x80 else {
            throw DERError(.nonMinimalEncoding, offset: lengthOffset, "length \(value) must use the short form")
        }
        guard value <= UInt32(Int32.max) else {
            throw DERError(.lengthTooLarge, offset: lengthOffset, "length \(value) exceeds 2^31 - 1")
        }
        return Int(value)
    }
}
