import Testing

@testable import WebAuthnCoding

/// `requireCanonical` (CTAP2 canonical CBOR, CTAP 2.1 §8): shortest arguments,
/// definite lengths, and map keys ordered by major type, then encoded length,
/// then bytes.
@Suite("CBOR: CTAP2 canonical form")
struct CanonicalTests {
    @Test(
        "non-shortest integers, lengths and tags are nonCanonical only when canonical form is required",
        arguments: [
            "18 17",  // 23 in one extra byte
            "19 00ff", "1a 0000ffff", "1b 00000000ffffffff",
            "38 00",  // -1 in one extra byte
            "39 00ff", "3a 0000ffff", "3b 00000000ffffffff",
            "58 00", "59 0000", "5a 00000000", "5b 0000000000000000",  // empty byte strings
            "78 01 61", "79 0001 61",  // "a"
            "98 00", "99 0000",  // empty arrays
            "b8 00", "ba 00000000",  // empty maps
            "d8 01 00", "d9 0001 00", "da 00000001 00", "db 0000000000000001 00",  // tag 1
            "5f ff", "5f 4101 ff", "7f ff", "7f 6161 ff", "9f ff", "9f 01 ff", "bf ff", "bf 01 02 ff",  // indefinite
            "81 18 01",  // nested
            "a1 18 01 00",  // a non-shortest key
            "a1 01 18 01",  // a non-shortest value
            "c1 18 01",  // inside a tag
        ])
    func nonShortestOrIndefinite(_ input: String) throws {
        #expect(decodeErrorCode(hex(input), options: .ctap2Canonical) == .nonCanonical)
        // Without the requirement they are well-formed and decode to the value the
        // shortest form has.
        let item = try CBOR.decode(hex(input))
        #expect(try CBOR.decode(CBOREncoder.encode(item), options: .ctap2Canonical) == item)
    }

    @Test(
        "the shortest form at each width boundary is accepted",
        arguments: [
            "17", "18 18", "18 ff", "19 0100", "19 ffff", "1a 00010000", "1a ffffffff", "1b 0000000100000000",
            "37", "38 18", "3b 0000000100000000", "58 18" + String(repeating: "00", count: 24),
            "d8 18 00", "d9 0100 00",
        ])
    func shortestAccepted(_ input: String) throws {
        let item = try CBOR.decode(hex(input), options: .ctap2Canonical)
        #expect(CBOREncoder.encode(item) == hex(input))
    }

    @Test(
        "CTAP2 key order: 1, 2, 3, -1, -2, then text keys shortest first",
        arguments: [
            "a5 01 00 02 00 03 00 20 00 21 00",  // COSE-style integer keys
            "a2 17 00 18 18 00",  // 23 before 24 (shorter encoding first)
            "a2 18 ff 00 19 0100 00",
            "a2 20 00 37 00",
            "a2 01 00 61 61 00",  // integers before text
            "a3 61 62 00 61 63 00 62 6161 00",  // "b", "c", then the longer "aa"
            "a2 41 ff 00 61 00 00",  // bytes before text
            "a2 81 81 00 00 81 19 03e8 00",  // [[0]] (3 bytes) before [1000] (4 bytes): length first
            "a2 f4 00 f5 00",  // false before true
            "a4 03 00 20 00 63 616c67 00 64 74797065 00",
        ])
    func canonicalOrderAccepted(_ input: String) throws {
        let item = try CBOR.decode(hex(input), options: .ctap2Canonical)
        #expect(CBOREncoder.encode(item) == hex(input))
    }

    @Test(
        "keys out of CTAP2 order are nonCanonical, but decode when canonical form is not required",
        arguments: [
            "a2 02 00 01 00",
            "a5 01 00 02 00 03 00 21 00 20 00",  // -2 before -1
            "a2 20 00 01 00",  // negative before positive
            "a2 18 18 00 17 00",
            "a2 61 61 00 01 00",  // text before integer
            "a2 62 6161 00 61 62 00",  // "aa" before "b": longer first
            "a2 61 62 00 61 61 00",  // "b" before "a"
            "a2 61 00 00 41 ff 00",  // text before bytes
            "a2 81 19 03e8 00 81 81 00 00",  // bytewise order, not CTAP2 order
            "a2 f5 00 f4 00",
            "a1 00 a2 02 00 01 00",  // a nested map
        ])
    func misorderedKeys(_ input: String) throws {
        #expect(decodeErrorCode(hex(input), options: .ctap2Canonical) == .nonCanonical)
        let item = try CBOR.decode(hex(input))
        // The encoder sorts them into the order the canonical decoder accepts.
        let sorted = CBOREncoder.encode(item)
        #expect(sorted != hex(input))
        #expect(try CBOR.decode(sorted, options: .ctap2Canonical) == CBOR.decode(sorted))
    }

    @Test(
        "a repeated key is duplicateKey in canonical mode too, adjacent or not",
        arguments: [
            "a2 01 00 01 00", "a2 6161 00 6161 00", "a3 01 00 02 00 01 00", "a2 8101 00 8101 00",
        ])
    func duplicatesInCanonicalMode(_ input: String) {
        #expect(decodeErrorCode(hex(input), options: .ctap2Canonical) == .duplicateKey)
        #expect(decodeErrorCode(hex(input)) == .duplicateKey)
    }

    @Test("the encoder emits CTAP2 order whatever order the entries were given in")
    func encoderSortsKeys() throws {
        let key = CBORItem.map([
            (.text("b"), .int(0)), (.int(-2), .int(0)), (.text("aa"), .int(0)),
            (.int(3), .int(0)), (.int(-1), .int(0)), (.int(1), .int(0)), (.bytes([0xff]), .int(0)),
        ])
        #expect(hexString(key.encodedBytes) == "a7" + "0100" + "0300" + "2000" + "2100" + "41ff00" + "616200" + "62616100")
        let decoded = try CBOR.decode(Array(key.encodedBytes), options: .ctap2Canonical)
        #expect(decoded[intKey: -2]?.int64 == 0 && decoded[textKey: "aa"]?.int64 == 0)
        #expect(decoded.mapEntries?.count == 7)
    }
}
