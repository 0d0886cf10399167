import Testing

@testable import WebAuthnCoding

/// `JSONReader`, the one JSON grammar: a document that is not UTF-8 is refused as that
/// whatever else is wrong with it, and skipping a value refuses what reading it refuses.
@Suite("JSON reader")
struct JSONReaderTests {
    static func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONReader.parse(bytes[...]) as Tree
            return nil
        } catch {
            return error.reason
        }
    }

    @Test(
        "a document that is not UTF-8 gets the UTF-8 refusal, wherever the bad byte is and whatever fails first",
        arguments: [
            [0x7B, 0xFF, 0x7D],  // {<ff>}: outside a string
            Array(#"{"a":"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),  // inside a string
            Array(#"{"a":tru,"b":""#.utf8) + [0xE2, 0x82] + Array(#""}"#.utf8),  // after a bad literal
            Array(#"{"a":1,"a":2,"b":""#.utf8) + [0xF0] + Array(#""}"#.utf8),  // after a duplicate
            Array(#"["#.utf8) + [0xED, 0xA0, 0x80] + Array(#"]"#.utf8),  // a UTF-8 surrogate, unclosed
        ])
    func notUTF8(_ bytes: [UInt8]) {
        #expect(Self.reason(bytes)?.hasPrefix("not valid UTF-8") == true)
    }

    @Test("valid non-ASCII text is read; a syntax error in an ASCII document keeps its own reason")
    func validText() throws {
        #expect(try JSONReader.parse(Array(#"{"é":"ü€😀"}"#.utf8)[...]) == Tree.object(["é": .string("ü€😀")]))
        #expect(Self.reason(Array(#"{"a":tru}"#.utf8)) == "invalid literal (expected true)")
    }

    @Test(
        "skipping a value refuses what reading it refuses, at the same offset",
        arguments: [
            #"{"x":tru}"#, #"{"x":01}"#, #"{"x":"\q"}"#, #"{"x":"\ud800"}"#, #"{"x":{"y":1,"y":2}}"#,
            #"{"x":[1,]}"#, #"{"x":1e999}"#, "{\"x\":\"a\u{01}\"}",
            #"{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
            #"{"x":{"y":[true,false,null,-1.5e3,"é"]}}"#,
        ])
    func skipMatchesRead(_ text: String) {
        let bytes = Array(text.utf8)[...]
        func run(skip: Bool) -> String {
            do {
                var reader = try JSONReader.document(bytes)
                try reader.readObject(depth: 1) { (reader: inout JSONReader, _: JSONReader.Text, _: Int) throws(JSONReader.ParseError) in
                    if skip { try reader.skipValue(depth: 2) } else { _ = try reader.readValue(depth: 2) as Tree }
                    return false
                }
                try reader.finish()
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(run(skip: true) == run(skip: false))
        #expect(
            run(skip: false)
                == ((try? JSONReader.parse(bytes) as Tree) != nil
                    ? "accepted" : (Result { () throws(JSONReader.ParseError) in try JSONReader.parse(bytes) as Tree }.failureDescription)))
    }
}

/// A tree for the engine's tests alone: WebAuthnRP's `JSONValue` is the library's tree, and
/// its own tests read through it (JSONTypesTests, PlainJSONFastPathTests).
private indirect enum Tree: JSONTree, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Tree])
    case object([String: Tree])

    var isNull: Bool { self == .null }
    var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    var arrayValue: [Tree]? { if case .array(let value) = self { value } else { nil } }
    var objectValue: [String: Tree]? { if case .object(let value) = self { value } else { nil } }
}

extension Result where Failure == JSONReader.ParseError {
    var failureDescription: String {
        if case .failure(let error) = self { return error.description }
        return "accepted"
    }
}

/// `readPlainObject`: plain member names handed out as ranges of the input.
@Suite("JSON reader: plain member names")
struct JSONReaderPlainNameTests {
    /// The names `readPlainObject` handed to its closure (each value skipped, every name left
    /// unchecked), or the error it threw.
    static func names(_ text: String) -> Result<[String], JSONReader.ParseError> {
        let bytes = Array(text.utf8)[...]
        var reader = JSONReader(bytes, limits: .init(maximumDepth: 4, maximumBytes: .max))
        var seen: [String] = []
        do throws(JSONReader.ParseError) {
            try reader.readPlainObject(depth: 1) { (reader: inout JSONReader, name: JSONReader.PlainName) throws(JSONReader.ParseError) in
                seen.append(String(decoding: bytes[name.range], as: UTF8.self))
                #expect(reader.name(name, is: seen[seen.count - 1]))
                #expect(!reader.name(name, is: seen[seen.count - 1] + "x"))
                try reader.skipValue(depth: 2)
                return false
            }
            return .success(seen)
        } catch {
            return .failure(error)
        }
    }

    @Test("plain names are read in order; an empty object has none")
    func plainNames() throws {
        #expect(try Self.names(#"{"a":1, "bc" : [2], "":null}"#).get() == ["a", "bc", ""])
        #expect(try Self.names("{ }").get() == [])
    }

    @Test(
        "an escaped, non-ASCII or repeated name, or a seventeenth unknown one, is refused",
        arguments: [
            #"{"\u0061":1}"#, #"{"é":1}"#, #"{"a":1,"a":2}"#, #"{"a":1,"b":2,"a":3}"#,
            "{" + (0..<17).map { #""n\#($0)":0"# }.joined(separator: ",") + "}",
        ])
    func refused(_ text: String) {
        #expect(throws: JSONReader.ParseError.self) { try Self.names(text).get() }
    }

    @Test("sixteen unknown names are read")
    func sixteen() throws {
        let text = "{" + (0..<16).map { #""n\#($0)":0"# }.joined(separator: ",") + "}"
        #expect(try Self.names(text).get().count == 16)
    }
}
