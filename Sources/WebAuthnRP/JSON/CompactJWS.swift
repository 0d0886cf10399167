import WebAuthnCoding
import WebAuthnCrypto

/// A JWS in compact serialization (RFC 7515 §7.1), as the SafetyNet attestation API
/// returns it: `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`, with the
/// signing certificate chain in the header's `x5c`.
struct CompactJWS: Sendable {
    /// Why a JWS was refused.
    struct ParseError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The protected header, a JSON object.
    let header: [String: JSONValue]
    /// The payload bytes.
    let payload: [UInt8]
    /// The signature bytes as transmitted (ECDSA: raw `r || s`).
    let signature: [UInt8]
    /// `ASCII(BASE64URL(header) || '.' || BASE64URL(payload))`: what was signed.
    let signingInput: [UInt8]

    /// Splits and decodes a compact JWS and parses its header.
    /// - Throws: ``ParseError`` for anything but three strict base64url parts whose
    ///   first decodes to a JSON object.
    init(_ bytes: ArraySlice<UInt8>) throws(ParseError) {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerPart = parts.first, let payloadPart = parts.dropFirst().first,
            let signaturePart = parts.last
        else {
            throw ParseError(reason: "JWS has \(parts.count) part(s), the compact serialization has 3")
        }
        let headerBytes = try Self.decodePart(headerPart, "header")
        payload = try Self.decodePart(payloadPart, "payload")
        signature = try Self.decodePart(signaturePart, "signature")
        guard !signature.isEmpty else { throw ParseError(reason: "JWS signature is empty") }
        let json: JSONValue
        do {
            json = try JSONReader.parse(headerBytes[...])
        } catch {
            throw ParseError(reason: "JWS header is not JSON: \(error)")
        }
        guard let object = json.objectValue else { throw ParseError(reason: "JWS header is not a JSON object") }
        header = object
        signingInput = Array(bytes[bytes.startIndex..<signaturePart.startIndex].dropLast())
    }

    private static func decodePart(_ part: ArraySlice<UInt8>, _ name: String) throws(ParseError) -> [UInt8] {
        guard !part.isEmpty else { throw ParseError(reason: "JWS \(name) is empty") }
        // Base64URL.decode rejects anything outside its alphabet, so non-ASCII bytes fail there too.
        do {
            return try Base64URL.decode(String(decoding: part, as: UTF8.self))
        } catch {
            throw ParseError(reason: "JWS \(name) is not base64url: \(error)")
        }
    }

    /// A JWS `alg` (RFC 7518 §3.1) this verifier accepts, with its COSE counterpart
    /// and, for ECDSA, the length of one coordinate of the raw `r || s` signature.
    struct Algorithm: Sendable {
        let name: String
        let cose: COSEAlgorithm
        let ecdsaCoordinateLength: Int?

        static let all: [Algorithm] = [
            Algorithm(name: "RS256", cose: .rs256, ecdsaCoordinateLength: nil),
            Algorithm(name: "RS384", cose: .rs384, ecdsaCoordinateLength: nil),
            Algorithm(name: "RS512", cose: .rs512, ecdsaCoordinateLength: nil),
            Algorithm(name: "PS256", cose: .ps256, ecdsaCoordinateLength: nil),
            Algorithm(name: "PS384", cose: .ps384, ecdsaCoordinateLength: nil),
            Algorithm(name: "PS512", cose: .ps512, ecdsaCoordinateLength: nil),
            Algorithm(name: "ES256", cose: .es256, ecdsaCoordinateLength: 32),
            Algorithm(name: "ES384", cose: .es384, ecdsaCoordinateLength: 48),
            Algorithm(name: "ES512", cose: .es512, ecdsaCoordinateLength: 66),
        ]

        /// The algorithm named `name` (case-sensitive, as RFC 7515 requires), or nil.
        static func named(_ name: String) -> Algorithm? { all.first { $0.name == name } }
    }

    /// The signature in the form the crypto layer verifies: unchanged for RSA, and for
    /// ECDSA the JWS `r || s` (RFC 7518 §3.4) re-encoded as a DER `ECDSA-Sig-Value`.
    /// - Throws: ``ParseError`` when an ECDSA signature is not exactly two coordinates long.
    func signatureForVerification(_ algorithm: Algorithm) throws(ParseError) -> [UInt8] {
        guard let coordinateLength = algorithm.ecdsaCoordinateLength else { return signature }
        do {
            return try ECDSASignature.derEncoded(raw: signature[...], coordinateLength: coordinateLength)
        } catch {
            throw ParseError(reason: "\(algorithm.name) signature: \(error.reason)")
        }
    }
}

/// Standard base64 (RFC 4648 §4, alphabet `+/`, with padding), which SafetyNet uses for
/// the `nonce` and the header's `x5c` entries, built on the strict base64url codec.
enum StandardBase64 {
    /// Why a standard base64 string was refused.
    struct DecodingError: Error, CustomStringConvertible {
        let reason: String
        var description: String { "base64: \(reason)" }
    }

    /// Encodes with padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes).map { character -> Character in
            switch character {
            case "-": return "+"
            case "_": return "/"
            default: return character
            }
        }
        while text.count % 4 != 0 { text.append("=") }
        return String(text)
    }

    /// Decodes strictly: only the standard alphabet, the exact padding, zero trailing bits.
    /// - Throws: ``DecodingError``.
    static func decode(_ text: String) throws(DecodingError) -> [UInt8] {
        var translated: [UInt8] = []
        translated.reserveCapacity(text.utf8.count)
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                throw DecodingError(reason: "character '\(Character(Unicode.Scalar(byte)))' at \(offset) is not in the standard alphabet")
            case UInt8(ascii: "+"): translated.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): translated.append(UInt8(ascii: "_"))
            default: translated.append(byte)
            }
        }
        guard translated.count % 4 == 0 else {
            throw DecodingError(reason: "length \(translated.count) is not padded to a multiple of 4")
        }
        do {
            return try Base64URL.decode(String(decoding: translated, as: UTF8.self), allowPadding: true)
        } catch {
            throw DecodingError(reason: error.reason)
        }
    }
}
