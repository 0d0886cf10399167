import WebAuthnCoding
/// Parsed `clientDataJSON` (WebAuthn Level 3 §5.8.1).
///
/// The bytes are parsed by a strict JSON reader: valid UTF-8 (an optional leading
/// byte order mark is skipped), one JSON object, no duplicate members, `type`,
/// `challenge` and `origin` present as strings, `crossOrigin` a boolean and
/// `topOrigin` a string when present. Other members are parsed and ignored.
public struct CollectedClientData: Sendable {
    /// `webauthn.create` or `webauthn.get` (compared by the ceremony, not here).
    public let type: String
    /// The challenge as the client sent it: base64url text.
    public let challenge: String
    /// The origin of the calling document.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin frame, when the client said.
    public let crossOrigin: Bool?
    /// The top-level origin of a cross-origin ceremony, when the client said.
    public let topOrigin: String?
    /// Exactly the bytes received (BOM included); the client data hash is over these.
    public let rawBytes: ArraySlice<UInt8>

    /// The largest `clientDataJSON` accepted, in bytes.
    public static let maximumLength = 64 * 1024
    /// Deepest JSON nesting accepted inside `clientDataJSON`.
    public static let maximumDepth = 32

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

    private init(type: String, challenge: String, origin: String, crossOrigin: Bool?, topOrigin: String?,
                 rawBytes: ArraySlice<UInt8>) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
        self.rawBytes = rawBytes
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

    /// Decodes ``challenge`` from base64url.
    /// - Returns: the challenge bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed` when the challenge is not
    ///   strict unpadded base64url.
    public func decodedChallenge() throws(WebAuthnError) -> [UInt8] {
        do {
            return try Base64URL.decode(challenge)
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: challenge: \(error)")
        }
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
