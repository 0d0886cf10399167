// The library's JSON writer for what it writes on every ceremony: the options a server sends,
// and the extension inputs inside a stored challenge. What `JSONEncoder` with `.sortedKeys`
// writes for their `Encodable` form (members in name order, nil members left out, `/` not
// escaped), without its boxing and key sorting on the hot path. The options' `Encodable` form
// stays for a server that embeds them in a larger body; a test holds the two to the same
// document. The options' `jsonData()` (WebAuthnRP's WebAuthnJSONCoding.swift) names their
// members in order, with the member writers of WebAuthnRP's `JSONTextWriter+Members.swift`.

/// Appends JSON text to a byte buffer. The caller names members in order; the writer adds the
/// commas and colons.
package struct JSONTextWriter {
    /// A number JSON cannot carry (NaN, an infinity): the one value the writer refuses.
    package struct NonFiniteNumber: Error, CustomStringConvertible {
        /// The number.
        package let value: Double
        package var description: String { "\(value) cannot be encoded as JSON" }
    }

    /// The text written so far (UTF-8).
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value or member in the current container needs a comma before it.
    private var needsComma = false

    /// A control character's `\u00XX` digits (the byte is below 0x20, so both indexes are in range).
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// An empty writer.
    package init() { bytes.reserveCapacity(512) }

    /// `{ body }`.
    package mutating func object<Failure: Error>(_ body: (inout JSONTextWriter) throws(Failure) -> Void) throws(Failure) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[ each element ]`.
    package mutating func array<Element, Failure: Error>(
        _ elements: [Element], _ write: (inout JSONTextWriter, Element) throws(Failure) -> Void
    ) throws(Failure) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for element in elements { try write(&self, element) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's name; its value is written next.
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string, escaped as a browser's `JSON.stringify` escapes it: the quote, the backslash,
    /// `\b \t \n \f \r`, and `\u00XX` for the other control characters.
    package mutating func string(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                bytes += Array("\\u00".utf8) + [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// An integer.
    package mutating func integer(_ value: Int) {
        separate()
        bytes += Array(String(value).utf8)
        needsComma = true
    }

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        bytes += Array((value ? "true" : "false").utf8)
        needsComma = true
    }

    /// A number: whole numbers (up to 2^53) as integers, as `JSONEncoder` writes them; a value
    /// JSON cannot carry (NaN, infinity) is refused.
    package mutating func number(_ value: Double) throws(NonFiniteNumber) {
        guard value.isFinite else { throw NonFiniteNumber(value: value) }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            integer(Int(value))
        } else {
            separate()
            bytes += Array(value.description.utf8)
            needsComma = true
        }
    }

    /// Any value, with each object's members in name order.
    package mutating func value<Tree: JSONTree>(_ value: Tree) throws(NonFiniteNumber) {
        if let flag = value.boolValue {
            bool(flag)
        } else if let number = value.numberValue {
            try self.number(number)
        } else if let text = value.stringValue {
            string(text)
        } else if let elements = value.arrayValue {
            try array(elements) { (writer, element) throws(NonFiniteNumber) in try writer.value(element) }
        } else if let members = value.objectValue {
            try object(members)
        } else {  // null, the one kind left
            separate()
            bytes += Array("null".utf8)
            needsComma = true
        }
    }

    /// An object of any values, members in name order (UTF-8 byte order, as the readers visit them).
    package mutating func object<Tree: JSONTree>(_ members: [String: Tree]) throws(NonFiniteNumber) {
        try object { (writer) throws(NonFiniteNumber) in
            for name in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                writer.key(name)
                if let member = members[name] { try writer.value(member) }
            }
        }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
