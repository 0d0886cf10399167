/// A JSON value tree: the type ``JSONReader`` builds, ``JSONTreeDecoder`` types and
/// ``JSONTextWriter`` writes. The engine has no tree type of its own: the caller's is the one
/// tree (WebAuthnRP's public `JSONValue`, whose enum cases are the builders), so a parsed
/// document is never copied from one tree shape into another.
///
/// Numbers are `Double`, as in JavaScript; an object's member order is not kept.
package protocol JSONTree {
    /// `null`.
    static var null: Self { get }
    /// `true` or `false`.
    static func bool(_ value: Bool) -> Self
    /// A number (finite).
    static func number(_ value: Double) -> Self
    /// A string.
    static func string(_ value: String) -> Self
    /// An array.
    static func array(_ elements: [Self]) -> Self
    /// An object.
    static func object(_ members: [String: Self]) -> Self

    /// Whether this is `null`.
    var isNull: Bool { get }
    /// The boolean, when this is `true` or `false`.
    var boolValue: Bool? { get }
    /// The number, when this is a number.
    var numberValue: Double? { get }
    /// The string, when this is a string.
    var stringValue: String? { get }
    /// The elements, when this is an array.
    var arrayValue: [Self]? { get }
    /// The members, when this is an object.
    var objectValue: [String: Self]? { get }
}

extension JSONTree {
    /// What kind of value this is, for messages (`a string`, `an object`, …).
    package var kindDescription: String {
        if isNull { return "null" }
        if boolValue != nil { return "a boolean" }
        if numberValue != nil { return "a number" }
        if stringValue != nil { return "a string" }
        if arrayValue != nil { return "an array" }
        return "an object"
    }
}
