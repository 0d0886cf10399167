import Testing

@testable import WebAuthnCoding

/// The allocation-light paths added for speed agree with the general ones.
@Suite("Coding fast paths")
struct CodingFastPathTests {
    /// Every string of length 0...5 over a small alphabet that mixes valid characters,
    /// padding and characters outside the alphabet.
    static var candidates: [String] {
        let symbols = ["A", "Q", "g", "w", "-", "_", "8", "=", "+", "/", " "]
        var out = [""]
        var frontier = [""]
        for _ in 0..<4 {
            frontier = frontier.flatMap { prefix in symbols.map { prefix + $0 } }
            out += frontier
        }
        return out
    }

    @Test("decode(utf8:) gives exactly what decode(_:) gives, bytes or error, for every short string")
    func utf8DecodeAgrees() {
        for text in Self.candidates {
            let fromString = Result { () throws(Base64URL.DecodingError) in try Base64URL.decode(text) }
            let fromBytes = Result { () throws(Base64URL.DecodingError) in try Base64URL.decode(utf8: Array(text.utf8)[...]) }
            #expect(fromString == fromBytes, "\(text)")
        }
    }

    @Test("strict decoding refuses padding, foreign characters, impossible lengths and non-zero trailing bits")
    func strictRejections() throws {
        for bad in ["AA==", "A", "AB", "A+", "AA A", "AAB", "AAAAB"] {
            #expect(throws: Base64URL.DecodingError.self, "\(bad)") { try Base64URL.decode(utf8: Array(bad.utf8)[...]) }
        }
        #expect(try Base64URL.decode(utf8: Array("AAE".utf8)[...]) == [0, 1])
    }

    @Test("isEncoding(_:of:) is true exactly for the canonical encoding")
    func isEncodingMatchesEncode() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(Base64URL.isEncoding(encoded, of: bytes))
            #expect(!Base64URL.isEncoding(encoded + "A", of: bytes))
            if !encoded.isEmpty {
                #expect(!Base64URL.isEncoding(String(encoded.dropLast()), of: bytes))
                var changed = Array(encoded.utf8)
                changed[changed.count - 1] = changed[changed.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                #expect(!Base64URL.isEncoding(String(decoding: changed, as: UTF8.self), of: bytes))
            }
        }
        // A non-canonical spelling of the same bytes (set trailing bits) is not their encoding.
        #expect(!Base64URL.isEncoding("AAF", of: [0, 1]))
    }

    @Test(
        "text keys are the same key however their length is written; different texts are not",
        arguments: ["a2 6161 00 780161 01", "a2 780161 00 6161 01", "a3 6162 00 6161 00 790001 61 01"])
    func textKeyIdentity(_ input: String) throws {
        let bytes = input.split(separator: " ").flatMap { chunk in
            stride(from: 0, to: chunk.count, by: 2).compactMap { offset -> UInt8? in
                let start = chunk.index(chunk.startIndex, offsetBy: offset)
                return UInt8(chunk[start..<chunk.index(start, offsetBy: 2)], radix: 16)
            }
        }
        #expect(throws: CBORError.self) { try CBOR.decode(bytes[...]) }
        #expect((try? CBOR.decode(bytes[...])) == nil)
        var caught: CBORError?
        do { _ = try CBOR.decode(bytes[...]) } catch { caught = error }
        #expect(caught?.code == .duplicateKey)
        // The same map with distinct keys decodes.
        #expect(try CBOR.decode([0xa2, 0x61, 0x61, 0x00, 0x78, 0x01, 0x62, 0x01][...]).mapEntries?.count == 2)
    }
}

/// The common WebAuthn texts are returned as literals; every other text, including near
/// misses, embedded zero bytes and invalid UTF-8, takes the general path with the same result.
struct CommonTextTests {
    static func textItem(_ bytes: [UInt8]) -> [UInt8] { [0x60 | UInt8(bytes.count)] + bytes }

    @Test(
        "each common text and its near misses decode to exactly their own bytes",
        arguments: [
            "fmt", "attStmt", "authData", "none", "packed", "alg", "sig", "x5c", "tpm", "ver", "certInfo",
            "pubArea", "apple", "fido-u2f",
        ])
    func roundTrip(_ word: String) throws {
        var variants: [[UInt8]] = [Array(word.utf8)]
        var changed = Array(word.utf8)
        changed[changed.count - 1] ^= 0x01
        variants.append(changed)
        variants.append(Array(word.utf8.dropLast()))
        variants.append([0x00] + Array(word.utf8.dropFirst()))
        for bytes in variants {
            let item = try CBOR.decode(Self.textItem(bytes))
            #expect(item.text.map { Array($0.utf8) } == bytes)
        }
    }

    @Test("invalid UTF-8 of a common text's length is still refused")
    func invalid() {
        #expect(throws: CBORError.self) { try CBOR.decode(Self.textItem([0x66, 0xFF, 0x74])) }
    }
}
