import WebAuthnCoding

/// How a `finish…` finds the challenge its response answers: what the server kept from
/// `begin…` (``CeremonyStart/challenge``), or that the client data names it.
///
/// `Codable`, so that it can ride in the server's session or signed cookie as it is: one short
/// string (`{"source":"s.<base64url challenge>"}`, `"c"` or `"t.<sealed token>"`), cheap to
/// encode and decode there on every ceremony.
public struct CeremonyChallenge: Sendable, Hashable, Codable {
    enum Source: Sendable, Hashable, Codable {
        case session([UInt8])
        case clientData
        case sealed(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if text == "c" {
                self = .clientData
            } else if text.hasPrefix("t.") {
                self = .sealed(String(text.dropFirst(2)))
            } else if text.hasPrefix("s."), let bytes = try? Base64URL.decode(String(text.dropFirst(2))) {
                self = .session(bytes)
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not a ceremony challenge (c, s.<base64url> or t.<token>)")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .session(let bytes): try container.encode("s." + Base64URL.encode(bytes))
            case .clientData: try container.encode("c")
            case .sealed(let token): try container.encode("t." + token)
            }
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
