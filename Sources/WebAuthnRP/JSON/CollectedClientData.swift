import Foundation
import WebAuthnCoding

/// Parsed `clientDataJSON` (WebAuthn Level 3 §5.8.1).
///
/// The bytes are parsed (`CollectedClientData.swift`) by a strict JSON reader: valid UTF-8 (an optional leading
/// byte order mark is skipped), one JSON object, no duplicate members, `type`,
/// `challenge` and `origin` present as strings, `crossOrigin` a boolean and
/// `topOrigin` a string when present. Other members are parsed and ignored; `tokenBinding`,
/// which L3 keeps reserved and never verifies, is read only to note whether it has its Level 2
/// shape (``tokenBindingFault``), which the FIDO conformance profile alone holds it to.
struct CollectedClientData: Sendable {
    /// `webauthn.create` or `webauthn.get` (compared by the ceremony, not here).
    let type: String
    /// The challenge as the client sent it: base64url text.
    var challenge: String { String(decoding: challengeUTF8, as: UTF8.self) }
    /// The origin of the calling document.
    var origin: String { String(decoding: originUTF8, as: UTF8.self) }
    /// ``challenge``'s UTF-8. Read from text without escapes, a slice of ``rawBytes``: the
    /// ceremony compares and decodes these bytes, and no string is made unless one is read.
    let challengeUTF8: ArraySlice<UInt8>
    /// ``origin``'s UTF-8, kept as ``challengeUTF8`` is.
    let originUTF8: ArraySlice<UInt8>
    /// Whether the ceremony ran in a cross-origin frame, when the client said.
    let crossOrigin: Bool?
    /// The top-level origin of a cross-origin ceremony, when the client said.
    let topOrigin: String?
    /// Exactly the bytes received (BOM included); the client data hash is over these.
    let rawBytes: ArraySlice<UInt8>
    /// What is wrong with a `tokenBinding` member that lacks its Level 2 shape; nil when the
    /// member is absent or well formed. L3 verifies nothing of it (old clients wrote other
    /// shapes, `"unused"` among them), so only a policy that asks refuses it
    /// (``VerificationPolicy/checksTokenBindingShape``).
    let tokenBindingFault: String?

    /// The largest `clientDataJSON` accepted, in bytes.
    static let maximumLength = 64 * 1024
    /// Deepest JSON nesting accepted inside `clientDataJSON`.
    static let maximumDepth = 32

    /// The parsed members, with the bytes they came from (the JSON readers in `JSON/` build it).
    init(
        type: String, challenge: ArraySlice<UInt8>, origin: ArraySlice<UInt8>, crossOrigin: Bool?, topOrigin: String?,
        rawBytes: ArraySlice<UInt8>, tokenBindingFault: String? = nil
    ) {
        self.type = type
        self.challengeUTF8 = challenge
        self.originUTF8 = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
        self.rawBytes = rawBytes
        self.tokenBindingFault = tokenBindingFault
    }

    /// Decodes ``challenge`` from base64url.
    /// - Returns: the challenge bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed` when the challenge is not
    ///   strict unpadded base64url.
    func decodedChallenge() throws(WebAuthnError) -> [UInt8] {
        do {
            return try Base64URL.decode(utf8: challengeUTF8)
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: challenge: \(error)")
        }
    }
}

// Reading `clientDataJSON`: the JSON readers of this folder build the model type, so Model
// does not know JSON.

