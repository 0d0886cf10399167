import WebAuthnCoding
/// Parsed `clientDataJSON` (WebAuthn Level 3 §5.8.1).
///
/// The bytes are parsed (`CollectedClientData+JSON.swift`) by a strict JSON reader: valid UTF-8 (an optional leading
/// byte order mark is skipped), one JSON object, no duplicate members, `type`,
/// `challenge` and `origin` present as strings, `crossOrigin` a boolean and
/// `topOrigin` a string when present. Other members are parsed and ignored.
public struct CollectedClientData: Sendable {
    /// `webauthn.create` or `webauthn.get` (compared by the ceremony, not here).
    public let type: String
    /// The challenge as the client sent it: base64url text.
    public var challenge: String { String(decoding: challengeUTF8, as: UTF8.self) }
    /// The origin of the calling document.
    public var origin: String { String(decoding: originUTF8, as: UTF8.self) }
    /// ``challenge``'s UTF-8. Read from text without escapes, a slice of ``rawBytes``: the
    /// ceremony compares and decodes these bytes, and no string is made unless one is read.
    let challengeUTF8: ArraySlice<UInt8>
    /// ``origin``'s UTF-8, kept as ``challengeUTF8`` is.
    let originUTF8: ArraySlice<UInt8>
    /// Whether the ceremony ran in a cross-origin frame, when the client said.
    public let crossOrigin: Bool?
    /// The top-level origin of a cross-origin ceremony, when the client said.
    public let topOrigin: String?
    /// Exactly the bytes received (BOM included); the client data hash is over these.
    package let rawBytes: ArraySlice<UInt8>

    /// The largest `clientDataJSON` accepted, in bytes.
    static let maximumLength = 64 * 1024
    /// Deepest JSON nesting accepted inside `clientDataJSON`.
    static let maximumDepth = 32

    /// The parsed members, with the bytes they came from (the JSON readers in `JSON/` build it).
    init(type: String, challenge: ArraySlice<UInt8>, origin: ArraySlice<UInt8>, crossOrigin: Bool?, topOrigin: String?,
         rawBytes: ArraySlice<UInt8>) {
        self.type = type
        self.challengeUTF8 = challenge
        self.originUTF8 = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
        self.rawBytes = rawBytes
    }

    /// Decodes ``challenge`` from base64url.
    /// - Returns: the challenge bytes.
    /// - Throws: ``WebAuthnError`` with category `malformed` when the challenge is not
    ///   strict unpadded base64url.
    package func decodedChallenge() throws(WebAuthnError) -> [UInt8] {
        do {
            return try Base64URL.decode(utf8: challengeUTF8)
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON: challenge: \(error)")
        }
    }
}
