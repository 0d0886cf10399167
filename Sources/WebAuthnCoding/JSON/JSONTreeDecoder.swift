// `Decodable` over a tree the one JSON reader already built (`JSONReader.parse`, in the caller's
// `JSONTree` type), so a document
// that is not the plain browser form is read once, by the reader that refuses duplicate member
// names, invalid UTF-8, excess depth and size, and then typed without a second parse.
// Errors are `DecodingError`s with the coding path, as `JSONDecoder`'s are, so
// `WebAuthnJSONCoding.describe` names the member at fault the same way.

package struct JSONTreeDecoder<Tree: JSONTree>: Decoder {
    let node: Tree
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder over `node`, found at `codingPath` in its document.
    package init(_ node: Tree, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let members = node.objectValue else { throw Self.mismatch([String: Tree].self, node, codingPath) }
        return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = node.arrayValue else { throw Self.mismatch([Tree].self, node, codingPath) }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(node: node, codingPath: codingPath) }

    /// A value of `type` from `node`; scalars are read directly, anything else through its
    /// own `init(from:)` over the subtree.
    package static func value<T: Decodable>(_ type: T.Type, _ node: Tree, _ codingPath: [any CodingKey]) throws -> T {
        // The two scalars every document is mostly made of, without a dynamic cast (this generic
        // runs unspecialized from the modules that call it).
        if type == String.self {
            guard let text = node.stringValue, let value = text as? T else { throw mismatch(type, node, codingPath) }
            return value
        }
        if type == Bool.self {
            guard let flag = node.boolValue, let value = flag as? T else { throw mismatch(type, node, codingPath) }
            return value
        }
        if let tree = node as? T { return tree }  // T is the tree type: the subtree as it was read
        switch type {
        case is Bool.Type, is String.Type, is Double.Type, is Float.Type, is Int.Type, is Int8.Type, is Int16.Type,
            is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            guard let scalar = try scalar(type, node, codingPath) as? T else { throw mismatch(type, node, codingPath) }
            return scalar
        default:
            return try T(from: JSONTreeDecoder(node, codingPath: codingPath))
        }
    }

    private static func scalar(_ type: Any.Type, _ node: Tree, _ codingPath: [any CodingKey]) throws -> Any {
        if type is Bool.Type, let value = node.boolValue { return value }
        if type is String.Type, let value = node.stringValue { return value }
        guard let value = node.numberValue else { throw mismatch(type, node, codingPath) }
        if type is Double.Type { return value }
        if type is Float.Type { return Float(value) }
        // An integer type: the number must be integral and in range, as JSONDecoder requires.
        guard value.rounded(.towardZero) == value, let exact = Int64(exactly: value) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "number \(value) is not an integer in range"))
        }
        let converted: Any? =
            switch type {
            case is Int.Type: Int(exactly: exact)
            case is Int8.Type: Int8(exactly: exact)
            case is Int16.Type: Int16(exactly: exact)
            case is Int32.Type: Int32(exactly: exact)
            case is Int64.Type: exact
            case is UInt.Type: UInt(exactly: exact)
            case is UInt8.Type: UInt8(exactly: exact)
            case is UInt16.Type: UInt16(exactly: exact)
            case is UInt32.Type: UInt32(exactly: exact)
            case is UInt64.Type: UInt64(exactly: exact)
            default: nil
            }
        guard let converted else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "number \(value) does not fit \(type)"))
        }
        return converted
    }

    /// The error for a value that is not of `type` (`null` is a missing value, as with `JSONDecoder`).
    package static func mismatch(_ type: Any.Type, _ node: Tree, _ codingPath: [any CodingKey]) -> DecodingError {
        if node.isNull {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(node.kindDescription)"))
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: Tree]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> Tree {
            guard let node = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
            }
            return node
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            try member(key).isNull
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decode(type, key) }

        private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            try JSONTreeDecoder.value(type, try member(key), codingPath + [key])
        }

        // The primitive requirements: text, flags and numbers read directly (the coding path is
        // built only for an error); the integers through the generic path's range checks.
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key, \.boolValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key, \.stringValue) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key, \.numberValue) }

        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

        /// The member `key` as the tree's own view of it (`stringValue`, …), or the type mismatch.
        private func scalar<Value>(_ type: Value.Type, _ key: Key, _ view: (Tree) -> Value?) throws -> Value {
            try Self.scalar(type, try member(key), key, codingPath, view)
        }

        private static func scalar<Value>(
            _ type: Value.Type, _ node: Tree, _ key: Key, _ codingPath: [any CodingKey], _ view: (Tree) -> Value?
        ) throws -> Value {
            guard let value = view(node) else { throw JSONTreeDecoder.mismatch(type, node, codingPath + [key]) }
            return value
        }

        // Absent and null both read as nil, as with JSONDecoder.
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(type, key, \.stringValue) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(type, key, \.boolValue) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(type, key, \.numberValue) }

        /// One lookup for an optional scalar (the protocol's default looks the member up three times).
        private func scalarIfPresent<Value>(_ type: Value.Type, _ key: Key, _ view: (Tree) -> Value?) throws -> Value? {
            guard let node = members[key.stringValue], !node.isNull else { return nil }
            return try Self.scalar(type, node, key, codingPath, view)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let node = members[key.stringValue] else { return nil }
            if node.isNull { return nil }
            return try JSONTreeDecoder.value(type, node, codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONTreeDecoder(try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONTreeDecoder(try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { JSONTreeDecoder(.object(members), codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONTreeDecoder(members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [Tree]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(elements: [Tree], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        private var indexKey: IndexKey { IndexKey(intValue: currentIndex) }

        private func next(_ type: Any.Type) throws -> Tree {
            guard currentIndex < elements.count else {
                throw DecodingError.valueNotFound(
                    type,
                    .init(
                        codingPath: codingPath + [indexKey],
                        debugDescription: "the array has no more elements"))
            }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard try next(Tree.self).isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeNext(type) }

        private mutating func decodeNext<T: Decodable>(_ type: T.Type) throws -> T {
            let value = try JSONTreeDecoder.value(type, try next(type), codingPath + [indexKey])
            currentIndex += 1
            return value
        }

        // The primitive requirements, each the generic path.
        mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext(type) }
        mutating func decode(_ type: String.Type) throws -> String { try decodeNext(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let container = try JSONTreeDecoder(try next(Tree.self), codingPath: codingPath + [indexKey]).container(keyedBy: type)
            currentIndex += 1
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let container = try JSONTreeDecoder(try next(Tree.self), codingPath: codingPath + [indexKey]).unkeyedContainer()
            currentIndex += 1
            return container
        }

        mutating func superDecoder() throws -> any Decoder {
            let decoder = JSONTreeDecoder(try next(Tree.self), codingPath: codingPath + [indexKey])
            currentIndex += 1
            return decoder
        }
    }

    /// An array element's place in a coding path.
    private struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { return nil }
    }

    private struct Single: SingleValueDecodingContainer {
        let node: Tree
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            node.isNull
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONTreeDecoder.value(type, node, codingPath) }

        // The primitive requirements, each the generic path.
        func decode(_ type: Bool.Type) throws -> Bool { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: String.Type) throws -> String { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONTreeDecoder.value(type, node, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONTreeDecoder.value(type, node, codingPath) }
    }
}