extension CollectedClientData {
    /// Parses `clientDataJSON`.
    /// - Parameter jsonBytes: the received bytes; they are kept as ``rawBytes``.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming what failed: invalid
    ///   UTF-8 or JSON, input over ``maximumLength`` or nesting over ``maximumDepth``,
    ///   a top level that is not an object, a duplicate member, or a missing or
    ///   mistyped `type`, `challenge`, `origin`, `crossOrigin` or `topOrigin`.
    init(jsonBytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        // One pass of the reader over the document: the five members are read as values,
        // every other member is checked and skipped, names that repeat are refused. The
        // refusals, and their order, are those of the tree path below (the reader is the
        // same; the member checks run after the whole document was read, as there).
        var body = jsonBytes
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var type: JSONValue?, challenge: JSONValue?, origin: JSONValue?
        var crossOrigin: JSONValue?, topOrigin: JSONValue?, tokenBinding: JSONValue?
        // challenge and origin given as strings: their bytes, kept (no string made).
        var challengeText: ArraySlice<UInt8>?, originText: ArraySlice<UInt8>?
        var object = true
        do throws(JSONReader.ParseError) {
            var reader = try JSONReader.document(
                body, limits: .init(maximumDepth: Self.maximumDepth, maximumBytes: Self.maximumLength))
            // Not an object (or not JSON there): the tree path names what it is.
            object = reader.peek == UInt8(ascii: "{")
            if object {
                // The member names compared here are ASCII without K, ";" or "`", so no other
                // string is canonically equivalent to one of them: byte equality of the decoded
                // name is the tree's (Swift string) key equality.
                try reader.readObject(depth: 1) {
                    (reader: inout JSONReader, name: JSONReader.Text, nameStart: Int) throws(JSONReader.ParseError) in
                    func take(_ slot: inout JSONValue?, _ reader: inout JSONReader) throws(JSONReader.ParseError) -> Bool {
                        let value: JSONValue = try reader.readValue(depth: 2)
                        guard slot == nil else { throw reader.duplicate(name, at: nameStart) }
                        slot = value
                        return true
                    }
                    // As `take`, but a string is kept as its bytes (its slot marks it present).
                    func takeText(
                        _ slot: inout JSONValue?, _ text: inout ArraySlice<UInt8>?,
                        _ reader: inout JSONReader
                    ) throws(JSONReader.ParseError) -> Bool {
                        reader.skipWhitespace()
                        guard reader.peek == UInt8(ascii: "\"") else { return try take(&slot, &reader) }
                        let value = try reader.readString()
                        guard slot == nil else { throw reader.duplicate(name, at: nameStart) }
                        slot = .string("")
                        text = value.bytes
                        return true
                    }
                    let bytes = name.bytes
                    if bytes.is("type") { return try take(&type, &reader) }
                    if bytes.is("challenge") { return try takeText(&challenge, &challengeText, &reader) }
                    if bytes.is("origin") { return try takeText(&origin, &originText, &reader) }
                    if bytes.is("crossOrigin") { return try take(&crossOrigin, &reader) }
                    if bytes.is("topOrigin") { return try take(&topOrigin, &reader) }
                    if bytes.is("tokenBinding") { return try take(&tokenBinding, &reader) }
                    try reader.skipValue(depth: 2)
                    return false
                }
                try reader.finish()
            }
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: \(error)")
        }
        guard object else {
            try self.init(treeJSONBytes: jsonBytes)
            return
        }
        try self.init(
            type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin,
            topOrigin: topOrigin, tokenBinding: tokenBinding, rawBytes: jsonBytes, challengeText: challengeText,
            originText: originText)
    }

    /// Parses through a value tree (``JSONReader/parse(_:limits:)``): the general reading,
    /// and the reference the one-pass reading above is tested against.
    init(treeJSONBytes jsonBytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var body = jsonBytes
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let value: JSONValue
        do {
            value = try JSONReader.parse(
                body, limits: .init(maximumDepth: Self.maximumDepth, maximumBytes: Self.maximumLength))
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw WebAuthnError(.malformed, "clientDataJSON: the top-level value is not an object")
        }
        try self.init(
            type: members["type"], challenge: members["challenge"], origin: members["origin"],
            crossOrigin: members["crossOrigin"], topOrigin: members["topOrigin"], tokenBinding: members["tokenBinding"],
            rawBytes: jsonBytes)
    }

    /// The member checks, in order, on the values read.
    /// (`challengeText` and `originText`: the bytes of `challenge` and `origin` when the reader
    /// kept them, their slots then marking them present as strings.)
    private init(
        type: JSONValue?, challenge: JSONValue?, origin: JSONValue?, crossOrigin: JSONValue?,
        topOrigin: JSONValue?, tokenBinding: JSONValue?, rawBytes: ArraySlice<UInt8>,
        challengeText: ArraySlice<UInt8>? = nil, originText: ArraySlice<UInt8>? = nil
    ) throws(WebAuthnError) {
        let type = try Self.requiredString(type, "type")
        let challenge = try Self.requiredText(challenge, challengeText, "challenge")
        let origin = try Self.requiredText(origin, originText, "origin")
        let crossOriginValue: Bool?
        switch crossOrigin {
        case nil: crossOriginValue = nil
        case .bool(let b)?: crossOriginValue = b
        case let other?: throw WebAuthnError(.malformed, "clientDataJSON: crossOrigin is \(Self.kind(other)), not a boolean")
        }
        let topOriginValue: String?
        switch topOrigin {
        case nil: topOriginValue = nil
        case .string(let s)?: topOriginValue = s
        case let other?: throw WebAuthnError(.malformed, "clientDataJSON: topOrigin is \(Self.kind(other)), not a string")
        }
        self.init(
            type: type, challenge: challenge, origin: origin, crossOrigin: crossOriginValue,
            topOrigin: topOriginValue, rawBytes: rawBytes, tokenBindingFault: Self.tokenBindingFault(tokenBinding))
    }

