import Testing
import WebAuthnCoding

@testable import WebAuthnRP

@Suite("Attestation object")
struct AttestationObjectTests {
    static let authData: [UInt8] = {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [0xC1, 0xC2, 0xC3, 0xC4]
        return builder.bytes()
    }()

    static func text(_ s: String) -> [UInt8] { CBOREncoder.encode(CBORItem.text(s)) }
    static func bytes(_ b: [UInt8]) -> [UInt8] { CBOREncoder.encode(CBORItem.bytes(b)) }
    static let emptyMap: [UInt8] = [0xA0]

    /// A map (fewer than 24 pairs) from encoded key/value pairs, in the order given.
    static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] {
        return [0xA0 | UInt8(pairs.count)] + pairs.flatMap { $0.0 + $0.1 }
    }

    static let fmt = (text("fmt"), text("none"))
    static let attStmt = (text("attStmt"), emptyMap)
    static let authDataPair = (text("authData"), bytes(authData))

    @Test("a valid object parses; authData is parsed in place inside it")
    func valid() throws {
        let object = Self.map([Self.fmt, Self.attStmt, Self.authDataPair])
        let parsed = try AttestationObject(bytes: object[...])
        #expect(parsed.format == "none")
        #expect(parsed.statement.mapEntries?.isEmpty == true)
        #expect(Array(parsed.rawBytes) == object)
        #expect(Array(parsed.authenticatorData.rawBytes) == Self.authData)
        // authData is a slice of the object's bytes, ending where the object ends.
        #expect(parsed.authenticatorData.rawBytes.endIndex == object.count)
        #expect(parsed.authenticatorData.attestedCredentialData.map { Array($0.credentialId) } == [0xC1, 0xC2, 0xC3, 0xC4])
    }

    @Test("member order is free (canonical form is not required)")
    func anyOrder() throws {
        let object = Self.map([Self.authDataPair, Self.fmt, Self.attStmt])
        #expect(try AttestationObject(bytes: object).format == "none")
    }

    @Test("a packed-style statement is kept as its CBOR map")
    func statementKept() throws {
        let statement = CBOREncoder.encode(CBORItem.map([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1, 2, 3]))]))
        let object = Self.map([(Self.text("fmt"), Self.text("packed")), (Self.text("attStmt"), statement), Self.authDataPair])
        let parsed = try AttestationObject(bytes: object)
        #expect(parsed.format == "packed")
        #expect(parsed.statement[textKey: "alg"]?.int == -7)
        #expect(Array(parsed.statement.encodedBytes) == statement)
    }

    @Test("a missing member is malformed", arguments: ["fmt", "attStmt", "authData"])
    func missing(member: String) {
        let pairs = [Self.fmt, Self.attStmt, Self.authDataPair].filter { $0.0 != Self.text(member) }
        let object = Self.map(pairs)
        expectMalformed(mentioning: "\(member) is missing") { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
    }

    @Test("an extra member is malformed, whatever its key")
    func extra() {
        for key in [Self.text("extra"), CBOREncoder.encode(CBORItem.int(1)), Self.bytes([0x66, 0x6D, 0x74])] {
            let object = Self.map([Self.fmt, Self.attStmt, Self.authDataPair, (key, Self.text("x"))])
            expectMalformed { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
        }
        let named = Self.map([Self.fmt, Self.attStmt, Self.authDataPair, (Self.text("ep"), [0xF5])])
        expectMalformed(mentioning: "unexpected key \"ep\"") { () throws(WebAuthnError) in try AttestationObject(bytes: named) }
    }

    @Test(
        "a mistyped member is malformed",
        arguments: [
            ("fmt", AttestationObjectTests.bytes(Array("none".utf8)), "fmt is not a text string"),
            ("fmt", [0x01], "fmt is not a text string"),
            ("attStmt", [0x80], "attStmt is not a map"),
            ("attStmt", [0xF6], "attStmt is not a map"),
            ("authData", AttestationObjectTests.text("bytes"), "authData is not a byte string"),
            ("authData", [0x80], "authData is not a byte string"),
        ] as [(String, [UInt8], String)])
    func mistyped(member: String, value: [UInt8], mention: String) {
        let pairs = [Self.fmt, Self.attStmt, Self.authDataPair].map { $0.0 == Self.text(member) ? ($0.0, value) : $0 }
        let object = Self.map(pairs)
        expectMalformed(mentioning: mention) { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
    }

    @Test("a compound attStmt is an array (§8.9); any other format's array, or a compound map, is malformed")
    func compoundStatementType() throws {
        let compound = (Self.text("fmt"), Self.text("compound"))
        let array = (Self.text("attStmt"), [UInt8]([0x80]))
        let parsed = try AttestationObject(bytes: Self.map([compound, array, Self.authDataPair]))
        #expect(parsed.format == "compound" && parsed.statement.array?.isEmpty == true)
        // attStmt before fmt: the type is still checked against the format.
        #expect(throws: Never.self) { try AttestationObject(bytes: Self.map([array, compound, Self.authDataPair])) }
        expectMalformed(mentioning: "a compound attStmt is not an array") { () throws(WebAuthnError) in
            try AttestationObject(bytes: Self.map([compound, Self.attStmt, Self.authDataPair]))
        }
        expectMalformed(mentioning: "attStmt is not a map") { () throws(WebAuthnError) in
            try AttestationObject(bytes: Self.map([array, Self.fmt, Self.authDataPair]))
        }
    }

    @Test("bytes after the object are malformed")
    func trailing() {
        let object = Self.map([Self.fmt, Self.attStmt, Self.authDataPair]) + [0x00]
        expectMalformed(mentioning: "trailing") { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
    }

    @Test("a duplicate key is malformed")
    func duplicate() {
        let object = Self.map([Self.fmt, Self.attStmt, Self.authDataPair, Self.fmt])
        expectMalformed(mentioning: "duplicate") { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
    }

    @Test("a top level that is not a map, or not CBOR, is malformed")
    func notAMap() {
        let array = CBOREncoder.encode(CBORItem.array([.text("fmt"), .text("none")]))
        expectMalformed(mentioning: "not a CBOR map") { () throws(WebAuthnError) in try AttestationObject(bytes: array) }
        expectMalformed { () throws(WebAuthnError) in try AttestationObject(bytes: []) }
        expectMalformed { () throws(WebAuthnError) in try AttestationObject(bytes: [0xFF]) }
    }

    @Test("authenticator data that does not parse makes the object malformed")
    func badAuthData() {
        let object = Self.map([Self.fmt, Self.attStmt, (Self.text("authData"), Self.bytes([UInt8](repeating: 0, count: 36)))])
        expectMalformed(mentioning: "authenticator data") { () throws(WebAuthnError) in try AttestationObject(bytes: object) }
    }

    static let w3cNone =
        "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikv6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVZAAAAAIRGzLmrHbN0dQsjZ_9vOh8AIPkf"
        + "OR20ybL94OpwGJy6P7Y_V5umEiszrZT_PsMwCEvkpQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6yScM6m2cvJt9hIlggkwpWuHovymYzSwNF"
        + "ir-HlxfBLMaO1zKQry4mZHlrkiA"

    @Test("the W3C none-ES256 attestation object parses, and every truncation of it is malformed")
    func w3cVector() throws {
        let bytes = try Base64URL.decode(Self.w3cNone)
        let parsed = try AttestationObject(bytes: bytes)
        #expect(parsed.format == "none")
        #expect(parsed.authenticatorData.attestedCredentialData?.credentialId.count == 32)
        for length in 0..<bytes.count {
            expectMalformed("prefix of \(length) bytes") { () throws(WebAuthnError) in try AttestationObject(bytes: bytes[0..<length]) }
        }
    }

    @Test("random byte mutations of a valid object parse or fail as malformed, never crash")
    func mutations() throws {
        let original = try Base64URL.decode(Self.w3cNone)
        var random = SplitMix64(seed: 0x5EED_0001)
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0...(random.next() % 4) {
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            do {
                _ = try AttestationObject(bytes: bytes)
                accepted += 1
            } catch {
                #expect(error.category == .malformed)
            }
        }
        #expect(accepted < 3000)  // most mutations hit a structural byte or a key
    }
}

/// A small deterministic generator (SplitMix64) so mutation tests are reproducible.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
