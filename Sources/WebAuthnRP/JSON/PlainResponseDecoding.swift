import WebAuthnCoding

/// Fast decoders for the response documents as browsers write them, in front of the tree
/// path (`WebAuthnJSONCoding.decode`: the same reader builds a tree, `JSONTreeDecoder` types it). They walk the documents with ``JSONReader`` (the library's one JSON
/// grammar) and read only plain values: ASCII strings without escapes, integers of at most
/// 15 digits (not `-0`), `true`, `false`, `null`. Each returns nil for anything else, and for
/// any refusal of the reader, a repeated member, a missing or mistyped member, or bad
/// base64url; the caller then takes the tree path, which accepts or rejects with its own
/// error, so accepting and rejecting stay exactly as without the fast path. Within plain
/// JSON a document means the same to both (tests compare them on accepted and rejected
/// documents).
enum PlainResponseDecoding {
    typealias ParseError = JSONReader.ParseError

    /// How deep a response document may nest on this path; deeper ones take the tree path.
    static let limits = JSONReader.Limits(maximumDepth: 10, maximumBytes: .max)

    /// `AuthenticationResponseJSON` from plain JSON, or nil: ``assertion(_:)``'s members,
    /// each copied out of the shared buffer.
    static func authentication(_ bytes: ArraySlice<UInt8>) -> AuthenticationResponseJSON? {
        guard let plain = assertion(bytes) else { return nil }
        func member(_ range: Range<Int>) -> Base64URLBytes { Base64URLBytes(Array(plain.decoded[range])) }
        return AuthenticationResponseJSON(
            id: String(decoding: plain.id, as: UTF8.self), rawId: Base64URLBytes(plain.rawId),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: member(plain.clientDataJSON), authenticatorData: member(plain.authenticatorData),
                signature: member(plain.signature), userHandle: plain.userHandle.map(member)),
            authenticatorAttachment: plain.attachment, clientExtensionResults: plain.extensions,
            type: PublicKeyCredentialType(rawValue: plain.type))
    }

    /// A plain assertion's members as read: the four binary members of `response` decoded
    /// into one buffer (one allocation, not four) with each member's range, and the rest of
    /// the envelope. `AuthenticationResponse(plainJSON:)` (in Ceremonies/) keeps them as they are.
    struct PlainAssertion {
        /// The id's bytes (plain ASCII text), a slice of the document.
        var id: ArraySlice<UInt8>
        var rawId: [UInt8]
        var type: String
        var attachment: AuthenticatorAttachment?
        var extensions: [String: JSONValue]
        var decoded: [UInt8]
        var clientDataJSON: Range<Int>, authenticatorData: Range<Int>, signature: Range<Int>
        /// Nil when absent or null; empty when `""` (the response, not the JSON form, makes
        /// that none).
        var userHandle: Range<Int>?
    }

    /// The members of a plain `AuthenticationResponseJSON`, or nil when the document is not plain.
    static func assertion(_ bytes: ArraySlice<UInt8>) -> PlainAssertion? {
        var decoded: [UInt8] = []
        // Decoded base64url is shorter than its text, so the document's length bounds the four members.
        decoded.reserveCapacity(bytes.count * 3 / 4 + 3)
        var clientDataJSON: Range<Int>?, authenticatorData: Range<Int>?, signature: Range<Int>?
        var userHandle: Range<Int>??
        let envelope = try? Self.envelope(bytes) { (reader: inout JSONReader, name: JSONReader.PlainName) throws(ParseError) in
            if reader.name(name, is: "clientDataJSON") {
                try once(&clientDataJSON, &reader) { (reader: inout JSONReader) throws(ParseError) in try base64URL(&reader, into: &decoded)
                }
            } else if reader.name(name, is: "authenticatorData") {
                try once(&authenticatorData, &reader) { (reader: inout JSONReader) throws(ParseError) in
                    try base64URL(&reader, into: &decoded)
                }
            } else if reader.name(name, is: "signature") {
                try once(&signature, &reader) { (reader: inout JSONReader) throws(ParseError) in try base64URL(&reader, into: &decoded) }
            } else if reader.name(name, is: "userHandle") {
                try once(&userHandle, &reader) { (reader: inout JSONReader) throws(ParseError) in
                    try orNull(&reader) { (reader: inout JSONReader) throws(ParseError) in try base64URL(&reader, into: &decoded) }
                }
            } else {
                try reader.skipValue(depth: 3)
                return false
            }
            return true
        }
        guard let envelope = consume envelope, let clientDataJSON, let authenticatorData, let signature else { return nil }
        return PlainAssertion(
            id: envelope.id, rawId: envelope.rawId, type: envelope.type, attachment: envelope.attachment,
            extensions: envelope.extensions, decoded: decoded, clientDataJSON: clientDataJSON,
            authenticatorData: authenticatorData, signature: signature, userHandle: userHandle.flatMap { $0 })
    }

    /// `RegistrationResponseJSON` from plain JSON, or nil.
    static func registration(_ bytes: ArraySlice<UInt8>) -> RegistrationResponseJSON? {
        var clientDataJSON: [UInt8]?, attestationObject: [UInt8]?
        var authenticatorData: [UInt8]??, publicKey: [UInt8]??
        var transports: [AuthenticatorTransport]??
        var publicKeyAlgorithm: Int??
        let envelope = try? Self.envelope(bytes) { (reader: inout JSONReader, name: JSONReader.PlainName) throws(ParseError) in
            if reader.name(name, is: "clientDataJSON") {
                try once(&clientDataJSON, &reader, base64URL)
            } else if reader.name(name, is: "attestationObject") {
                try once(&attestationObject, &reader, base64URL)
            } else if reader.name(name, is: "authenticatorData") {
                try once(&authenticatorData, &reader) { (reader: inout JSONReader) throws(ParseError) in try orNull(&reader, base64URL) }
            } else if reader.name(name, is: "publicKey") {
                try once(&publicKey, &reader) { (reader: inout JSONReader) throws(ParseError) in try orNull(&reader, base64URL) }
            } else if reader.name(name, is: "publicKeyAlgorithm") {
                try once(&publicKeyAlgorithm, &reader) { (reader: inout JSONReader) throws(ParseError) in try orNull(&reader, integer) }
            } else if reader.name(name, is: "transports") {
                try once(&transports, &reader) { (reader: inout JSONReader) throws(ParseError) in try orNull(&reader, transportList) }
            } else {
                try reader.skipValue(depth: 3)
                return false
            }
            return true
        }
        guard let envelope, let clientDataJSON, let attestationObject else { return nil }
        return RegistrationResponseJSON(
            id: String(decoding: envelope.id, as: UTF8.self), rawId: Base64URLBytes(envelope.rawId),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientDataJSON),
                authenticatorData: authenticatorData.flatMap { $0 }.map { Base64URLBytes($0) },
                transports: transports.flatMap { $0 },
                publicKey: publicKey.flatMap { $0 }.map { Base64URLBytes($0) },
                publicKeyAlgorithm: publicKeyAlgorithm.flatMap { $0 },
                attestationObject: Base64URLBytes(attestationObject)),
            authenticatorAttachment: envelope.attachment, clientExtensionResults: envelope.extensions,
            type: PublicKeyCredentialType(rawValue: envelope.type))
    }

    /// The members both credential documents share; `response`'s members go to the caller.
    private struct Envelope {
        /// The id's bytes (plain ASCII text), a slice of the document.
        var id: ArraySlice<UInt8>
        var rawId: [UInt8]
        var type: String
        var attachment: AuthenticatorAttachment?
        var extensions: [String: JSONValue]
    }

    /// Reads `id`, `rawId`, `type`, `authenticatorAttachment` and `clientExtensionResults`,
    /// hands each member of `response` to `response` (true: a member it read), and skips
    /// unknown members. Throws when anything is not plain, repeats, or is missing.
    private static func envelope(
        _ bytes: ArraySlice<UInt8>,
        response: (inout JSONReader, JSONReader.PlainName) throws(ParseError) -> Bool
    ) throws(ParseError) -> Envelope {
        var reader = JSONReader(bytes, limits: limits)
        var id: ArraySlice<UInt8>?, rawId: [UInt8]?, type: String?
        var attachment: AuthenticatorAttachment??
        var extensions: [String: JSONValue]?
        var sawResponse = false
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "{") else { throw giveUp(reader) }
        try reader.readPlainObject(depth: 1) { (reader: inout JSONReader, name: JSONReader.PlainName) throws(ParseError) in
            if reader.name(name, is: "id") {
                try once(&id, &reader, textBytes)
            } else if reader.name(name, is: "rawId") {
                try once(&rawId, &reader, base64URL)
            } else if reader.name(name, is: "type") {
                try once(&type, &reader, text)
            } else if reader.name(name, is: "authenticatorAttachment") {
                try once(&attachment, &reader) { (reader: inout JSONReader) throws(ParseError) in
                    try orNull(&reader, text).map(AuthenticatorAttachment.init(rawValue:))
                }
            } else if reader.name(name, is: "clientExtensionResults") {
                try once(&extensions, &reader, extensionResults)
            } else if reader.name(name, is: "response") {
                guard !sawResponse else { throw giveUp(reader) }
                sawResponse = true
                reader.skipWhitespace()
                guard reader.peek == UInt8(ascii: "{") else { throw giveUp(reader) }
                try reader.readPlainObject(depth: 2) { (reader: inout JSONReader, name: JSONReader.PlainName) throws(ParseError) in
                    try response(&reader, name)
                }
            } else {
                try reader.skipValue(depth: 2)
                return false
            }
            return true
        }
        try reader.finish()
        guard let id, let rawId, let type else { throw giveUp(reader) }
        // Absent `clientExtensionResults` is `{}`, as on the tree path.
        return Envelope(id: id, rawId: rawId, type: type, attachment: attachment.flatMap { $0 }, extensions: extensions ?? [:])
    }

    /// Leaves the document to the tree path.
    private static func giveUp(_ reader: JSONReader) -> ParseError {
        reader.fail("not plain JSON")
    }

    /// Stores a member's value in `slot` once: a member that repeats gives up.
    private static func once<Value>(
        _ slot: inout Value?, _ reader: inout JSONReader, _ read: (inout JSONReader) throws(ParseError) -> Value
    ) throws(ParseError) {
        guard slot == nil else { throw giveUp(reader) }
        slot = try read(&reader)
    }

    /// `null` (nil), or what `read` reads.
    private static func orNull<Value>(
        _ reader: inout JSONReader, _ read: (inout JSONReader) throws(ParseError) -> Value
    ) throws(ParseError) -> Value? {
        reader.skipWhitespace()
        if reader.peek == UInt8(ascii: "n") {
            guard try reader.readLiteral() as JSONValue == .null else { throw giveUp(reader) }
            return nil
        }
        return try read(&reader)
    }

    /// A plain string.
    private static func text(_ reader: inout JSONReader) throws(ParseError) -> String {
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "\"") else { throw giveUp(reader) }
        let text = try reader.readString()
        guard text.plain else { throw giveUp(reader) }
        return text.string
    }

    /// A plain string's bytes (a slice of the document: no string made).
    private static func textBytes(_ reader: inout JSONReader) throws(ParseError) -> ArraySlice<UInt8> {
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "\"") else { throw giveUp(reader) }
        let text = try reader.readString()
        guard text.plain else { throw giveUp(reader) }
        return text.bytes
    }

    /// A string holding strict base64url, decoded.
    private static func base64URL(_ reader: inout JSONReader) throws(ParseError) -> [UInt8] {
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "\""), let bytes = try reader.readBase64URL() else { throw giveUp(reader) }
        return bytes
    }

    /// A string holding strict base64url, decoded and appended to `out`; where it lies there.
    private static func base64URL(_ reader: inout JSONReader, into out: inout [UInt8]) throws(ParseError) -> Range<Int> {
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "\""), let range = try reader.readBase64URL(appendingTo: &out) else { throw giveUp(reader) }
        return range
    }

    /// An integer of at most 15 digits, without fraction or exponent (`-0` is left to the tree path).
    private static func integer(_ reader: inout JSONReader) throws(ParseError) -> Int {
        reader.skipWhitespace()
        guard let first = reader.peek, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { throw giveUp(reader) }
        let number = try reader.readNumber()
        let digits = number.text.count - (first == UInt8(ascii: "-") ? 1 : 0)
        guard number.integral, digits <= 15, !number.text.elementsEqual("-0".utf8) else { throw giveUp(reader) }
        return Int(number.value)
    }

    /// An array of plain strings, as transports.
    private static func transportList(_ reader: inout JSONReader) throws(ParseError) -> [AuthenticatorTransport] {
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "[") else { throw giveUp(reader) }
        var list: [AuthenticatorTransport] = []
        try reader.readArray(depth: 3) { (reader: inout JSONReader) throws(ParseError) in
            list.append(AuthenticatorTransport(rawValue: try text(&reader)))
        }
        return list
    }

    /// How deep `clientExtensionResults` may nest on this path (prf's is three objects deep);
    /// anything deeper goes to the tree path, which decides.
    static let maximumExtensionDepth = 6

    /// `clientExtensionResults` as values (prf results, credProps, largeBlob…); gives up on a
    /// repeated name, an escape, a fraction, or nesting deeper than ``maximumExtensionDepth``.
    private static func extensionResults(_ reader: inout JSONReader) throws(ParseError) -> [String: JSONValue] {
        guard case .object(let members) = try plainValue(&reader, depth: 0) else { throw giveUp(reader) }
        return members
    }

    private static func plainValue(_ reader: inout JSONReader, depth: Int) throws(ParseError) -> JSONValue {
        reader.skipWhitespace()
        guard depth <= maximumExtensionDepth, let next = reader.peek else { throw giveUp(reader) }
        switch next {
        case UInt8(ascii: "\""):
            return .string(try text(&reader))
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            try reader.readObject(depth: depth + 2) { (reader: inout JSONReader, name: JSONReader.Text, _: Int) throws(ParseError) in
                guard name.plain else { throw giveUp(reader) }
                let value = try plainValue(&reader, depth: depth + 1)
                guard members.updateValue(value, forKey: name.string) == nil else { throw giveUp(reader) }
                return true
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try reader.readArray(depth: depth + 2) { (reader: inout JSONReader) throws(ParseError) in
                elements.append(try plainValue(&reader, depth: depth + 1))
            }
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return try reader.readLiteral()
        default:
            return .number(Double(try integer(&reader)))
        }
    }
}