    /// Parses `clientDataJSON` held in an array.
    /// - Parameter jsonBytes: the received bytes.
    /// - Throws: as ``init(jsonBytes:)-(ArraySlice<UInt8>)``.
    init(jsonBytes: [UInt8]) throws(WebAuthnError) {
        try self.init(jsonBytes: jsonBytes[...])
    }

    /// The statuses `TokenBindingStatus` names (WebAuthn Level 2 §5.8.1; L3 keeps the member reserved).
    static let tokenBindingStatuses: Set<String> = ["present", "supported", "not-supported"]

    /// Whether `tokenBinding`, when present, has its Level 2 shape: an object whose `status` is
    /// a string in ``tokenBindingStatuses``, and, when `status` is `present`, an `id` that is a
    /// base64url string. Its value is never used (no client sends Token Binding today).
    /// - Returns: the fault, for a `malformed` refusal where a policy asks; nil when well formed.
    static func tokenBindingFault(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        guard case .object(let members) = value else { return "tokenBinding is \(kind(value)), not an object" }
        guard let status = members["status"] else { return "tokenBinding.status is missing" }
        guard case .string(let text) = status else { return "tokenBinding.status is \(kind(status)), not a string" }
        guard tokenBindingStatuses.contains(text) else {
            return "tokenBinding.status \"\(text.prefix(64))\" is not present, supported or not-supported"
        }
        guard text == "present" else { return nil }
        guard case .string(let id)? = members["id"] else {
            return "tokenBinding.id must be a base64url string when status is present"
        }
        do {
            _ = try Base64URL.decode(id)
        } catch {
            return "tokenBinding.id: \(error)"
        }
        return nil
    }

    /// A required string member as UTF-8: the kept bytes, or the string value's.
    private static func requiredText(
        _ value: JSONValue?, _ text: ArraySlice<UInt8>?,
        _ name: String
    ) throws(WebAuthnError) -> ArraySlice<UInt8> {
        let string = try requiredString(value, name)
        if let text { return text }
        return Array(string.utf8)[...]
    }

    private static func requiredString(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> String {
        switch value {
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

/// `clientDataJSON` as the fuzz targets read it: the `client-data` target's parse, held where the
/// parsed members are to the parser's promises, and the challenge the ceremony targets issue.
package enum CollectedClientDataReading {
    /// Parses `bytes` as client data. Promises of an accepted parse: it keeps the input as
    /// `rawBytes`, and its members, serialized again by Foundation's `JSONEncoder`, parse to the
    /// same members.
    /// - Parameter bytes: the input.
    /// - Returns: the parse described (each member as UTF-8 hex, so two strings that print alike
    ///   but differ in bytes differ here) or the parser's error; and each promise an accepted
    ///   parse broke, as (property, detail).
    package static func read(
        _ bytes: ArraySlice<UInt8>
    ) -> (
        reading: Result<String, WebAuthnError>, broken: [(property: String, detail: String)]
    ) {
        let data: CollectedClientData
        do throws(WebAuthnError) {
            data = try CollectedClientData(jsonBytes: bytes)
        } catch {
            return (.failure(error), [])
        }
        let described = describe(data)
        var broken: [(property: String, detail: String)] = []
        if !data.rawBytes.elementsEqual(bytes) {
            broken.append(("rawBytes are the input", "\(data.rawBytes.count) bytes"))
        }
        struct Members: Encodable {
            var type: String, challenge: String, origin: String, crossOrigin: Bool?, topOrigin: String?
        }
        let members = Members(
            type: data.type, challenge: data.challenge, origin: data.origin,
            crossOrigin: data.crossOrigin, topOrigin: data.topOrigin)
        guard let json = try? JSONEncoder().encode(members) else {
            broken.append(("the members serialize as JSON", described))
            return (.success(described), broken)
        }
        let again: String
        do throws(WebAuthnError) {
            again = describe(try CollectedClientData(jsonBytes: Array(json)))
        } catch {
            again = "reject: \(error)"
        }
        if again != described {
            broken.append(("the members serialized again parse to the same members", "first: \(described)\nagain: \(again)"))
        }
        return (.success(described), broken)
    }

    /// The challenge `clientDataJSON` names, decoded; nil when the client data does not parse
    /// or its challenge is not base64url.
    /// - Parameter clientDataJSON: the client data.
    /// - Returns: the challenge bytes, or nil.
    package static func challenge(in clientDataJSON: [UInt8]) -> [UInt8]? {
        try? CollectedClientData(jsonBytes: clientDataJSON).decodedChallenge()
    }

    private static func describe(_ data: CollectedClientData) -> String {
        func hex(_ text: String) -> String {
            text.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        return "type \(hex(data.type)) challenge \(hex(data.challenge)) origin \(hex(data.origin))"
            + " crossOrigin \(data.crossOrigin.map { "\($0)" } ?? "-") topOrigin \(data.topOrigin.map(hex) ?? "-")"
    }
}
