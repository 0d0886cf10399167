import Testing

@testable import WebAuthnCoding

/// One example of RFC 8949 Appendix A (Table 6): the encoding, the value it
/// denotes, and whether the encoding is the preferred serialization, i.e. what
/// ``CBOREncoder`` must reproduce byte for byte.
struct AppendixAExample: Sendable, CustomTestStringConvertible {
    let hex: String
    let value: CBORValue
    /// False for the examples that are valid but not in preferred form:
    /// float32/float64 encodings of values a half float holds, and every
    /// indefinite-length encoding.
    let preferred: Bool
    var testDescription: String { hex }

    init(_ hex: String, _ value: CBORValue, preferred: Bool = true) {
        self.hex = hex
        self.value = value
        self.preferred = preferred
    }
}

/// RFC 8949 Appendix A, every example, in the order of the RFC. (RFC 7049's
/// `simple(24)` = `0xf818` is not here: RFC 8949 removed it, erratum 5917, and it is
/// tested as a rejection in ``HostileInputTests``.)
let appendixA: [AppendixAExample] = [
    // Integers.
    .init("00", u(0)),
    .init("01", u(1)),
    .init("0a", u(10)),
    .init("17", u(23)),
    .init("1818", u(24)),
    .init("1819", u(25)),
    .init("1864", u(100)),
    .init("1903e8", u(1000)),
    .init("1a000f4240", u(1_000_000)),
    .init("1b000000e8d4a51000", u(1_000_000_000_000)),
    .init("1bffffffffffffffff", u(18_446_744_073_709_551_615)),
    .init("c249010000000000000000", tag(2, bytes("010000000000000000"))),  // 18446744073709551616
    .init("3bffffffffffffffff", neg(UInt64.max)),  // -18446744073709551616
    .init("c349010000000000000000", tag(3, bytes("010000000000000000"))),  // -18446744073709551617
    .init("20", int(-1)),
    .init("29", int(-10)),
    .init("3863", int(-100)),
    .init("3903e7", int(-1000)),
    // Floats.
    .init("f90000", float(0.0)),
    .init("f98000", float(-0.0)),
    .init("f93c00", float(1.0)),
    .init("fb3ff199999999999a", float(1.1)),
    .init("f93e00", float(1.5)),
    .init("f97bff", float(65504.0)),
    .init("fa47c35000", float(100_000.0)),
    .init("fa7f7fffff", float(3.4028234663852886e+38)),
    .init("fb7e37e43c8800759c", float(1.0e+300)),
    .init("f90001", float(5.960464477539063e-8)),
    .init("f90400", float(0.00006103515625)),
    .init("f9c400", float(-4.0)),
    .init("fbc010666666666666", float(-4.1)),
    .init("f97c00", float(.infinity)),
    .init("f97e00", float(.nan)),
    .init("f9fc00", float(-.infinity)),
    .init("fa7f800000", float(.infinity), preferred: false),
    .init("fa7fc00000", float(.nan), preferred: false),
    .init("faff800000", float(-.infinity), preferred: false),
    .init("fb7ff0000000000000", float(.infinity), preferred: false),
    .init("fb7ff8000000000000", float(.nan), preferred: false),
    .init("fbfff0000000000000", float(-.infinity), preferred: false),
    // Simple values.
    .init("f4", .bool(false)),
    .init("f5", .bool(true)),
    .init("f6", .null),
    .init("f7", .undefined),
    .init("f0", .simple(16)),
    .init("f8ff", .simple(255)),
    // Tags.
    .init("c074323031332d30332d32315432303a30343a30305a", tag(0, text("2013-03-21T20:04:00Z"))),
    .init("c11a514b67b0", tag(1, u(1_363_896_240))),
    .init("c1fb41d452d9ec200000", tag(1, float(1_363_896_240.5))),
    .init("d74401020304", tag(23, bytes("01020304"))),
    .init("d818456449455446", tag(24, bytes("6449455446"))),
    .init("d82076687474703a2f2f7777772e6578616d706c652e636f6d", tag(32, text("http://www.example.com"))),
    // Strings.
    .init("40", bytes("")),
    .init("4401020304", bytes("01020304")),
    .init("60", text("")),
    .init("6161", text("a")),
    .init("6449455446", text("IETF")),
    .init("62225c", text("\"\\")),
    .init("62c3bc", text("\u{00fc}")),
    .init("63e6b0b4", text("\u{6c34}")),
    .init("64f0908591", text("\u{10151}")),
    // Arrays and maps.
    .init("80", array([])),
    .init("83010203", array([u(1), u(2), u(3)])),
    .init("8301820203820405", array([u(1), array([u(2), u(3)]), array([u(4), u(5)])])),
    .init("98190102030405060708090a0b0c0d0e0f101112131415161718181819", array((1...25).map { u($0) })),
    .init("a0", map([])),
    .init("a201020304", map([(u(1), u(2)), (u(3), u(4))])),
    .init("a26161016162820203", map([(text("a"), u(1)), (text("b"), array([u(2), u(3)]))])),
    .init("826161a161626163", array([text("a"), map([(text("b"), text("c"))])])),
    .init(
        "a56161614161626142616361436164614461656145",
        map([
            (text("a"), text("A")), (text("b"), text("B")), (text("c"), text("C")),
            (text("d"), text("D")), (text("e"), text("E")),
        ])),
    // Indefinite lengths: valid, never preferred.
    .init("5f42010243030405ff", bytes("0102030405"), preferred: false),
    .init("7f657374726561646d696e67ff", text("streaming"), preferred: false),
    .init("9fff", array([]), preferred: false),
    .init("9f018202039f0405ffff", array([u(1), array([u(2), u(3)]), array([u(4), u(5)])]), preferred: false),
    .init("9f01820203820405ff", array([u(1), array([u(2), u(3)]), array([u(4), u(5)])]), preferred: false),
    .init("83018202039f0405ff", array([u(1), array([u(2), u(3)]), array([u(4), u(5)])]), preferred: false),
    .init("83019f0203ff820405", array([u(1), array([u(2), u(3)]), array([u(4), u(5)])]), preferred: false),
    .init("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", array((1...25).map { u($0) }), preferred: false),
    .init("bf61610161629f0203ffff", map([(text("a"), u(1)), (text("b"), array([u(2), u(3)]))]), preferred: false),
    .init("826161bf61626163ff", array([text("a"), map([(text("b"), text("c"))])]), preferred: false),
    .init("bf6346756ef563416d7421ff", map([(text("Fun"), .bool(true)), (text("Amt"), int(-2))]), preferred: false),
]

