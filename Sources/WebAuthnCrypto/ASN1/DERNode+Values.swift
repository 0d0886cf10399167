// Typed accessors for DER values. Each one checks the tag first, then the content
// against the DER rules of its type, and throws a `DERError` at the node's offset.

extension DERNode {
    /// Returns `self` when it has exactly `expected` as its tag.
    /// - Parameter expected: the required tag.
    /// - Throws: ``DERError/Code/unexpectedTag``.
    @discardableResult
    func expectTag(_ expected: DERTag) throws(DERError) -> DERNode {
        guard tag == expected else {
            throw error(.unexpectedTag, "expected \(expected), found \(tag)")
        }
        return self
    }

    /// The elements of a SEQUENCE.
    /// - Throws: ``DERError/Code/unexpectedTag`` when this is not a SEQUENCE.
    package func sequence() throws(DERError) -> [DERNode] {
        try expectTag(.sequence).elements
    }

    /// The elements of a SET (order as encoded; DER ordering is not enforced).
    /// - Throws: ``DERError/Code/unexpectedTag`` when this is not a SET.
    package func set() throws(DERError) -> [DERNode] {
        try expectTag(.set).elements
    }

    /// The single value inside an explicit context tag `[number]`.
    /// - Parameter number: the context tag number.
    /// - Throws: ``DERError/Code/unexpectedTag`` or ``DERError/Code/unexpectedElementCount``.
    package func explicitlyTagged(_ number: UInt32) throws(DERError) -> DERNode {
        let inner = try expectTag(.context(number, constructed: true)).elements
        guard inner.count == 1, let only = inner.first else {
            throw error(.unexpectedElementCount, "explicit tag [\(number)] holds \(inner.count) values, expected 1")
        }
        return only
    }

    /// Checks the node is primitive and carries `expected`'s class and number
    /// (so implicitly tagged values can be read with any tag).
    private func primitiveContent(_ expected: DERTag) throws(DERError) -> ArraySlice<UInt8> {
        guard tag == expected else {
            throw error(.unexpectedTag, "expected \(expected), found \(tag)")
        }
        return content
    }

    /// The two's-complement content octets of an INTEGER, after checking they are minimal.
    /// - Parameter tag: the tag to require (INTEGER unless implicitly tagged).
    /// - Throws: ``DERError/Code/invalidValue`` for an empty or non-minimal INTEGER.
    func integerBytes(tag expected: DERTag = .integer) throws(DERError) -> ArraySlice<UInt8> {
        let bytes = try primitiveContent(expected)
        guard let first = bytes.first else {
            throw error(.invalidValue, "INTEGER has no content octets")
        }
        if bytes.count > 1 {
            let second = bytes[bytes.startIndex + 1]
            if (first == 0x00 && second & 0x80 == 0) || (first == 0xFF && second & 0x80 != 0) {
                throw error(.invalidValue, "INTEGER is not minimally encoded")
            }
        }
        return bytes
    }

    /// The magnitude octets of a non-negative INTEGER, without the sign-padding zero.
    /// - Parameter tag: the tag to require.
    /// - Throws: ``DERError/Code/integerOutOfRange`` when the INTEGER is negative.
    func unsignedIntegerBytes(tag expected: DERTag = .integer) throws(DERError) -> ArraySlice<UInt8> {
        let bytes = try integerBytes(tag: expected)
        guard let first = bytes.first, first & 0x80 == 0 else {
            throw error(.integerOutOfRange, "INTEGER is negative")
        }
        if first == 0 && bytes.count > 1 { return bytes.dropFirst() }
        return bytes
    }

    /// An INTEGER as `Int`, checked to lie in `range`.
    /// - Parameters:
    ///   - range: the accepted values (all of `Int` by default).
    ///   - tag: the tag to require.
    /// - Throws: ``DERError/Code/integerOutOfRange`` when it does not fit.
    package func integer(in range: ClosedRange<Int> = Int.min...Int.max, tag expected: DERTag = .integer) throws(DERError) -> Int {
        let value = try Self.decodeInt(try integerBytes(tag: expected), node: self)
        guard range.contains(value) else {
            throw error(.integerOutOfRange, "INTEGER \(value) outside \(range)")
        }
        return value
    }

    /// An ENUMERATED as `Int`, checked to lie in `range`.
    /// - Parameter range: the accepted values.
    /// - Throws: ``DERError`` as for ``integer(in:tag:)``.
    package func enumerated(in range: ClosedRange<Int> = Int.min...Int.max) throws(DERError) -> Int {
        try integer(in: range, tag: .enumerated)
    }

    private static func decodeInt(_ bytes: ArraySlice<UInt8>, node: DERNode) throws(DERError) -> Int {
        guard bytes.count <= 8 else {
            throw node.error(.integerOutOfRange, "INTEGER of \(bytes.count) octets does not fit 64 bits")
        }
        var value: UInt64 = (bytes.first ?? 0) & 0x80 != 0 ? UInt64.max : 0
        for byte in bytes {
            value = (value << 8) | UInt64(byte)
        }
        return Int(truncatingIfNeeded: Int64(bitPattern: value))
    }

    /// A BOOLEAN (DER: `0x00` or `0xFF`, one octet).
    /// - Throws: ``DERError/Code/invalidValue`` for any other content.
    package func boolean() throws(DERError) -> Bool {
        let bytes = try primitiveContent(.boolean)
        guard bytes.count == 1, let byte = bytes.first, byte == 0x00 || byte == 0xFF else {
            throw error(.invalidValue, "BOOLEAN must be one octet, 0x00 or 0xFF")
        }
        return byte == 0xFF
    }

