import WebAuthnCoding

/// Bytes that travel in WebAuthn's JSON forms as unpadded base64url text
/// (`Base64URLString` in WebAuthn Level 3 §5.1).
///
/// Decoding is strict (see `Base64URL.decode(_:allowPadding:allowNonZeroTrailingBits:)`); a bad string makes
/// `Decodable` throw `DecodingError.dataCorrupted` at the member's coding path, which
/// the `init(jsonData:)` initializers turn into a `malformed` ``WebAuthnError``
/// naming the member.
public struct Base64URLBytes: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The decoded bytes.
    public let bytes: [UInt8]

    /// Wraps bytes.
    /// - Parameter bytes: the bytes.
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        self.bytes = Array(bytes)
    }

    /// Decodes base64url text.
    /// - Parameters:
    ///   - string: unpadded base64url.
    ///   - member: the member's name for the error message (for example `rawId`).
    /// - Throws: ``WebAuthnError`` with category `malformed` naming `member`.
    public init(base64URL string: String, member: String) throws(WebAuthnError) {
        do {
            self.bytes = try Base64URL.decode(string)
        } catch {
            throw WebAuthnError(.malformed, "\(member): \(error)")
        }
    }

    /// The unpadded base64url encoding.
    public var base64URL: String { Base64URL.encode(bytes) }

    /// Same as ``base64URL``.
    public var description: String { base64URL }

    /// Decodes from a JSON string.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not strict base64url.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self.bytes = try Base64URL.decode(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(Self.notBase64URL) (\(error))")
        }
    }

    /// How a decoding error for a member that is not base64url begins (the client is told so).
    static let notBase64URL = "not base64url"

    /// Encodes as an unpadded base64url JSON string.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64URL)
    }
}

extension Base64URLBytes {
    /// Decodes a binary member the relying party authored itself (an options challenge).
    /// Non-canonical trailing bits are tolerated there, since the value is the RP's own and
    /// the verifier compares the client's challenge with the canonical re-encoding anyway.
    static func decodeRelyingPartyValue<K: CodingKey>(
        from container: KeyedDecodingContainer<K>,
        forKey key: K
    ) throws -> Base64URLBytes {
        let text = try container.decode(String.self, forKey: key)
        do {
            return Base64URLBytes(try Base64URL.decode(text, allowNonZeroTrailingBits: true))
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not base64url (\(error))")
        }
    }
}
