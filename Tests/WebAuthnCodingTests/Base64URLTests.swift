import Testing

@testable import WebAuthnCoding

@Suite("Base64URL (RFC 4648 §5)")
struct Base64URLTests {
    /// RFC 4648 §10 test vectors, written in the base64url alphabet without padding.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 §10 vectors encode and decode")
    func rfcVectors() throws {
        for (plain, encoded) in Self.rfc4648 {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test("the same vectors with exact padding decode only when padding is allowed")
    func padding() throws {
        let padded = ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"]
        for ((plain, _), text) in zip(Self.rfc4648, padded) {
            #expect(try Base64URL.decode(text, allowPadding: true) == Array(plain.utf8))
            if text.contains("=") {
                #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(text) }
            }
        }
        // Unpadded input is still accepted when padding is allowed.
        #expect(try Base64URL.decode("Zg", allowPadding: true) == [0x66])
    }

    @Test(
        "padding that is not exactly RFC 4648's is refused even when allowed",
        arguments: [
            "Zg=", "Zg===", "Zm8==", "Zm9v=", "Zm9v====", "=", "==", "====", "Z===",
            "Zg=a", "Z=g=", "Zg==Zg==", "Zm9vYg=", "Zm8=Zm8=",
        ])
    func wrongPadding(_ text: String) {
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(text, allowPadding: true) }
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(text) }
    }

    @Test("padding is refused by default and the error points at the first '='")
    func paddingOffset() {
        do {
            _ = try Base64URL.decode("Zm8=")
            Issue.record("padding accepted")
        } catch {
            #expect(error.offset == 3)
            #expect(error.reason.contains("padding"))
        }
    }

    @Test("every byte value round-trips, at every length modulo 3")
    func allBytes() throws {
        let all = (0...255).map { UInt8($0) }
        for drop in 0..<3 {
            let input = Array(all.dropLast(drop))
            let encoded = Base64URL.encode(input)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(encoded.utf8.count == (input.count * 4 + 2) / 3)
            #expect(try Base64URL.decode(encoded) == input)
        }
        for b in all {
            #expect(try Base64URL.decode(Base64URL.encode([b])) == [b])
            #expect(try Base64URL.decode(Base64URL.encode([b, 0xff - b, b])) == [b, 0xff - b, b])
        }
        // The URL-safe characters are the ones for 62 and 63.
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
    }

    // (Lengths of 1 mod 4 are refused for their length before any character is
    // looked at, so these inputs avoid that length.)
    @Test(
        "characters outside the URL-safe alphabet are refused at their offset",
        arguments: [
            ("Zm9v+g", 4), ("Zm9v/g", 4), ("Zm 9", 2), (" Zm9", 0), ("Zm9v\n", 4), ("Zm\u{e9}", 2),
            ("Zm9v\u{0}A", 4), ("Zm.v", 2), ("\u{1F600}", 0),
        ] as [(String, Int)])
    func invalidCharacters(_ text: String, _ offset: Int) {
        do {
            let decoded = try Base64URL.decode(text, allowPadding: true)
            Issue.record("accepted \(text) as \(decoded)")
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test("a length of 1 mod 4 is refused", arguments: ["Z", "Zm9vY", "Zm9vYmFyZ", "A"])
    func impossibleLength(_ text: String) {
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(text) }
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(text, allowPadding: true) }
    }

    @Test("non-zero unused trailing bits are refused (one encoding per byte string)")
    func trailingBits() throws {
        #expect(try Base64URL.decode("Zg") == [0x66])
        for text in ["Zh", "Zi", "Zj", "Zk", "Zl", "Zm", "Zn", "Zo", "Zp", "Zq", "Zr", "Zs", "Zt", "Zu", "Zv", "Z_"] {
            #expect(throws: Base64URL.DecodingError.self, "\(text)") { try Base64URL.decode(text) }
        }
        #expect(try Base64URL.decode("Zm8") == [0x66, 0x6f])
        for text in ["Zm9", "Zm-", "Zm_", "Zm5"] {
            #expect(throws: Base64URL.DecodingError.self, "\(text)") { try Base64URL.decode(text) }
        }
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode("Zh==", allowPadding: true) }
        // Every one of the 4096 two-character strings decodes only when its low 4 bits are zero.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var accepted = 0
        for (i, a) in alphabet.enumerated() {
            for (j, b) in alphabet.enumerated() {
                let decoded = try? Base64URL.decode(String([a, b]))
                if let decoded {
                    accepted += 1
                    #expect(decoded == [UInt8(i << 2 | j >> 4)])
                }
                #expect((decoded != nil) == (j & 0x0f == 0))
            }
        }
        #expect(accepted == 256)
    }

    @Test("empty input decodes to no bytes")
    func empty() throws {
        #expect(try Base64URL.decode("") == [])
        #expect(try Base64URL.decode("", allowPadding: true) == [])
        #expect(Base64URL.encode([UInt8]()) == "")
    }

    @Test("the error's description names the offset")
    func description() {
        let error = Base64URL.DecodingError(offset: 7, reason: "x")
        #expect(error.description == "base64url at 7: x")
    }
}
