import Foundation
import WebAuthnRP

// A fixture document is decoded by JSONDecoder, which keeps one of two same-named members
// silently and reads invalid UTF-8 in places. A server's response body goes through the one
// decoder (`RegistrationResponse(jsonData:)`, `AuthenticationResponse(jsonData:)`: the strict
// reader, browser JSON or a native app's body); so that a recorded response reaches the
// server's verdict, each ceremony's `response` value is found in the document's bytes and
// handed to that decoder as they are (Replayer.load).

/// Where each ceremony's `response` value lies in a fixture document that JSONDecoder has
/// already read (so its grammar is known to be sound; this only walks it).
enum ResponseExtents {
    /// Per ceremony, in document order: the bytes of its `response` value, or why the
    /// value cannot stand for one response (`response` given twice). Empty when the
    /// document does not have the expected shape.
    enum Extent {
        case bytes(ArraySlice<UInt8>)
        case refused(String)
    }

    static func find(in document: [UInt8]) -> [Extent] {
        var walker = Walker(bytes: document)
        return walker.ceremonies() ?? []
    }

    /// A forgiving walk over valid JSON: strings, nesting and member names, nothing checked.
    private struct Walker {
        let bytes: [UInt8]
        var position = 0

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { position += 1 }
        }

        /// The `ceremonies` array's elements' `response` extents.
        mutating func ceremonies() -> [Extent]? {
            var found: [Extent]?
            let read = object { walker, name in
                guard name == "ceremonies" else { return walker.skipValue() }
                // Given twice: which one JSONDecoder kept is not known, so neither is read.
                guard found == nil else { return false }
                found = walker.array { walker in walker.response() }
                return found != nil
            }
            return read ? found : nil
        }

        /// One ceremony object: its `response` member, or a refusal when there are two.
        mutating func response() -> Extent? {
            var extents: [ArraySlice<UInt8>] = []
            let read = object { walker, name in
                guard name == "response" else { return walker.skipValue() }
                walker.skipWhitespace()
                let start = walker.position
                guard walker.skipValue() else { return false }
                extents.append(walker.bytes[start..<walker.position])
                return true
            }
            guard read else { return nil }
            if extents.count > 1 { return .refused("response: the member \"response\" is given \(extents.count) times") }
            return extents.first.map(Extent.bytes) ?? .bytes([])
        }

        mutating func object(_ member: (inout Walker, String) -> Bool) -> Bool {
            skipWhitespace()
            guard peek == UInt8(ascii: "{") else { return false }
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") { position += 1; return true }
            while true {
                skipWhitespace()
                guard let name = string() else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                position += 1
                guard member(&self, name) else { return false }
                skipWhitespace()
                guard let b = peek else { return false }
                position += 1
                if b == UInt8(ascii: "}") { return true }
                guard b == UInt8(ascii: ",") else { return false }
            }
        }

        mutating func array(_ element: (inout Walker) -> Extent?) -> [Extent]? {
            skipWhitespace()
            guard peek == UInt8(ascii: "[") else { return nil }
            position += 1
            var out: [Extent] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") { position += 1; return out }
            while true {
                guard let extent = element(&self) else { return nil }
                out.append(extent)
                skipWhitespace()
                guard let b = peek else { return nil }
                position += 1
                if b == UInt8(ascii: "]") { return out }
                guard b == UInt8(ascii: ",") else { return nil }
            }
        }

        /// A string's decoded text (names with escapes are decoded by the strict reader).
        mutating func string() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            let start = position
            position += 1
            var escaped = false
            while let b = peek {
                position += 1
                if b == UInt8(ascii: "\\") { escaped = true; position += 1; continue }
                if b == UInt8(ascii: "\"") {
                    let raw = bytes[start..<position]
                    if !escaped { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
                    guard case .string(let name)? = try? JSONValue(jsonData: Data(raw)) else { return nil }
                    return name
                }
            }
            return nil
        }

        /// Skips one value: strings and brackets are followed; a number or literal runs to the
        /// next delimiter.
        mutating func skipValue() -> Bool {
            skipWhitespace()
            var depth = 0
            while let b = peek {
                switch b {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    if depth == 0 { return true }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    position += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return true }
                    depth -= 1
                    position += 1
                    if depth == 0 { return true }
                case UInt8(ascii: ","):
                    if depth == 0 { return true }
                    position += 1
                default:
                    position += 1
                }
            }
            return depth == 0
        }
    }
}
