import Foundation
import WebAuthnCoding

// The library's JSON writer for what it writes on every ceremony: the options a server sends,
// and the extension inputs inside a stored challenge. What `JSONEncoder` with `.sortedKeys`
// writes for their `Encodable` form (members in name order, nil members left out, `/` not
// escaped), without its boxing and key sorting on the hot path. The options' `Encodable` form
// stays for a server that embeds them in a larger body; a test holds the two to the same
// document. The options' `jsonData()` (WebAuthnJSONCoding.swift) names their members in order.

/// Appends JSON text to a byte buffer. The caller names members in order; the writer adds the
/// commas and colons.
struct JSONTextWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value or member in the current container needs a comma before it.
    private var needsComma = false

    /// A control character's `\u00XX` digits (the byte is below 0x20, so both indexes are in range).
    private static let hexDigits = Array("0123456789abcdef".utf8)

    init() { bytes.reserveCapacity(512) }

    /// `{ body }`.
    mutating func object(_ body: (inout JSONTextWriter) throws(WebAuthnError) -> Void) throws(WebAuthnError) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[ each element ]`.
    mutating func array<Element>(
        _ elements: [Element], _ write: (inout JSONTextWriter, Element) throws(WebAuthnError) -> Void
    ) throws(WebAuthnError) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for element in elements { try write(&self, element) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's name; its value is written next.
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ text: String) {
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

    mutating func integer(_ value: Int) {
        separate()
        bytes += Array(String(value).utf8)
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes += Array((value ? "true" : "false").utf8)
        needsComma = true
    }

    /// A number: whole numbers (up to 2^53) as integers, as `JSONEncoder` writes them; a value
    /// JSON cannot carry (NaN, infinity) is refused.
    mutating func number(_ value: Double) throws(WebAuthnError) {
        guard value.isFinite else { throw WebAuthnError(.malformed, "\(value) cannot be encoded as JSON") }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            integer(Int(value))
        } else {
            separate()
            bytes += Array(value.description.utf8)
            needsComma = true
        }
    }

    /// Any value, with each object's members in name order.
    mutating func value(_ value: JSONValue) throws(WebAuthnError) {
        switch value {
        case .null:
            separate()
            bytes += Array("null".utf8)
            needsComma = true
        case .bool(let flag): bool(flag)
        case .number(let number): try self.number(number)
        case .string(let text): string(text)
        case .array(let elements): try array(elements) { (writer, element) throws(WebAuthnError) in try writer.value(element) }
        case .object(let members): try object(members)
        }
    }

    /// An object of any values, members in name order (UTF-8 byte order, as the readers visit them).
    mutating func object(_ members: [String: JSONValue]) throws(WebAuthnError) {
        try object { (writer) throws(WebAuthnError) in
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

extension JSONValue {
    /// `text` as a JSON string literal, escaped as the writer escapes every string (and as a
    /// browser's `JSON.stringify` does): the quote, the backslash, `\b \t \n \f \r`, and
    /// `\u00XX` for the other control characters. For the test authenticator's client data and
    /// the fixture writer.
    package static func quoted(_ text: String) -> String {
        var writer = JSONTextWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONTextWriter {
    /// The JSON text of an object of any values (a stored challenge's extension inputs).
    static func text(_ members: [String: JSONValue]) throws(WebAuthnError) -> String {
        var writer = JSONTextWriter()
        try writer.object(members)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A member whose value is present; nothing for nil.
    mutating func member<Value>(
        _ name: String, _ value: Value?, _ write: (inout JSONTextWriter, Value) throws(WebAuthnError) -> Void
    ) throws(WebAuthnError) {
        guard let value else { return }
        key(name)
        try write(&self, value)
    }

    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: String, _ value: (some OpenStringValue)?) {
        member(name, value?.rawValue)
    }

    mutating func member(_ name: String, _ values: [some OpenStringValue]?) throws(WebAuthnError) {
        try member(name, values) { (writer, values) throws(WebAuthnError) in
            try writer.array(values) { (writer, value) throws(WebAuthnError) in writer.string(value.rawValue) }
        }
    }

    mutating func member(_ name: String, _ value: UInt32?) {
        guard let value else { return }
        key(name)
        integer(Int(value))
    }

    mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    mutating func member(_ name: String, _ extensions: [String: JSONValue]?) throws(WebAuthnError) {
        guard let extensions else { return }
        key(name)
        try object(extensions)
    }

    mutating func member(_ name: String, _ descriptors: [PublicKeyCredentialDescriptorJSON]?) throws(WebAuthnError) {
        try member(name, descriptors) { (writer, descriptors) throws(WebAuthnError) in
            try writer.array(descriptors) { (writer, descriptor) throws(WebAuthnError) in
                try writer.object { (writer) throws(WebAuthnError) in
                    writer.member("id", descriptor.id.base64URL)
                    try writer.member("transports", descriptor.transports)
                    writer.member("type", descriptor.type)
                }
            }
        }
    }
}
