import Testing

@testable import WebAuthnCoding

/// Each hostile input must be refused with its own code, and nothing may trap.
@Suite("CBOR: hostile inputs")
struct HostileInputTests {
    // MARK: Declared lengths

    static let hugeLengths: [(String, String)] = [
        ("2^31", "1a 80000000"), ("2^63", "1b 8000000000000000"), ("2^64-1", "1b ffffffffffffffff"),
    ]

    @Test(
        "declared lengths of 2^31, 2^63 and 2^64-1 are limit for strings, arrays and maps",
        arguments: [UInt8(2), 3, 4, 5])
    func hugeDeclaredLengths(major: UInt8) {
        for (name, head) in Self.hugeLengths {
            var input = hex(head)
            input[0] = major << 5 | (input[0] & 0x1f)
            input += [0x00, 0x00, 0x00, 0x00]  // a few bytes so it is not simply empty
            #expect(decodeErrorCode(input) == .limit, "major \(major), length \(name)")
            #expect(decodeErrorCode(input, options: .ctap2Canonical) == .limit, "major \(major), length \(name), canonical")
            // The same head nested in an array and as a map value.
            #expect(decodeErrorCode([0x81] + input) == .limit)
            #expect(decodeErrorCode([0xa1, 0x01] + input) == .limit)
        }
    }

    @Test("a chunk of an indefinite string declaring 2^63 bytes is limit")
    func hugeChunkLength() {
        #expect(decodeErrorCode(hex("5f 5b 8000000000000000 00 ff")) == .limit)
        #expect(decodeErrorCode(hex("7f 7b ffffffffffffffff 00 ff")) == .limit)
    }

    @Test("a length that exceeds the rest by one byte is limit; exactly the rest decodes")
    func lengthBoundary() throws {
        #expect(decodeErrorCode(hex("43 010203")) == nil)
        #expect(decodeErrorCode(hex("44 010203")) == .limit)
        #expect(decodeErrorCode(hex("83 010203")) == nil)
        #expect(decodeErrorCode(hex("84 010203")) == .limit)
        #expect(decodeErrorCode(hex("a2 01020304")) == nil)
        #expect(decodeErrorCode(hex("a3 01020304")) == .limit)
    }

    // MARK: Nesting

    @Test("10,000 nested arrays, maps, tags and indefinite arrays stop at the depth limit")
    func deepNesting() {
        let n = 10_000
        let cases: [(String, [UInt8])] = [
            ("arrays", [UInt8](repeating: 0x81, count: n) + [0x00]),
            ("indefinite arrays", [UInt8](repeating: 0x9f, count: n) + [0x00] + [UInt8](repeating: 0xff, count: n)),
            ("maps", Array([[UInt8]](repeating: [0xa1, 0x00], count: n).joined()) + [0x00]),
            ("tags", [UInt8](repeating: 0xc1, count: n) + [0x00]),
            ("two-byte tags", Array([[UInt8]](repeating: [0xd8, 0x20], count: n).joined()) + [0x00]),
        ]
        for (name, input) in cases {
            #expect(decodeErrorCode(input) == .depth, "\(name)")
            // Even a caller asking for unlimited depth is clamped, so the stack is safe.
            #expect(decodeErrorCode(input, options: CBORDecodingOptions(maximumDepth: .max)) == .depth, "\(name), max")
        }
    }

    @Test("the depth limit counts items from 1 at the top and is configurable")
    func configurableDepth() {
        let threeArrays = hex("81 81 81 01")  // the integer is at depth 4
        #expect(decodeErrorCode(threeArrays, options: CBORDecodingOptions(maximumDepth: 4)) == nil)
        #expect(decodeErrorCode(threeArrays, options: CBORDecodingOptions(maximumDepth: 3)) == .depth)
        #expect(decodeErrorCode(hex("c1 c1 01"), options: CBORDecodingOptions(maximumDepth: 2)) == .depth)
        #expect(decodeErrorCode(hex("c1 c1 01"), options: CBORDecodingOptions(maximumDepth: 3)) == nil)
        // 0 and negative depths are clamped to 1: a scalar still decodes, an array does not.
        #expect(decodeErrorCode(hex("01"), options: CBORDecodingOptions(maximumDepth: 0)) == nil)
        #expect(decodeErrorCode(hex("81 01"), options: CBORDecodingOptions(maximumDepth: -5)) == .depth)
        // The default (16) and the hard maximum (256).
        let deep16 = [UInt8](repeating: 0x81, count: 15) + [0x01]
        #expect(decodeErrorCode(deep16) == nil)
        #expect(decodeErrorCode([0x81] + deep16) == .depth)
        let deep256 = [UInt8](repeating: 0x81, count: 255) + [0x01]
        let huge = CBORDecodingOptions(maximumDepth: 1_000_000)
        #expect(decodeErrorCode(deep256, options: huge) == nil)
        #expect(decodeErrorCode([0x81] + deep256, options: huge) == .depth)
    }