@Suite("RFC 8949 Appendix A")
struct AppendixATests {
    @Test("the table holds all 81 examples of RFC 8949 Appendix A")
    func tableIsComplete() {
        #expect(appendixA.count == 81)
        #expect(appendixA.filter(\.preferred).count == 64)
    }

    @Test("every example decodes to its value", arguments: appendixA)
    func decodes(_ example: AppendixAExample) throws {
        let input = hex(example.hex)
        let item = try CBOR.decode(input)
        #expect(identical(item.value, example.value), "decoded \(item.value)")
        #expect(Array(item.encodedBytes) == input, "encodedBytes must be the whole input")
    }

    @Test("preferred examples re-encode to the same bytes", arguments: appendixA.filter(\.preferred))
    func roundTrips(_ example: AppendixAExample) throws {
        let input = hex(example.hex)
        let item = try CBOR.decode(input)
        #expect(hexString(CBOREncoder.encode(item)) == example.hex)
        #expect(hexString(CBOREncoder.encode(example.value)) == example.hex)
    }

    @Test("preferred examples pass the canonical decoder", arguments: appendixA.filter(\.preferred))
    func canonicalAccepts(_ example: AppendixAExample) throws {
        let item = try CBOR.decode(hex(example.hex), options: .ctap2Canonical)
        #expect(identical(item.value, example.value))
    }

    @Test(
        "non-preferred examples re-encode to the preferred form of the same value",
        arguments: appendixA.filter { !$0.preferred })
    func nonPreferredReencode(_ example: AppendixAExample) throws {
        let item = try CBOR.decode(hex(example.hex))
        let reencoded = CBOREncoder.encode(item)
        #expect(hexString(reencoded) != example.hex)
        #expect(reencoded.count <= hex(example.hex).count)
        #expect(reencoded == CBOREncoder.encode(example.value))
        // The preferred form is accepted by the canonical decoder (map keys sorted).
        let again = try CBOR.decode(reencoded, options: .ctap2Canonical)
        #expect(CBOREncoder.encode(again) == reencoded)
    }

    /// Drip-feed: no proper prefix of a well-formed item is itself an item, so
    /// each must be refused. The code is `truncated` when the input ends inside a
    /// head, an argument or before a break, and `limit` when a complete head
    /// declares a length or count larger than the bytes left (the decoder checks
    /// declared sizes against the remaining input before reading or allocating).
    @Test("every proper prefix of every example is refused as truncated or limit", arguments: appendixA)
    func dripFeed(_ example: AppendixAExample) {
        let input = hex(example.hex)
        for length in 0..<input.count {
            let prefix = Array(input[..<length])
            for options in [CBORDecodingOptions.default, .ctap2Canonical] {
                let code = decodeErrorCode(prefix, options: options)
                if options.requireCanonical && !example.preferred && code == .nonCanonical { continue }
                #expect(
                    code == .truncated || code == .limit,
                    "prefix \(hexString(prefix)) gave \(String(describing: code))")
            }
            // decodePrefix must refuse it the same way: nothing complete is there.
            #expect(throws: CBORError.self) { _ = try CBOR.decodePrefix(prefix[...]) }
        }
    }

    @Test("prefixes: a short head is truncated, an oversized declared length is limit")
    func dripFeedCodes() {
        #expect(decodeErrorCode([]) == .truncated)
        #expect(decodeErrorCode(hex("19 03")) == .truncated)  // 2-byte argument cut
        #expect(decodeErrorCode(hex("fb 3f f1 99")) == .truncated)  // float64 cut
        #expect(decodeErrorCode(hex("44 01 02")) == .limit)  // h'01020304' cut: length 4, 2 left
        #expect(decodeErrorCode(hex("83 01 02")) == .limit)  // 3 elements, 2 bytes left
        #expect(decodeErrorCode(hex("83 01 82 02 03")) == .truncated)  // count fits, third item missing
        #expect(decodeErrorCode(hex("a2 01 02 03")) == .limit)  // 2 pairs need >= 4 bytes
        #expect(decodeErrorCode(hex("9f 01 02")) == .truncated)  // no break
        #expect(decodeErrorCode(hex("5f 42 01 02")) == .truncated)  // no break after a chunk
        #expect(decodeErrorCode(hex("5f 42 01")) == .limit)  // chunk longer than the rest
        #expect(decodeErrorCode(hex("c1")) == .truncated)  // tag without content
    }
}
