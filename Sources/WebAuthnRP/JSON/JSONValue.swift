import WebAuthnCoding

/// Any JSON value, kept whole: used for extension inputs and client extension
/// outputs, whose members the library does not interpret, and as the result of the
/// JSON reader when it builds a tree (`JSONReader.parse`).
///
/// Numbers are `Double`, as in JavaScript, which produced them.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Member order is not kept.
    case object([String: JSONValue])

    /// Decodes any JSON value. An object's members are decoded in member-name order and an
    /// array's elements in order, and the first that does not decode is the error: the same
    /// input always gets the same error, naming the innermost member at fault.
    ///
    /// Decoding `[String: JSONValue]` instead would visit the members in a dictionary's
    /// order, which differs from one decode to the next, so of two bad members the error named
    /// either (found by the `fixture` fuzz target, `Fuzz/FailingCases/fixture/`).
    ///
    /// A value nested more than 64 levels deep in the document (counting every member and element
    /// above it) is refused: `JSONDecoder`'s work for each level grows with the depth, so without
    /// a bound 2 KB of nested objects cost almost a second of CPU (found by the
    /// `extension-outputs` fuzz target). The response readers allow 32 levels anyway.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` when the value, or a value inside it, is none of the JSON kinds,
    ///   or nests too deep.
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDecodingDepth else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "nesting deeper than \(Self.maximumDecodingDepth) levels"))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if var elements = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            while !elements.isAtEnd { array.append(try elements.decode(JSONValue.self)) }
            self = .array(array)
        } else if let members = try? decoder.container(keyedBy: JSONMemberKey.self) {
            self = .object(try members.decodeAllInNameOrder())
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// How deep a decoded value may sit in its document (`Decoder.codingPath` length).
    static let maximumDecodingDepth = 64

    /// Encodes the value.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws (for example for a non-finite number).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }

    /// Whether this is `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, when this is a string.
    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, when this is `true` or `false`.
    package var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number, when this is a number.
    package var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The elements, when this is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, when this is an object.
    package var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// A member of an object (nil when absent or when this is not an object).
    /// - Parameter key: the member name.
    subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// The JSON engine (`WebAuthnCoding/JSON`) reads, types and writes the library's one tree: the
/// enum's cases are the engine's builders, its accessors above the engine's views.
extension JSONValue: JSONTree {}

/// The engine's decoder over the library's tree: `JSONTreeDecoder.value(T.self, tree, [])` types a
/// tree `JSONReader.parse` built.
typealias JSONTreeDecoder = WebAuthnCoding.JSONTreeDecoder<JSONValue>

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

/// A JSON object member name, for decoding objects whose members are not known in advance.
struct JSONMemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension KeyedDecodingContainer {
    /// Decodes a member that is a JSON object of arbitrary values (extension inputs and outputs),
    /// one member at a time in member-name order.
    ///
    /// Decoding `[String: JSONValue]` directly visits the members in the order of a dictionary,
    /// which differs from one decode to the next: of several members that do not decode, the
    /// error named a different one each time (found by the `authentication` fuzz target,
    /// `Fuzz/FailingCases/authentication/`). In name order the same input always gets the same error.
    /// - Parameter key: the member holding the object.
    /// - Returns: the members.
    /// - Throws: `DecodingError` when the member is missing, not an object, or holds a value that is not JSON.
    func decodeJSONObject(forKey key: Key) throws -> [String: JSONValue] {
        try nestedContainer(keyedBy: JSONMemberKey.self, forKey: key).decodeAllInNameOrder()
    }

    /// As ``decodeJSONObject(forKey:)``, for an optional member (absent or `null` give nil).
    func decodeJSONObjectIfPresent(forKey key: Key) throws -> [String: JSONValue]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeJSONObject(forKey: key)
    }
}

extension KeyedDecodingContainer where Key == JSONMemberKey {
    /// Every member of this object as a JSON value, decoded in member-name order (UTF-8 byte
    /// order), so that of several members that do not decode the same one is named every time.
    func decodeAllInNameOrder() throws -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for member in allKeys.sorted(by: { $0.stringValue.utf8.lexicographicallyPrecedes($1.stringValue.utf8) }) {
            members[member.stringValue] = try decode(JSONValue.self, forKey: member)
        }
        return members
    }
}