    // MARK: Item budget

    @Test("the item budget counts every item, map keys and string chunks included")
    func itemLimit() {
        let three = CBORDecodingOptions(maximumItems: 3)
        #expect(decodeErrorCode(hex("82 01 02"), options: three) == nil)
        #expect(decodeErrorCode(hex("83 01 02 03"), options: three) == .limit)
        #expect(decodeErrorCode(hex("a1 01 02"), options: three) == nil)
        #expect(decodeErrorCode(hex("a1 01 81 02"), options: three) == .limit)
        #expect(decodeErrorCode(hex("5f 41 01 41 02 ff"), options: three) == nil)
        #expect(decodeErrorCode(hex("5f 41 01 41 02 41 03 ff"), options: three) == .limit)
        #expect(decodeErrorCode(hex("00"), options: CBORDecodingOptions(maximumItems: 0)) == .limit)
        #expect(decodeErrorCode(hex("00"), options: CBORDecodingOptions(maximumItems: -1)) == .limit)
        // The default budget is 65,536 items: an array of 65,536 zeros is one too many.
        let big = hex("9a 00010000") + [UInt8](repeating: 0, count: 65_536)
        #expect(decodeErrorCode(big) == .limit)
        let fits = hex("9a 0000ffff") + [UInt8](repeating: 0, count: 65_535)
        #expect(decodeErrorCode(fits) == nil)
    }

    // MARK: Reserved and misplaced encodings

