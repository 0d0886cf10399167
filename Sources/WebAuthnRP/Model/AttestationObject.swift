package import WebAuthnCoding

/// A parsed attestation object (WebAuthn Level 3 §6.5.4): the CBOR map
/// `{ "fmt": text, "attStmt": map (an array for `compound`), "authData": bytes }`.
///
/// Exactly those three text keys are accepted, each once, and nothing may follow
/// the map. Canonical CBOR form is not required, since real authenticators do not
/// always produce it.
package struct AttestationObject: Sendable {
    /// The attestation statement format identifier, for example `packed` or `none`.
    package let format: String
    /// The attestation statement (`attStmt`): a CBOR map whose shape depends on ``format``,
    /// or for `compound` an array of `{fmt, attStmt}` maps.
    package let statement: CBORItem
    /// The authenticator data, parsed over the byte string inside the object.
    package let authenticatorData: AuthenticatorData
    /// Exactly the bytes received.
    package let rawBytes: ArraySlice<UInt8>

    /// Parses an attestation object in place.
    /// - Parameters:
    ///   - bytes: the received bytes.
    ///   - unannouncedExtensions: passed to the authenticator data parser (App Attest only).
    /// - Throws: ``WebAuthnError`` with category `malformed`: bytes that are not one CBOR
    ///   map, a missing, extra, duplicate or mistyped member, trailing bytes, or
    ///   authenticator data that does not parse.
    package init(
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
