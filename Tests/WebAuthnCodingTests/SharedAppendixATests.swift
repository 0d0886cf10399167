import Foundation
import Testing

@testable import WebAuthnCoding

/// Where the shared conformance corpus lives: beside the repository root (the
/// folder that holds `Package.swift`), as `../shared/conformance/cbor/appendix_a.json`.
/// In a worktree at `/work/wt-x` that is `/work/shared/...`; in CI the clone has
/// `shared/` next to it. When the file is absent the test is skipped.
enum SharedCBORCorpus {
    static let appendixAPath: String = {
        let testFile = URL(fileURLWithPath: "\(#filePath)")
        let repoRoot = testFile.deletingLastPathComponent()  // WebAuthnCodingTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository root
        return repoRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/conformance/cbor/appendix_a.json").path
    }()

    static var isPresent: Bool { FileManager.default.fileExists(atPath: appendixAPath) }

    /// Encodings the corpus lists (it follows RFC 7049) that RFC 8949 says are
    /// not well-formed: `simple(24)` in two-byte form (§3.3, erratum 5917).
    static let notWellFormedUnderRFC8949: Set<String> = ["f818"]
}

@Suite("Shared conformance corpus: cbor/appendix_a.json")
struct SharedAppendixATests {
    struct Vector {
        let hex: String
        let base64: String
        let roundtrip: Bool
        let decoded: MiniJSON?
        let diagnostic: String?
    }

    static func loadVectors() throws -> [Vector] {
        let data = try Data(contentsOf: URL(fileURLWithPath: SharedCBORCorpus.appendixAPath))
        guard case .array(let items) = try MiniJSON.parse(Array(data)) else {
            throw MiniJSON.ParseError(reason: "top level is not an array", offset: 0)
        }
        var vectors: [Vector] = []
        for item in items {
            guard case .object(let fields) = item,
                case .string(let hex)? = fields.first(where: { $0.0 == "hex" })?.1,
                case .string(let base64)? = fields.first(where: { $0.0 == "cbor" })?.1,
                case .bool(let roundtrip)? = fields.first(where: { $0.0 == "roundtrip" })?.1
            else {
                throw MiniJSON.ParseError(reason: "vector without hex/cbor/roundtrip", offset: 0)
            }
            let decoded = fields.first(where: { $0.0 == "decoded" })?.1
            var diagnostic: String?
            if case .string(let d)? = fields.first(where: { $0.0 == "diagnostic" })?.1 { diagnostic = d }
            vectors.append(Vector(hex: hex, base64: base64, roundtrip: roundtrip, decoded: decoded, diagnostic: diagnostic))
        }
        return vectors
    }

    @Test(
        "every vector decodes to its stated value and round-trips where marked",
        .enabled(if: SharedCBORCorpus.isPresent, "needs ../shared/conformance/cbor/appendix_a.json"))
    func runsEveryVector() throws {
        let vectors = try Self.loadVectors()
        #expect(vectors.count >= 80)
        for vector in vectors {
            let input = hex(vector.hex)
            // The `cbor` member is padded standard base64; in the URL-safe alphabet it
            // must decode (with padding allowed) to the same bytes.
            let urlSafe = String(vector.base64.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
            #expect((try? Base64URL.decode(urlSafe, allowPadding: true)) == input, "base64 of \(vector.hex)")

            if SharedCBORCorpus.notWellFormedUnderRFC8949.contains(vector.hex) {
                #expect(decodeErrorCode(input) == .invalid, "\(vector.hex) is not well-formed under RFC 8949")
                continue
            }
            let item: CBORItem
            do {
                item = try CBOR.decode(input)
            } catch {
                Issue.record("\(vector.hex) did not decode: \(error)")
                continue
            }
            if let decoded = vector.decoded {
                #expect(Self.matches(decoded, item.value), "\(vector.hex) decoded to \(item.value)")
            } else if let diagnostic = vector.diagnostic {
                #expect(
                    Diagnostic.render(item.value) == Diagnostic.joiningChunks(diagnostic),
                    "\(vector.hex) decoded to \(Diagnostic.render(item.value))")
            } else {
                Issue.record("\(vector.hex) has neither decoded nor diagnostic")
            }
            if vector.roundtrip {
                #expect(hexString(CBOREncoder.encode(item)) == vector.hex)
            }
        }
    }

    @Test(
        "our own Appendix A table agrees with the corpus",
        .enabled(if: SharedCBORCorpus.isPresent, "needs ../shared/conformance/cbor/appendix_a.json"))
    func tableAgreesWithCorpus() throws {
        let vectors = try Self.loadVectors()
        var roundtripByHex: [String: Bool] = [:]
        for v in vectors { roundtripByHex[v.hex] = v.roundtrip }
        for example in appendixA {
            #expect(roundtripByHex[example.hex] == example.preferred, "\(example.hex)")
        }
    }

    /// Whether a JSON `decoded` member denotes the decoded CBOR value. Numbers are
    /// compared by their literal text, so bignums (tags 2 and 3) need no big-integer type.
    static func matches(_ json: MiniJSON, _ value: CBORValue) -> Bool {
        switch json {
        case .null: return value == .null
        case .bool(let b): return value == .bool(b)
        case .string(let s): return value == .text(s)
        case .number(let literal):
            if literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard let d = Double(literal) else { return false }
                return identical(value, .float(d))
            }
            return Diagnostic.integerDecimal(value) == literal
        case .array(let elements):
            guard case .array(let items) = value, items.count == elements.count else { return false }
            return zip(elements, items).allSatisfy { matches($0, $1.value) }
        case .object(let members):
            guard case .map(let entries) = value, entries.count == members.count else { return false }
            return zip(members, entries).allSatisfy { member, entry in
                entry.key.value == .text(member.0) && matches(member.1, entry.value.value)
            }
        }
    }
}

