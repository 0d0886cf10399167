import WebAuthnCoding

/// How a `finish…` finds the challenge its response answers: what the server kept from
/// `begin…` (``CeremonyStart/challenge``), or that the client data names it.
///
/// Between `begin…` and `finish…` the server carries it as ``serialized``, one short string for
/// its session, a signed cookie or the state token an app sends back, and reads it with
/// ``init(serialized:)``. `Codable` writes the same text as its one member
/// (`{"source": "<serialized>"}`).
public struct CeremonyChallenge: Sendable, Hashable, Codable {
    enum Source: Sendable, Hashable, Codable {
        case session([UInt8])
        case clientData
        case sealed(String)

        /// Reads ``CeremonyChallenge/serialized``'s text, as ``CeremonyChallenge/init(serialized:)`` does.
        init(from decoder: any Decoder) throws {
            self = try CeremonyChallenge(serialized: try decoder.singleValueContainer().decode(String.self)).source
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(CeremonyChallenge(source: self).serialized)
        }
    }
    let source: Source

    /// The challenge bytes the server's session kept (with a stored challenge): the response
    /// must answer exactly this one.
    /// - Parameter challenge: the challenge bytes from the options.
    /// - Returns: the value.
    public static func session(_ challenge: [UInt8]) -> CeremonyChallenge {
        CeremonyChallenge(source: .session(challenge))
    }

    /// The response's client data names the challenge, which must be outstanding in the
    /// challenge store (a discoverable login whose server kept no session state).
    public static let fromClientData = CeremonyChallenge(source: .clientData)

    /// The token a sealed `begin…` handed to the client, as the client sent it back.
    /// - Parameter token: the sealed challenge.
    /// - Returns: the value.
    public static func sealed(_ token: String) -> CeremonyChallenge {
        CeremonyChallenge(source: .sealed(token))
    }
}

// The text form: `v1.s.<base64url challenge>`, `v1.c` or `v1.t.<sealed token>`.

extension CeremonyChallenge {
    /// The version prefix of the text form, written and required.
    static let textVersion = "v1."
    /// The longest text read: a sealed token at its longest, with its prefix. Longer input is
    /// refused before anything is decoded.
    static let maximumSerializedLength = textVersion.utf8.count + 2 + SealedChallengeKey.maximumTokenLength

    /// The value as one short string (ASCII, safe in a cookie or a URL): `v1.s.<base64url of
    /// the challenge>` for a stored challenge, `v1.t.<token>` for a sealed one, `v1.c` for
    /// ``fromClientData``. Keep it with the ceremony (in the server's session, or inside a state
    /// token the server signs) and read it back with ``init(serialized:)``.
    ///
    /// What `begin…` returns always reads back; a value made by hand reads back when its
    /// challenge is not empty and its token is base64url, at most 16,389 characters in all.
    public var serialized: String {
        switch source {
        case .session(let bytes): Self.textVersion + "s." + Base64URL.encode(bytes)
        case .clientData: Self.textVersion + "c"
        case .sealed(let token): Self.textVersion + "t." + token
        }
    }

    /// Reads the text ``serialized`` wrote. Strict: the version prefix, one of the three kinds,
    /// a challenge in canonical unpadded base64url (not empty), a token of base64url characters
    /// (not empty), and nothing else; at most 16,389 characters (a sealed token's longest and the
    /// prefix). The text
    /// is not trusted further than that: `finish…` still opens the token and consumes the challenge.
    /// - Parameter serialized: the text, as kept.
    /// - Throws: ``WebAuthnError`` ``WebAuthnError/Category/challenge`` (step `ceremony
    ///   challenge`) for anything else, saying what is wrong without repeating the input.
    public init(serialized: String) throws(WebAuthnError) {
        let text = serialized.utf8
        func refuse(_ reason: String) -> WebAuthnError {
            WebAuthnError(.challenge, step: "ceremony challenge", "the ceremony challenge text \(reason)")
        }
        guard text.count <= Self.maximumSerializedLength else {
            throw refuse("is longer than \(Self.maximumSerializedLength) characters")
        }
        guard text.starts(with: Self.textVersion.utf8) else { throw refuse("does not begin with \(Self.textVersion)") }
        let body = Substring(serialized).utf8.dropFirst(Self.textVersion.utf8.count)
        if body.elementsEqual("c".utf8) {
            self = .fromClientData
            return
        }
        let kind = body.prefix(2)
        let value = body.dropFirst(2)
        guard !value.isEmpty else { throw refuse("has no challenge or token") }
        if kind.elementsEqual("s.".utf8) {
            do throws(Base64URL.DecodingError) {
                self = .session(try Base64URL.decode(String(Substring(value))))
            } catch {
                throw refuse("holds a challenge that is not canonical base64url (\(error.reason) at \(error.offset))")
            }
        } else if kind.elementsEqual("t.".utf8) {
            guard value.allSatisfy(Self.isBase64URLCharacter) else { throw refuse("holds a token that is not base64url") }
            self = .sealed(String(Substring(value)))
        } else {
            throw refuse("is not v1.s.<challenge>, v1.t.<token> or v1.c")
        }
    }

    /// A character of the base64url alphabet (RFC 4648 §5), the only ones a sealed token has.
    private static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
