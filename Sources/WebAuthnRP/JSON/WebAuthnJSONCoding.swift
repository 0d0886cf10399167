public import Foundation
import WebAuthnCoding

// JSON entry points that turn Foundation's DecodingError into a `malformed`
// WebAuthnError naming the member (for example `RegistrationResponseJSON.response.clientDataJSON`).

package enum WebAuthnJSONCoding {
    /// Reads `data` once with the one JSON reader (`JSONReader`: duplicate member names, invalid
    /// UTF-8, depth and size are refused there), then types the tree (`JSONTreeDecoder`): no
    /// second parse, and no verdict that depends on which duplicate a platform's decoder keeps.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>, root: String) throws(WebAuthnError) -> T {
        let tree: JSONValue
        do throws(JSONReader.ParseError) {
            tree = try JSONReader.parse(bytes)
        } catch {
            throw WebAuthnError(.malformed, "\(root): \(error)", bodyFault: .init("", .notJSON))
        }
        do {
            return try JSONTreeDecoder.value(T.self, tree, [])
        } catch let error as DecodingError {
            throw WebAuthnError(.malformed, describe(error, root: root), bodyFault: bodyFault(error))
        } catch {
            throw WebAuthnError(.malformed, "\(root): \(error)")
        }
    }

    /// Reads a response body: what browsers send is plain JSON, read by `plain` in one pass;
    /// anything else is read by the same reader into a tree and typed from it (``decode(_:from:root:)``).
    static func decodeResponse<T: Decodable>(
        _ jsonData: Data, root: String, plain: (ArraySlice<UInt8>) -> T?
    ) throws(WebAuthnError) -> T {
        let bytes = [UInt8](jsonData)[...]
        if let plain = plain(bytes) { return plain }
        return try decode(T.self, from: bytes, root: root)
    }

    /// Reads the value at a `Decoder`'s position with `read` (a response's `init(jsonData:)`),
    /// for the response's `Decodable`: the value is written back as JSON text (members in name
    /// order, as the outer decoder read them), so a credential inside a larger body goes through
    /// the one reader of every form instead of a second decoder. A fault in it is then named
    /// from the outer body (`credential.response.clientDataJSON`).
    /// - Parameters:
    ///   - decoder: the decoder, at the credential member.
    ///   - root: the document's name in the error.
    ///   - read: the whole-body reader.
    /// - Returns: what `read` made.
    /// - Throws: `DecodingError` when the member is not a JSON value (the outer document's
    ///   own shape); ``WebAuthnError`` as `read` throws it, or `malformed` for a number JSON
    ///   cannot carry.
    static func decodeMember<T>(
        _ decoder: any Decoder, root: String, _ read: (Data) throws(WebAuthnError) -> T
    ) throws -> T {
        let value = try JSONValue(from: decoder)
        var writer = JSONTextWriter()
        do throws(JSONTextWriter.NonFiniteNumber) {
            try writer.value(value)
        } catch {
            throw WebAuthnError(.malformed, "\(root): \(error)")
        }
        do throws(WebAuthnError) {
            return try read(Data(writer.bytes))
        } catch {
            throw WebAuthnError(
                error.category, step: error.step, error.message, bodyFault: error.bodyFault?.within(decoder.codingPath))
        }
    }

    static func encode<T: Encodable>(_ value: T, root: String) throws(WebAuthnError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw WebAuthnError(.malformed, "\(root): cannot be encoded as JSON: \(error)")
        }
    }

    /// Where a `DecodingError` points and what is wrong there.
    struct DecodingFailure {
        /// The member, from the document root; empty for the document itself.
        let codingPath: [any CodingKey]
        /// "is missing", "is not of the expected type (…)", "is null where … is required", or
        /// for corrupt data the decoder's own description.
        let reason: String
        /// The data was corrupt (not JSON, or a value such as base64url that did not decode).
        let isCorruptData: Bool
    }

    static func failure(_ error: DecodingError) -> DecodingFailure {
        switch error {
        case .dataCorrupted(let context):
            let underlying = context.codingPath.isEmpty ? context.underlyingError.map { " (\($0))" } ?? "" : ""
            return DecodingFailure(
                codingPath: context.codingPath, reason: context.debugDescription + underlying,
                isCorruptData: true)
        case .keyNotFound(let key, let context):
            return DecodingFailure(codingPath: context.codingPath + [key], reason: "is missing", isCorruptData: false)
        case .typeMismatch(let expected, let context):
            return DecodingFailure(
                codingPath: context.codingPath, reason: "is not of the expected type (\(expected))",
                isCorruptData: false)
        case .valueNotFound(let expected, let context):
            return DecodingFailure(
                codingPath: context.codingPath, reason: "is null where \(expected) is required",
                isCorruptData: false)
        @unknown default:
            return DecodingFailure(codingPath: [], reason: "\(error)", isCorruptData: true)
        }
    }

    /// The member a `DecodingError` points at (`member[2].field`; nil for the document itself)
    /// and what is wrong there: for the replay tool, whose fixture errors name the member the
    /// way a response's errors do.
    /// - Parameter error: the decoder's error.
    /// - Returns: the member, the reason, and whether the data was corrupt (not JSON, or a value
    ///   that did not decode) rather than missing or mistyped.
    package static func located(_ error: DecodingError) -> (member: String?, reason: String, isCorruptData: Bool) {
        let failure = failure(error)
        let member = failure.codingPath.isEmpty ? nil : path("", failure.codingPath)
        return (member, failure.reason, failure.isCorruptData)
    }

    /// The member a `DecodingError` points at, and its problem in the words a client is told.
    static func bodyFault(_ error: DecodingError) -> WebAuthnError.BodyFault {
        let problem: WebAuthnError.BodyFault.Problem
        switch error {
        case .keyNotFound: problem = .missing
        case .typeMismatch: problem = .mistyped
        case .valueNotFound: problem = .null
        case .dataCorrupted(let context):
            problem = context.debugDescription.hasPrefix(Base64URLBytes.notBase64URL) ? .notBase64URL : .invalid
        @unknown default: problem = .invalid
        }
        return WebAuthnError.BodyFault(codingPath: failure(error).codingPath, problem)
    }

    static func describe(_ error: DecodingError, root: String) -> String {
        let failure = failure(error)
        if failure.codingPath.isEmpty { return "\(root): \(failure.reason)" }
        let member = path(root, failure.codingPath)
        return failure.isCorruptData ? "\(member): \(failure.reason)" : "\(member) \(failure.reason)"
    }

    /// `root.member[2].field`; with an empty root, `member[2].field`.
    static func path(_ root: String, _ codingPath: [any CodingKey]) -> String {
        var out = root
        for key in codingPath {
            if let index = key.intValue { out += "[\(index)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return out
    }
}

extension RegistrationResponseJSON {
    /// Decodes a registration response from JSON.
    /// - Parameter jsonData: the JSON the client posted.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the member that is
    ///   missing, mistyped or not base64url.
    package init(jsonData: Data) throws(WebAuthnError) {
        self = try WebAuthnJSONCoding.decodeResponse(jsonData, root: "RegistrationResponseJSON", plain: PlainResponseDecoding.registration)
    }

    /// Encodes the response as JSON (sorted keys, nil members left out).
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` when a value cannot be encoded.
    package func jsonData() throws(WebAuthnError) -> Data {
        try WebAuthnJSONCoding.encode(self, root: "RegistrationResponseJSON")
    }
}

extension AuthenticationResponseJSON {
    /// Decodes an authentication response from JSON.
    /// - Parameter jsonData: the JSON the client posted.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the member that is
    ///   missing, mistyped or not base64url.
    package init(jsonData: Data) throws(WebAuthnError) {
        self = try WebAuthnJSONCoding.decodeResponse(
            jsonData, root: "AuthenticationResponseJSON", plain: PlainResponseDecoding.authentication)
    }

    /// Encodes the response as JSON (sorted keys, nil members left out).
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` when a value cannot be encoded.
    package func jsonData() throws(WebAuthnError) -> Data {
        try WebAuthnJSONCoding.encode(self, root: "AuthenticationResponseJSON")
    }
}

extension PublicKeyCredentialCreationOptionsJSON {
    /// Decodes creation options from JSON.
    /// - Parameter jsonData: the JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the failing member.
    init(jsonData: Data) throws(WebAuthnError) {
        self = try WebAuthnJSONCoding.decode(Self.self, from: [UInt8](jsonData)[...], root: "PublicKeyCredentialCreationOptionsJSON")
    }
}

extension PublicKeyCredentialRequestOptionsJSON {
    /// Decodes request options from JSON.
    /// - Parameter jsonData: the JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the failing member.
    init(jsonData: Data) throws(WebAuthnError) {
        self = try WebAuthnJSONCoding.decode(Self.self, from: [UInt8](jsonData)[...], root: "PublicKeyCredentialRequestOptionsJSON")
    }
}

extension PublicKeyCredentialRequestOptionsJSON {
    /// Encodes the options as JSON for the client: the document `JSONEncoder` makes of them with
    /// sorted keys (nil members left out), written directly.
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` when an extension value cannot be
    ///   encoded (a number that is not finite).
    public func jsonData() throws(WebAuthnError) -> Data {
        var writer = JSONTextWriter()
        try writer.object { (writer) throws(WebAuthnError) in
            try writer.member("allowCredentials", allowCredentials)
            writer.member("challenge", challenge.base64URL)
            try writer.member("extensions", extensions)
            try writer.member("hints", hints)
            writer.member("rpId", rpId)
            writer.member("timeout", timeout)
            writer.member("userVerification", userVerification)
        }
        return Data(writer.bytes)
    }
}

extension PublicKeyCredentialCreationOptionsJSON {
    /// Encodes the options as JSON for the client: the document `JSONEncoder` makes of them with
    /// sorted keys (nil members left out), written directly.
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` with category `malformed` when an extension value cannot be
    ///   encoded (a number that is not finite).
    public func jsonData() throws(WebAuthnError) -> Data {
        var writer = JSONTextWriter()
        try writer.object { (writer) throws(WebAuthnError) in
            writer.member("attestation", attestation)
            try writer.member("attestationFormats", attestationFormats) { (writer, formats) throws(WebAuthnError) in
                try writer.array(formats) { (writer, format) throws(WebAuthnError) in writer.string(format) }
            }
            try writer.member("authenticatorSelection", authenticatorSelection) { (writer, selection) throws(WebAuthnError) in
                try writer.object { (writer) throws(WebAuthnError) in
                    writer.member("authenticatorAttachment", selection.authenticatorAttachment)
                    writer.member("requireResidentKey", selection.requireResidentKey)
                    writer.member("residentKey", selection.residentKey)
                    writer.member("userVerification", selection.userVerification)
                }
            }
            writer.member("challenge", challenge.base64URL)
            try writer.member("excludeCredentials", excludeCredentials)
            try writer.member("extensions", extensions)
            try writer.member("hints", hints)
            try writer.member("pubKeyCredParams", pubKeyCredParams) { (writer, parameters) throws(WebAuthnError) in
                try writer.array(parameters) { (writer, parameter) throws(WebAuthnError) in
                    try writer.object { (writer) throws(WebAuthnError) in
                        writer.key("alg")
                        writer.integer(parameter.alg)
                        writer.member("type", parameter.type)
                    }
                }
            }
            try writer.member("rp", rp) { (writer, rp) throws(WebAuthnError) in
                try writer.object { (writer) throws(WebAuthnError) in
                    writer.member("id", rp.id)
                    writer.member("name", rp.name)
                }
            }
            writer.member("timeout", timeout)
            try writer.member("user", user) { (writer, user) throws(WebAuthnError) in
                try writer.object { (writer) throws(WebAuthnError) in
                    writer.member("displayName", user.displayName)
                    writer.member("id", user.id.base64URL)
                    writer.member("name", user.name)
                }
            }
        }
        return Data(writer.bytes)
    }
}

extension JSONValue {
    /// Reads a JSON document with the library's strict reader, the one that reads every
    /// response: a member name given twice in an object, invalid UTF-8, nesting deeper than 32
    /// levels or bytes after the value are refused. For a server's own request bodies (an
    /// options request, say), so that which of two values counts is never left to a decoder.
    /// - Parameter jsonData: the document.
    /// - Throws: ``WebAuthnError`` `malformed`, naming the byte offset and the reason.
    public init(jsonData: Data) throws(WebAuthnError) {
        do {
            self = try JSONReader.parse(Array(jsonData)[...])
        } catch {
            throw WebAuthnError(.malformed, "\(error)")
        }
    }
    /// Writes the value as JSON with the library's writer, the one that writes the options:
    /// each object's members in name order, strings escaped as `JSON.stringify` escapes them,
    /// whole numbers without a fraction. What the strict reader reads back is this value. For a
    /// server's own small documents (a signed cookie's payload, an answer), without
    /// `JSONEncoder`'s boxing.
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` `malformed` for a number JSON cannot carry (NaN, an infinity).
    public func jsonData() throws(WebAuthnError) -> Data {
        var writer = JSONTextWriter()
        do { try writer.value(self) } catch { throw WebAuthnError(.malformed, "\(error)") }
        return Data(writer.bytes)
    }
}