    @Test("additional information 28, 29 and 30 is invalid for every major type", arguments: UInt8(0)...7)
    func reservedAdditionalInformation(major: UInt8) {
        for ai: UInt8 in 28...30 {
            let initial = major << 5 | ai
            let tail: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0]
            #expect(decodeErrorCode([initial] + tail) == .invalid, "0x\(hexString([initial]))")
            #expect(decodeErrorCode([initial]) == .invalid, "0x\(hexString([initial])) alone")
            #expect(decodeErrorCode([0x81, initial] + tail) == .invalid, "inside an array")
            #expect(decodeErrorCode([initial] + tail, options: .ctap2Canonical) == .invalid)
        }
    }

    @Test("indefinite length on integers and tags is invalid")
    func indefiniteIntegerOrTag() {
        #expect(decodeErrorCode(hex("1f")) == .invalid)
        #expect(decodeErrorCode(hex("3f")) == .invalid)
        #expect(decodeErrorCode(hex("df 01")) == .invalid)
    }

    @Test("a break byte outside an indefinite-length item is invalid")
    func strayBreak() {
        #expect(decodeErrorCode(hex("ff")) == .invalid)
        #expect(decodeErrorCode(hex("81 ff")) == .invalid)
        #expect(decodeErrorCode(hex("82 01 ff")) == .invalid)
        #expect(decodeErrorCode(hex("a1 ff 01")) == .invalid)
        #expect(decodeErrorCode(hex("a1 01 ff")) == .invalid)
        #expect(decodeErrorCode(hex("c1 ff")) == .invalid)
        // Inside an indefinite map a break may not stand where a value is due.
        #expect(decodeErrorCode(hex("bf 01 ff")) == .invalid)
        // After a complete item a break is trailing garbage at top level, not a break.
        #expect(decodeErrorCode(hex("9f ff ff")) == .trailing)
    }

    @Test("indefinite strings: a chunk of another type or a nested indefinite chunk is invalid")
    func badChunks() throws {
        #expect(decodeErrorCode(hex("5f 61 61 ff")) == .invalid)  // text chunk in byte string
        #expect(decodeErrorCode(hex("7f 41 61 ff")) == .invalid)  // byte chunk in text string
        #expect(decodeErrorCode(hex("5f 01 ff")) == .invalid)  // integer chunk
        #expect(decodeErrorCode(hex("5f 80 ff")) == .invalid)  // array chunk
        #expect(decodeErrorCode(hex("5f 5f 41 01 ff ff")) == .invalid)  // nested indefinite
        #expect(decodeErrorCode(hex("7f 7f 61 61 ff ff")) == .invalid)
        #expect(decodeErrorCode(hex("5f 41 01 5f ff ff")) == .invalid)  // nested after a good chunk
        #expect(decodeErrorCode(hex("5f 41 01 dc ff")) == .invalid)  // reserved value as a chunk
        // Empty chunks and no chunks are fine.
        #expect(try CBOR.decode(hex("5f ff")).value == bytes(""))
        #expect(try CBOR.decode(hex("7f 60 60 ff")).value == text(""))
        #expect(try CBOR.decode(hex("5f 40 41 07 40 ff")).value == bytes("07"))
    }

    @Test("simple values below 32 in two-byte form are invalid; 32 and up are accepted")
    func twoByteSimple() throws {
        for v in UInt8(0)..<32 {
            #expect(decodeErrorCode([0xf8, v]) == .invalid, "f8 \(v)")
        }
        #expect(try CBOR.decode(hex("f8 20")).value == .simple(32))
        #expect(try CBOR.decode(hex("f8 ff")).value == .simple(255))
        #expect(try CBOR.decode(hex("f3")).value == .simple(19))
        #expect(decodeErrorCode(hex("f8")) == .truncated)
    }

    // MARK: UTF-8

    @Test(
        "text that is not UTF-8 is invalidUTF8",
        arguments: [
            "62 c0af",  // overlong "/"
            "63 e080af",  // overlong "/" in three bytes
            "64 f08282ac",  // overlong euro sign in four bytes
            "63 eda080",  // UTF-16 surrogate D800
            "63 edbfbf",  // surrogate DFFF
            "62 e6b0",  // truncated three-byte sequence (the string ends)
            "63 e6b061",  // truncated sequence followed by ASCII
            "61 80",  // lone continuation byte
            "61 ff",  // never valid in UTF-8
            "64 f4908080",  // above U+10FFFF
            "7f 61c3 61bc ff",  // a character split across chunks (each chunk must be valid)
            "a1 62c0af 00",  // as a map key
            "82 6161 62c0af",  // inside an array
        ])
    func invalidUTF8(_ input: String) {
        #expect(decodeErrorCode(hex(input)) == .invalidUTF8)
        #expect(decodeErrorCode(hex(input), options: .ctap2Canonical) == (input.hasPrefix("7f") ? .nonCanonical : .invalidUTF8))
    }

    @Test("valid UTF-8 at the edges decodes")
    func validUTF8Edges() throws {
        #expect(try CBOR.decode(hex("61 7f")).value == text("\u{7f}"))
        #expect(try CBOR.decode(hex("62 c280")).value == text("\u{80}"))
        #expect(try CBOR.decode(hex("63 ed9fbf")).value == text("\u{d7ff}"))
        #expect(try CBOR.decode(hex("63 ee8080")).value == text("\u{e000}"))
        #expect(try CBOR.decode(hex("64 f48fbfbf")).value == text("\u{10ffff}"))
        #expect(try CBOR.decode(hex("63 efbbbf")).value == text("\u{feff}"))  // a BOM is just a character
        #expect(try CBOR.decode(hex("61 00")).value == text("\u{0}"))
    }

    // MARK: Maps

    @Test(
        "duplicate map keys are duplicateKey",
        arguments: [
            "a2 01 00 01 00",  // integer
            "a2 20 00 20 00",  // negative integer
            "a2 6161 00 6161 01",  // text
            "a2 4101 00 4101 00",  // bytes
            "a2 01 00 1801 00",  // same integer, second one non-shortest
            "a2 6161 00 7f6161ff 00",  // same text, second one indefinite
            "a2 4101 00 5f4101ff 00",  // same bytes, second one indefinite
            "a3 01 00 02 00 01 00",  // not adjacent
            "bf 01 00 01 00 ff",  // indefinite map
            "a2 f5 00 f5 00",  // simple value
            "a2 f93c00 00 fa3f800000 00",  // the float 1.0 in two widths
            "a2 8101 00 8101 00",  // array
            "a2 8101 00 811801 00",  // the same array, element non-shortest
            "a2 c101 00 d80101 00",  // the same tagged value, tag non-shortest
            "a2 a10102 00 a1011802 00",  // the same map, value non-shortest
            "a2 7f6161ff 00 6161 00",  // same text, the first one indefinite
            "a2 7f6161ff 00 7f6161ff 00",  // both indefinite
            "a2 1b0000000100000000 00 1b0000000100000000 00",  // eight-byte integer
            "a2 3bffffffffffffffff 00 3bffffffffffffffff 00",  // the most negative integer
            "a2 6261 62 00 790002 6162 00",  // two-byte text, second length non-shortest
        ])
    func duplicateKeys(_ input: String) {
        #expect(decodeErrorCode(hex(input)) == .duplicateKey)
    }

    @Test("a duplicate in a large map (past the linear scan) is found")
    func duplicateInLargeMap() {
        var input: [UInt8] = [0xb8, 40]
        for k in UInt8(0)..<39 { input += [0x18, 0x20 &+ k, 0x00] }
        input += [0x18, 0x20 + 17, 0x00]
        #expect(decodeErrorCode(input) == .duplicateKey)
        input[input.count - 2] = 0x20 + 39
        #expect(decodeErrorCode(input) == nil)
    }

    @Test("a repeated key is found once a map has handed its keys to the set, whatever their kinds")
    func duplicateAfterCompositeKey() {
        #expect(decodeErrorCode(hex("a3 8101 00 01 00 01 00")) == .duplicateKey)  // 1 twice, after [1]
        #expect(decodeErrorCode(hex("a3 01 00 8101 00 01 00")) == .duplicateKey)  // 1 twice, around [1]
        #expect(decodeErrorCode(hex("a3 6161 00 8101 00 7f6161ff 00")) == .duplicateKey)  // "a", then "a" in chunks
        #expect(decodeErrorCode(hex("a3 01 00 8101 00 02 00")) == nil)
    }

    @Test("map keys that are arrays or maps are compared within a budget of their encoded bytes per decode")
    func compositeKeyBudget() {
        // [1] and [2] encode to two bytes each.
        #expect(decodeErrorCode(hex("a2 8101 00 8102 00"), options: CBORDecodingOptions(maximumCompositeKeyBytes: 4)) == nil)
        #expect(decodeErrorCode(hex("a2 8101 00 8102 00"), options: CBORDecodingOptions(maximumCompositeKeyBytes: 3)) == .limit)
        // The charge is the canonical encoding, so a non-shortest [1] costs what 81 01 costs.
        #expect(decodeErrorCode(hex("a2 811801 00 8102 00"), options: CBORDecodingOptions(maximumCompositeKeyBytes: 4)) == nil)
        // Maps keyed by maps keyed by maps: each level encodes every key below it again, so
        // 59 KB of this shape once cost a tenth of a second in release builds. The default
        // budget refuses it; a moderate one (7 KB) still decodes.
        #expect(decodeErrorCode(Self.mapsKeyedByMaps(width: 3, depth: 9)) == .limit)
        #expect(decodeErrorCode(Self.mapsKeyedByMaps(width: 15, depth: 3)) == nil)
    }

    /// A map of `width` entries whose keys are such maps one level down, told apart by the
    /// value of their last entry; integers at the bottom.
    static func mapsKeyedByMaps(width: Int, depth: Int, last: UInt8 = 0) -> [UInt8] {
        guard depth > 0 else { return [last] }
        var out: [UInt8] = [0xa0 | UInt8(width)]
        for index in 0..<width {
            out += mapsKeyedByMaps(width: width, depth: depth - 1, last: UInt8(index))
            out.append(index == width - 1 ? last : 0)
        }
        return out
    }

    @Test("duplicates are found in a slice that does not start at index 0")
    func duplicateInOffsetSlice() throws {
        let padded = hex("ff ff a2 6161 00 6161 01")
        do {
            _ = try CBOR.decode(padded[2...])
            Issue.record("a duplicate key decoded")
        } catch {
            #expect(error.code == .duplicateKey)
            #expect(error.offset == 4)  // the second key, counted from the slice's start
        }
        let distinct = hex("ff ff a2 6161 00 6162 01")
        #expect(try CBOR.decode(distinct[2...]).mapEntries?.count == 2)
    }

    @Test("keys that differ only in type or sign are not duplicates")
    func distinctKeys() {
        #expect(decodeErrorCode(hex("a2 6261 62 00 6262 61 00")) == nil)  // "ab" and "ba"
        #expect(decodeErrorCode(hex("a2 1b0000000100000000 00 1b0000000100000001 00")) == nil)
        #expect(decodeErrorCode(hex("a2 7f6161ff 00 6162 00")) == nil)  // indefinite "a" and "b"
        #expect(decodeErrorCode(hex("a2 01 00 20 00")) == nil)  // 1 and -2
        #expect(decodeErrorCode(hex("a2 00 00 20 00")) == nil)  // 0 and -1
        #expect(decodeErrorCode(hex("a2 01 00 f93c00 00")) == nil)  // 1 and 1.0
        #expect(decodeErrorCode(hex("a2 4161 00 6161 00")) == nil)  // h'61' and "a"
        #expect(decodeErrorCode(hex("a2 f90000 00 f98000 00")) == nil)  // 0.0 and -0.0
        #expect(decodeErrorCode(hex("a2 8101 00 8102 00")) == nil)
    }

    // MARK: Trailing data and prefixes

    @Test("bytes after the item are trailing; decodePrefix returns them")
    func trailingAndPrefix() throws {
        let input = hex("a1 01 02 a0 ff")
        #expect(throws: CBORError(.trailing, offset: 3, "")) { try CBOR.decode(input) }
        do {
            _ = try CBOR.decode(input)
        } catch {
            #expect(error.offset == 3)
        }
        let (item, rest) = try CBOR.decodePrefix(input[...])
        #expect(item[intKey: 1]?.int64 == 2)
        #expect(Array(rest) == [0xa0, 0xff])
        #expect(rest.startIndex == 3)
        let (second, rest2) = try CBOR.decodePrefix(rest)
        #expect(second.value == map([]))
        #expect(Array(rest2) == [0xff])
        // The rest is never re-validated: a stray break after the item is the caller's concern.
        #expect(decodeErrorCode(hex("00 00")) == .trailing)
        #expect(decodeErrorCode(hex("9f ff 00")) == .trailing)
    }

    @Test("decoding a slice with a non-zero start reports offsets relative to the slice")
    func sliceOffsets() throws {
        let buffer = hex("ee ee 82 01 6161 ee")
        let item = try CBOR.decode(buffer[2..<6])
        #expect(item.array?.count == 2)
        #expect(item.encodedBytes.startIndex == 2)
        #expect(item.array?[1].encodedBytes.startIndex == 4)
        #expect(Array(item.array?[1].encodedBytes ?? []) == [0x61, 0x61])
        do {
            _ = try CBOR.decode(buffer[2..<7])
            Issue.record("trailing byte not reported")
        } catch {
            #expect(error.code == .trailing)
            #expect(error.offset == 4)
        }
        do {
            _ = try CBOR.decode(buffer[2..<5])
            Issue.record("truncation not reported")
        } catch {
            #expect(error.code == .limit)
            #expect(error.offset == 2)  // the head of "a", which declares one byte more than is left
        }
    }

    @Test("an item's encodedBytes are exactly its bytes in the input")
    func encodedBytesAreSlices() throws {
        let input = hex("a2 01 a1 20 43 010203 63 666f6f 82 f6 f7")
        let item = try CBOR.decode(input)
        #expect(Array(item.encodedBytes) == input)
        let inner = try #require(item[intKey: 1])
        #expect(hexString(inner.encodedBytes) == "a12043010203")
        #expect(hexString(try #require(item[textKey: "foo"]).encodedBytes) == "82f6f7")
        #expect(inner[intKey: -1]?.bytes.map(Array.init) == [1, 2, 3])
    }

    // MARK: Integers

    @Test("the Int64 boundaries and -2^64 decode without trapping")
    func integerBoundaries() throws {
        let min = try CBOR.decode(hex("3b 7fffffffffffffff"))
        #expect(min.value == .negative(UInt64(Int64.max)))
        #expect(min.int64 == Int64.min)
        let belowMin = try CBOR.decode(hex("3b 8000000000000000"))
        #expect(belowMin.value == .negative(1 << 63))
        #expect(belowMin.int64 == nil)
        #expect(belowMin.int == nil)
        let lowest = try CBOR.decode(hex("3b ffffffffffffffff"))  // -2^64
        #expect(lowest.value == .negative(UInt64.max))
        #expect(lowest.int64 == nil)
        #expect(lowest.int == nil)
        let max = try CBOR.decode(hex("1b 7fffffffffffffff"))
        #expect(max.int64 == Int64.max)
        let aboveMax = try CBOR.decode(hex("1b 8000000000000000"))
        #expect(aboveMax.int64 == nil)
        #expect(try CBOR.decode(hex("1b ffffffffffffffff")).int64 == nil)
        #expect(try CBOR.decode(hex("20")).int64 == -1)
        #expect(try CBOR.decode(hex("00")).int64 == 0)
        #expect(try CBOR.decode(hex("f93c00")).int64 == nil)  // a float is not an integer
        // The builder covers the whole Int64 range without overflow.
        #expect(hexString(CBOREncoder.encode(CBORItem.int(Int64.min))) == "3b7fffffffffffffff")
        #expect(hexString(CBOREncoder.encode(CBORItem.int(Int64.max))) == "1b7fffffffffffffff")
        #expect(hexString(CBOREncoder.encode(CBORItem.int(-1))) == "20")
        #expect(hexString(CBOREncoder.encode(.negative(UInt64.max))) == "3bffffffffffffffff")
    }

    @Test("integer map keys at the Int64 edges are found by intKey")
    func intKeyBoundaries() throws {
        let item = try CBOR.decode(hex("a3 3b7fffffffffffffff 01 1b7fffffffffffffff 02 3bffffffffffffffff 03"))
        #expect(item[intKey: .min]?.int64 == 1)
        #expect(item[intKey: .max]?.int64 == 2)
        #expect(item[intKey: 0] == nil)
    }

    // MARK: Floats

    @Test(
        "half-precision floats: zero, subnormals, normals, infinities, NaN",
        arguments: [
            ("f9 0000", 0.0), ("f9 8000", -0.0),
            ("f9 0001", 0x1p-24), ("f9 8001", -0x1p-24), ("f9 0002", 0x1p-23),
            ("f9 03ff", 1023 * 0x1p-24),  // largest subnormal
            ("f9 0400", 0x1p-14),  // smallest normal
            ("f9 3c00", 1.0), ("f9 3c01", 1 + 0x1p-10), ("f9 3555", 0x1.554p-2),
            ("f9 7bff", 65504.0), ("f9 fbff", -65504.0),
            ("f9 7c00", Double.infinity), ("f9 fc00", -Double.infinity),
        ] as [(String, Double)])
    func halfFloats(_ input: String, _ expected: Double) throws {
        let item = try CBOR.decode(hex(input))
        #expect(identical(item.value, .float(expected)), "\(item.value)")
        // Every one of these is its own preferred encoding.
        #expect(CBOREncoder.encode(item) == hex(input))
    }

    @Test(
        "half-precision NaNs of any payload and sign decode to NaN and re-encode as f97e00",
        arguments: ["f9 7e00", "f9 7c01", "f9 7fff", "f9 fe00", "f9 fc01", "fa 7f800001", "fb 7ff0000000000001"])
    func nans(_ input: String) throws {
        let item = try CBOR.decode(hex(input))
        guard case .float(let d) = item.value else {
            Issue.record("not a float: \(item.value)")
            return
        }
        #expect(d.isNaN)
        #expect(hexString(CBOREncoder.encode(item)) == "f97e00")
    }

    @Test("the encoder picks the shortest float width that keeps the value")
    func floatWidths() {
        #expect(hexString(CBOREncoder.encode(.float(0x1p-25))) == "fa33000000")  // below the half range
        #expect(hexString(CBOREncoder.encode(.float(3 * 0x1p-25))) == "fa33c00000")  // not a multiple of 2^-24
        #expect(hexString(CBOREncoder.encode(.float(65505))) == "fa477fe100")  // needs 11+ bits
        #expect(hexString(CBOREncoder.encode(.float(65536))) == "fa47800000")  // exponent 16, beyond half
        #expect(hexString(CBOREncoder.encode(.float(1 + 0x1p-11))) == "fa3f801000")
        #expect(hexString(CBOREncoder.encode(.float(0.1))) == "fb3fb999999999999a")
        #expect(hexString(CBOREncoder.encode(.float(-0x1p-24))) == "f98001")
        #expect(hexString(CBOREncoder.encode(.float(Double.greatestFiniteMagnitude))) == "fb7fefffffffffffff")
        #expect(hexString(CBOREncoder.encode(.float(Double.leastNonzeroMagnitude))) == "fb0000000000000001")
    }

    @Test("truncated floats are truncated")
    func truncatedFloats() {
        #expect(decodeErrorCode(hex("f9 00")) == .truncated)
        #expect(decodeErrorCode(hex("fa 000000")) == .truncated)
        #expect(decodeErrorCode(hex("fb 00000000000000")) == .truncated)
    }
}
