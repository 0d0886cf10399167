// Reading `clientDataJSON`: the JSON readers of this folder build the model type, so Model
// does not know JSON.
extension CollectedClientData {
    /// Parses `clientDataJSON`.
    /// - Parameter jsonBytes: the received bytes; they are kept as ``rawBytes``.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming what failed: invalid
    ///   UTF-8 or JSON, input over ``maximumLength`` or nesting over ``maximumDepth``,
    ///   a top level that is not an object, a duplicate member, or a missing or
    ///   mistyped `type`, `challenge`, `origin`, `crossOrigin` or `topOrigin`.
    public init(jsonBytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        // Client data as browsers write it (plain ASCII JSON, no escapes) is read in one
        // pass; anything else goes through the strict reader below, which decides.
        if let plain = PlainResponseDecoding.clientData(jsonBytes) {
            self.init(type: plain.type, challenge: plain.challenge, origin: plain.origin,
                      crossOrigin: plain.crossOrigin, topOrigin: plain.topOrigin, rawBytes: jsonBytes)
            return
        }
        try self.init(strictJSONBytes: jsonBytes)
    }

    /// Parses with the strict reader alone (the general path, and the reference the
    /// plain fast path is tested against).
    init(strictJSONBytes jsonBytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var body = jsonBytes
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let value: JSONValue
        do {
            value = try StrictJSONReader.parse(
                body, limits: .init(maximumDepth: Self.maximumDepth, maximumBytes: Self.maximumLength))
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw WebAuthnError(.malformed, "clientDataJSON: the top-level value is not an object")
        }
        type = try Self.requiredString(members, "type")
        challenge = try Self.requiredString(members, "challenge")
        origin = try Self.requiredString(members, "origin")
        switch members["crossOrigin"] {
        case nil: crossOrigin = nil
        case .bool(let b)?: crossOrigin = b
        case let other?: throw WebAuthnError(.malformed, "clientDataJSON: crossOrigin is \(Self.kind(other)), not a boolean")
        }
        switch members["topOrigin"] {
        case nil: topOrigin = nil
        case .string(let s)?: topOrigin = s
        case let other?: throw WebAuthnError(.malformed, "clientDataJSON: topOrigin is \(Self.kind(other)), not a string")
        }
        rawBytes = jsonBytes
    }

    /// Parses `clientDataJSON` held in an array.
    /// - Parameter jsonBytes: the received bytes.
    /// - Throws: as ``init(jsonBytes:)-(ArraySlice<UInt8>)``.
    public init(jsonBytes: [UInt8]) throws(WebAuthnError) {
        try self.init(jsonBytes: jsonBytes[...])
    }

    private static func requiredString(_ members: [String: JSONValue], _ name: String) throws(WebAuthnError) -> String {
        switch members[name] {
        case nil: throw WebAuthnError(.malformed, "clientDataJSON: \(name) is missing")
        case .string(let s)?: return s
        case let other?: throw WebAuthnError(.malformed, "clientDataJSON: \(name) is \(kind(other)), not a string")
        }
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