/// RFC 8949 §8 diagnostic notation, for the subset the corpus uses.
enum Diagnostic {
    static func render(_ value: CBORValue) -> String {
        switch value {
        case .unsigned, .negative: return integerDecimal(value) ?? "?"
        case .bytes(let b): return "h'\(hexString(b))'"
        case .text(let s):
            return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .array(let items): return "[" + items.map { render($0.value) }.joined(separator: ", ") + "]"
        case .map(let entries):
            return "{" + entries.map { render($0.key.value) + ": " + render($0.value.value) }.joined(separator: ", ") + "}"
        case .tagged(let t, let item): return "\(t)(\(render(item.value)))"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple(let v): return "simple(\(v))"
        case .float(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            return "\(d)"
        }
    }

    /// The decoder joins the chunks of an indefinite-length string, so the corpus's
    /// `(_ h'0102', h'030405')` is compared as `h'0102030405'`.
    static func joiningChunks(_ diagnostic: String) -> String {
        guard diagnostic.hasPrefix("(_ "), diagnostic.hasSuffix(")") else { return diagnostic }
        let chunks = diagnostic.dropFirst(3).dropLast().components(separatedBy: ", ")
        if chunks.allSatisfy({ $0.hasPrefix("h'") && $0.hasSuffix("'") }) {
            return "h'" + chunks.map { String($0.dropFirst(2).dropLast()) }.joined() + "'"
        }
        if chunks.allSatisfy({ $0.hasPrefix("\"") && $0.hasSuffix("\"") }) {
            return "\"" + chunks.map { String($0.dropFirst().dropLast()) }.joined() + "\""
        }
        return diagnostic
    }

    /// The decimal text of an integer, including `-2^64` and bignums (tags 2, 3).
    static func integerDecimal(_ value: CBORValue) -> String? {
        switch value {
        case .unsigned(let n): return "\(n)"
        case .negative(let n): return "-" + incremented("\(n)")
        case .tagged(2, let item):
            guard case .bytes(let b) = item.value else { return nil }
            return bigDecimal(b)
        case .tagged(3, let item):
            guard case .bytes(let b) = item.value else { return nil }
            return "-" + incremented(bigDecimal(b))
        default: return nil
        }
    }

    /// Decimal text of a big-endian unsigned magnitude.
    static func bigDecimal(_ bytes: ArraySlice<UInt8>) -> String {
        var digits: [Int] = [0]  // little-endian base 10
        for byte in bytes {
            var carry = Int(byte)
            for i in digits.indices {
                let v = digits[i] * 256 + carry
                digits[i] = v % 10
                carry = v / 10
            }
            while carry > 0 {
                digits.append(carry % 10)
                carry /= 10
            }
        }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        return String(digits.reversed().map { Character(String($0)) })
    }

    /// Adds one to a non-negative decimal literal.
    static func incremented(_ decimal: String) -> String {
        var digits = Array(decimal.utf8.reversed())
        var i = 0
        while i < digits.count, digits[i] == UInt8(ascii: "9") {
            digits[i] = UInt8(ascii: "0")
            i += 1
        }
        if i == digits.count { digits.append(UInt8(ascii: "1")) } else { digits[i] += 1 }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }
}

/// A deliberately small JSON reader for the corpus: numbers stay as their literal
/// text so that integers beyond 64 bits compare exactly; object members keep order.
indirect enum MiniJSON: Equatable {
    case null, bool(Bool), number(String), string(String), array([MiniJSON]), object([(String, MiniJSON)])

    struct ParseError: Error, CustomStringConvertible {
        let reason: String
        let offset: Int
        var description: String { "JSON at \(offset): \(reason)" }
    }

    static func == (a: MiniJSON, b: MiniJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)), let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> MiniJSON {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw ParseError(reason: "trailing data", offset: reader.index) }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[index]) { index += 1 }
        }

        func fail(_ reason: String) -> ParseError { ParseError(reason: reason, offset: index) }

        mutating func expect(_ literal: String) throws {
            for b in literal.utf8 {
                guard index < bytes.count, bytes[index] == b else { throw fail("expected \(literal)") }
                index += 1
            }
        }

        mutating func value(depth: Int) throws -> MiniJSON {
            guard depth < 64 else { throw fail("too deep") }
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var elements: [MiniJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unterminated array") }
                    let c = bytes[index]
                    index += 1
                    if c == UInt8(ascii: "]") { return .array(elements) }
                    guard c == UInt8(ascii: ",") else { throw fail("expected , or ]") }
                }
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, MiniJSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unterminated object") }
                    let c = bytes[index]
                    index += 1
                    if c == UInt8(ascii: "}") { return .object(members) }
                    guard c == UInt8(ascii: ",") else { throw fail("expected , or }") }
                }
            default:
                let start = index
                while index < bytes.count, "-+.0123456789eE".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw fail("unexpected character") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count,
                let v = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else {
                throw fail("bad \\u escape")
            }
            index += 4
            return v
        }

        mutating func string() throws -> String {
            try expect("\"")
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw = [] }
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let c = bytes[index]
                index += 1
                if c == UInt8(ascii: "\"") { break }
                guard c == UInt8(ascii: "\\") else { raw.append(c); continue }
                guard index < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[index]
                index += 1
                flush()
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0c}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xd800..<0xdc00).contains(code) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw fail("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid scalar") }
                    scalars.append(scalar)
                default: throw fail("bad escape")
                }
            }
            flush()
            return String(scalars)
        }
    }
}
