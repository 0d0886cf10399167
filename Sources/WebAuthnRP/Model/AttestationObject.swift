import WebAuthnCoding

/// A parsed attestation object (WebAuthn Level 3 §6.5.4): the CBOR map
/// `{ "fmt": text, "attStmt": map (an array for `compound`), "authData": bytes }`.
///
/// Exactly those three text keys are accepted, each once, and nothing may follow
/// the map. Canonical CBOR form is not required, since real authenticators do not
/// always produce it.
struct AttestationObject: Sendable {
    /// The attestation statement format identifier, for example `packed` or `none`.
    let format: String
    /// The attestation statement (`attStmt`): a CBOR map whose shape depends on ``format``,
    /// or for `compound` an array of `{fmt, attStmt}` maps.
    let statement: CBORItem
    /// The authenticator data, parsed over the byte string inside the object.
    let authenticatorData: AuthenticatorData
    /// Exactly the bytes received.
    let rawBytes: ArraySlice<UInt8>

    /// Parses an attestation object in place.
    /// - Parameters:
    ///   - bytes: the received bytes.
    ///   - unannouncedExtensions: passed to the authenticator data parser (App Attest only).
    /// - Throws: ``WebAuthnError`` with category `malformed`: bytes that are not one CBOR
    ///   map, a missing, extra, duplicate or mistyped member, trailing bytes, or
    ///   authenticator data that does not parse.
    init(
        bytes: ArraySlice<UInt8>,
        unannouncedExtensions: AuthenticatorData.UnannouncedExtensions = .refused
    ) throws(WebAuthnError) {
        let map = try TextKeyedMap(bytes, keys: ["fmt", "attStmt", "authData"], in: "attestation object")
        let format = try map.text("fmt")
        let statement = try map.member("attStmt")
        let authData = try map.byteString("authData")
        // attStmt's type belongs to the format (§6.5.4): a map for every format, except
        // compound's array of statements (§8.9). fmt may come after attStmt, so check here.
        if format == "compound" {
            guard statement.array != nil else {
                throw WebAuthnError(.malformed, "attestation object: a compound attStmt is not an array")
            }
        } else if statement.mapEntries == nil {
            throw WebAuthnError(.malformed, "attestation object: attStmt is not a map")
        }
        self.format = format
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(bytes: authData, unannouncedExtensions: unannouncedExtensions)
        self.rawBytes = bytes
    }

    /// Parses an attestation object held in an array.
    /// - Parameter bytes: the received bytes.
    /// - Throws: as ``init(bytes:)-(ArraySlice<UInt8>)``.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(bytes: bytes[...])
    }

}

/// A CBOR message that is one map of text keys, each once (an attestation object, an App Attest
/// assertion): decoded whole, every key one of those named, each member read by name and type.
struct TextKeyedMap {
    private let entries: [CBORMapEntry]
    /// What the message is, for error messages ("attestation object").
    private let context: String

    /// Decodes `bytes` as one map whose keys are all among `keys` (the decoder has already
    /// refused a repeated key and trailing bytes).
    /// - Throws: `malformed`: not one CBOR item, not a map, or a key that is not one of `keys`.
    init(_ bytes: ArraySlice<UInt8>, keys: [String], in context: String) throws(WebAuthnError) {
        let item: CBORItem
        do {
            item = try CBOR.decode(bytes)
        } catch {
            throw WebAuthnError(.malformed, "\(context): \(error)")
        }
        guard let entries = item.mapEntries else {
            throw WebAuthnError(.malformed, "\(context): the top-level item is not a CBOR map")
        }
        for entry in entries {
            guard let key = entry.key.text else {
                throw WebAuthnError(.malformed, "\(context): a map key is not a text string")
            }
            guard keys.contains(key) else {
                throw WebAuthnError(.malformed, "\(context): unexpected key \"\(Self.printable(key))\"")
            }
        }
        self.entries = entries
        self.context = context
    }

    /// The member named `key`. - Throws: `malformed` when it is missing.
    func member(_ key: String) throws(WebAuthnError) -> CBORItem {
        guard let entry = entries.first(where: { $0.key.text == key }) else {
            throw WebAuthnError(.malformed, "\(context): \(key) is missing")
        }
        return entry.value
    }

    /// The byte string named `key`. - Throws: `malformed` when it is missing or not bytes.
    func byteString(_ key: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        guard let bytes = try member(key).bytes else { throw WebAuthnError(.malformed, "\(context): \(key) is not a byte string") }
        return bytes
    }

    /// The text string named `key`. - Throws: `malformed` when it is missing or not text.
    func text(_ key: String) throws(WebAuthnError) -> String {
        guard let text = try member(key).text else { throw WebAuthnError(.malformed, "\(context): \(key) is not a text string") }
        return text
    }

    /// A key for an error message: at most 40 characters, controls escaped.
    private static func printable(_ key: String) -> String {
        let shortened = key.unicodeScalars.prefix(40)
        var out = ""
        for s in shortened { out += s.value < 0x20 || s.value == 0x7f ? "\\u{\(String(s.value, radix: 16))}" : String(s) }
        return key.unicodeScalars.count > 40 ? out + "…" : out
    }
}

/// The `attestation-object` fuzz target's entry: parses the input and holds an accepted object,
/// where its members are, to the parser's promises: its raw bytes are the input, and its fmt,
/// attStmt and authData are the members a plain CBOR decode of the input finds.
package enum AttestationObjectReading {
    /// Parses `bytes` as an attestation object.
    /// - Parameter bytes: the input.
    /// - Returns: the object's format, encoded statement and authenticator data, or the parser's
    ///   error; and each promise an accepted object broke, as (property, detail).
    package static func read(
        _ bytes: ArraySlice<UInt8>
    ) -> (
        reading: Result<(format: String, statement: [UInt8], authenticatorData: AuthenticatorData), WebAuthnError>,
        broken: [(property: String, detail: String)]
    ) {
        let object: AttestationObject
        do throws(WebAuthnError) {
            object = try AttestationObject(bytes: bytes)
        } catch {
            return (.failure(error), [])
        }
        func hex(_ bytes: some Collection<UInt8>) -> String {
            bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        var broken: [(property: String, detail: String)] = []
        if !object.rawBytes.elementsEqual(bytes) {
            broken.append(("rawBytes are the input", "\(object.rawBytes.count) bytes"))
        }
        let map = try? CBOR.decode(bytes)
        if map?[textKey: "fmt"]?.text != object.format {
            broken.append(("fmt is the map's fmt member", object.format))
        }
        if map?[textKey: "attStmt"] != object.statement {
            broken.append(("attStmt is the map's attStmt member", hex(object.statement.encodedBytes)))
        }
        if map?[textKey: "authData"]?.bytes?.elementsEqual(object.authenticatorData.rawBytes) != true {
            broken.append(("authData is the map's authData member", hex(object.authenticatorData.rawBytes)))
        }
        return (.success((object.format, Array(object.statement.encodedBytes), object.authenticatorData)), broken)
    }
}