    /// The content of an OCTET STRING (primitive form only, as DER requires).
    /// - Parameter tag: the tag to require.
    /// - Throws: ``DERError/Code/unexpectedTag``.
    package func octetString(tag expected: DERTag = .octetString) throws(DERError) -> ArraySlice<UInt8> {
        try primitiveContent(expected)
    }

    /// Checks a NULL (no content).
    /// - Throws: ``DERError/Code/invalidValue`` when it has content.
    package func null() throws(DERError) {
        guard try primitiveContent(.null).isEmpty else {
            throw error(.invalidValue, "NULL has content")
        }
    }

    /// A BIT STRING's octets and its count of unused bits in the last octet.
    /// - Parameter tag: the tag to require (BIT STRING unless implicitly tagged).
    /// - Throws: ``DERError/Code/invalidValue`` when the unused-bit count is above 7,
    ///   non-zero on an empty string, or the unused bits are not zero.
    func bitString(tag expected: DERTag = .bitString) throws(DERError) -> (bytes: ArraySlice<UInt8>, unusedBits: Int) {
        let raw = try primitiveContent(expected)
        guard let unused = raw.first, unused <= 7 else {
            throw error(.invalidValue, "BIT STRING has no unused-bits octet or it is above 7")
        }
        let bits = raw.dropFirst()
        if let last = bits.last {
            guard last & ((1 << unused) - 1) == 0 else {
                throw error(.invalidValue, "BIT STRING unused bits are not zero")
            }
        } else if unused != 0 {
            throw error(.invalidValue, "empty BIT STRING declares unused bits")
        }
        return (bits, Int(unused))
    }

    /// An OBJECT IDENTIFIER in dotted decimal (`1.2.840.10045.2.1`).
    /// - Parameter tag: the tag to require.
    /// - Throws: ``DERError/Code/invalidValue`` for empty content, a non-minimal or
    ///   unterminated arc, or an arc above 64 bits.
    func objectIdentifier(tag expected: DERTag = .objectIdentifier) throws(DERError) -> String {
        let bytes = try primitiveContent(expected)
        guard !bytes.isEmpty else {
            throw error(.invalidValue, "OBJECT IDENTIFIER is empty")
        }
        // One pass: each arc is appended to the text as soon as its last digit is read.
        var text = ""
        var current: UInt64 = 0
        var startOfArc = true
        var sawArc = false
        for byte in bytes {
            if startOfArc && byte == 0x80 {
                throw error(.invalidValue, "OBJECT IDENTIFIER arc has a leading zero digit")
            }
            guard current >> 57 == 0 else {
                throw error(.invalidValue, "OBJECT IDENTIFIER arc exceeds 64 bits")
            }
            current = (current << 7) | UInt64(byte & 0x7F)
            startOfArc = byte & 0x80 == 0
            if startOfArc {
                if sawArc {
                    text.append(".")
                    text.append(String(current))
                } else if current < 40 {
                    text = "0." + String(current)
                } else if current < 80 {
                    text = "1." + String(current - 40)
                } else {
                    text = "2." + String(current - 80)
                }
                sawArc = true
                current = 0
            }
        }
        guard startOfArc, sawArc else {
            throw error(.invalidValue, "OBJECT IDENTIFIER ends inside an arc")
        }
        return text
    }

    /// The text of a character-string value: UTF8String, PrintableString, IA5String,
    /// VisibleString, NumericString (ASCII), TeletexString (read as Latin-1),
    /// BMPString (UTF-16BE) or UniversalString (UTF-32BE).
    /// - Throws: ``DERError/Code/unexpectedTag`` for other types,
    ///   ``DERError/Code/invalidValue`` for bytes that are not valid in the type.
    func string() throws(DERError) -> String {
        guard tag.tagClass == .universal, !tag.isConstructed else {
            throw error(.unexpectedTag, "\(tag) is not a character string")
        }
        switch tag.number {
        case DERTag.utf8String.number:
            guard let text = String(validating: content, as: UTF8.self) else {
                throw error(.invalidValue, "UTF8String is not valid UTF-8")
            }
            return text
        case DERTag.printableString.number, DERTag.ia5String.number,
            DERTag.visibleString.number, DERTag.numericString.number:
            guard content.allSatisfy({ $0 < 0x80 }) else {
                throw error(.invalidValue, "\(tag) holds a non-ASCII byte")
            }
            return String(decoding: content, as: UTF8.self)
        case DERTag.teletexString.number:
            return String(String.UnicodeScalarView(content.map { Unicode.Scalar($0) }))
        case DERTag.bmpString.number:
            guard content.count % 2 == 0 else {
                throw error(.invalidValue, "BMPString has an odd length")
            }
            var units: [UInt16] = []
            units.reserveCapacity(content.count / 2)
            var index = content.startIndex
            while index + 1 < content.endIndex {
                units.append(UInt16(content[index]) << 8 | UInt16(content[index + 1]))
                index += 2
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw error(.invalidValue, "BMPString is not valid UTF-16")
            }
            return text
        case DERTag.universalString.number:
            guard content.count % 4 == 0 else {
                throw error(.invalidValue, "UniversalString length is not a multiple of 4")
            }
            var scalars = String.UnicodeScalarView()
            var index = content.startIndex
            while index + 3 < content.endIndex {
                let value =
                    UInt32(content[index]) << 24 | UInt32(content[index + 1]) << 16
                    | UInt32(content[index + 2]) << 8 | UInt32(content[index + 3])
                guard let scalar = Unicode.Scalar(value) else {
                    throw error(.invalidValue, "UniversalString holds an invalid code point")
                }
                scalars.append(scalar)
                index += 4
            }
            return String(scalars)
        default:
            throw error(.unexpectedTag, "\(tag) is not a character string")
        }
    }
}
