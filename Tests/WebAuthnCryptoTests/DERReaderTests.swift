import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

@Suite("DER reader")
struct DERReaderTests {
    /// Runs `body` and returns the DERError code it threw (nil when it did not throw).
    private func code(_ body: () throws -> Void) -> DERError.Code? {
        do {
            try body()
            return nil
        } catch let error as DERError {
            return error.code
        } catch {
            Issue.record("unexpected error type \(error)")
            return nil
        }
    }

    // A small structure shaped like an Android authorization list:
    // SEQUENCE { [1] SET { INTEGER 2 }, [701] INTEGER 1700000000, [702] INTEGER 0, [600] NULL }
    private var androidLike: [UInt8] {
        DEREncoder.sequence([
            DEREncoder.explicit(1, DEREncoder.set([DEREncoder.integer(2), DEREncoder.integer(3)])),
            DEREncoder.explicit(600, DEREncoder.null()),
            DEREncoder.explicit(701, DEREncoder.integer(1_700_000_000)),
            DEREncoder.explicit(702, DEREncoder.integer(0)),
        ])
    }

    @Test func parsesNestedStructureWithHighTagNumbers() throws {
        let bytes = androidLike
        let elements = try DER.parseSequence(bytes)
        #expect(elements.count == 4)
        #expect(elements[0].tag == .context(1, constructed: true))
        let purposes = try elements[0].explicitlyTagged(1).set().map { try $0.integer() }
        #expect(purposes == [2, 3])
        #expect(elements[1].tag.number == 600)
        try elements[1].explicitlyTagged(600).null()
        #expect(try elements[2].explicitlyTagged(701).integer() == 1_700_000_000)
        #expect(try elements[3].explicitlyTagged(702).integer(in: 0...3) == 0)
        #expect(elements[2].tag.encoded == [0xBF, 0x85, 0x3D])
        // Slices point into the input, with exact encodings.
        #expect(Array(elements[3].encodedBytes) == DEREncoder.explicit(702, DEREncoder.integer(0)))
        #expect(elements[0].offset == 2)
    }

    @Test func highTagNumberFormIsDecoded() throws {
        // [702] constructed: BF 85 3E, then length 3 and INTEGER 0.
        let node = try DER.parse([0xBF, 0x85, 0x3E, 0x03, 0x02, 0x01, 0x00])
        #expect(node.tag == DERTag(.contextSpecific, number: 702, constructed: true))
        #expect(try node.explicitlyTagged(702).integer() == 0)
    }

    @Test func highTagNumberMustBeMinimal() {
        // Leading 0x80 digit.
        #expect(code { _ = try DER.parse([0x9F, 0x80, 0x1F, 0x00]) } == .nonMinimalEncoding)
        // Number below 31 in the long form.
        #expect(code { _ = try DER.parse([0x9F, 0x05, 0x00]) } == .nonMinimalEncoding)
        // More than four base-128 digits.
        #expect(code { _ = try DER.parse([0x9F, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00]) } == .tagTooLarge)
        // Tag number never terminates.
        #expect(code { _ = try DER.parse([0x9F, 0x81]) } == .truncated)
    }

    @Test func everyTruncationIsRejected() {
        let bytes = androidLike
        for cut in 0..<bytes.count {
            let prefix = Array(bytes.prefix(cut))
            #expect(code { _ = try DER.parse(prefix) } == .truncated, "prefix of \(cut) bytes")
        }
        #expect(code { _ = try DER.parse(bytes) } == nil)
    }

    @Test func trailingBytesAreRejectedButParsePrefixReturnsThem() throws {
        let bytes = DEREncoder.integer(5) + [0x00]
        #expect(code { _ = try DER.parse(bytes) } == .trailingBytes)
        let (node, rest) = try DER.parsePrefix(bytes[...])
        #expect(try node.integer() == 5)
        #expect(Array(rest) == [0x00])
    }

    @Test func indefiniteLengthIsRejected() {
        #expect(code { _ = try DER.parse([0x30, 0x80, 0x02, 0x01, 0x01, 0x00, 0x00]) } == .indefiniteLength)
    }

    @Test func nonMinimalLengthsAreRejected() {
        // 0x81 0x05: short form would do.
        #expect(code { _ = try DER.parse([0x04, 0x81, 0x05, 1, 2, 3, 4, 5]) } == .nonMinimalEncoding)
        // Leading zero length octet.
        let content = [UInt8](repeating: 0, count: 200)
        #expect(code { _ = try DER.parse([0x04, 0x82, 0x00, 0xC8] + content) } == .nonMinimalEncoding)
        // The right form is accepted.
        #expect(code { _ = try DER.parse([0x04, 0x81, 0xC8] + content) } == nil)
    }

    @Test func hugeLengthsAreRejectedWithoutAllocating() {
        // 2^31: four octets, above the cap.
        #expect(code { _ = try DER.parse([0x04, 0x84, 0x80, 0x00, 0x00, 0x00]) } == .lengthTooLarge)
        // 2^31 - 1: allowed by the cap, but the input is short.
        #expect(code { _ = try DER.parse([0x04, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) } == .truncated)
        // 2^63 and 2^64 - 1: eight and more length octets.
        #expect(code { _ = try DER.parse([0x04, 0x88, 0x80, 0, 0, 0, 0, 0, 0, 0]) } == .lengthTooLarge)
        #expect(code { _ = try DER.parse([0x04, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) } == .lengthTooLarge)
        // The reserved 0xFF length form.
        #expect(code { _ = try DER.parse([0x04, 0xFF]) } == .lengthTooLarge)
        // A child claiming more than its parent holds.
        #expect(code { _ = try DER.parse([0x30, 0x03, 0x04, 0x05, 0x00]) } == .truncated)
    }

    @Test func deepNestingIsCapped() {
        var bytes = DEREncoder.null()
        for _ in 0..<40 { bytes = DEREncoder.sequence([bytes]) }
        #expect(code { _ = try DER.parse(bytes) } == .tooDeep)
        #expect(code { _ = try DER.parse(bytes, maximumDepth: 41) } == nil)
        // 10,000 nested SEQUENCE headers: rejected by the cap, no stack exhaustion.
        var deep: [UInt8] = []
        for _ in 0..<10_000 { deep += [0x30, 0x80] }
        #expect(code { _ = try DER.parse(deep) } != nil)
        var chain: [UInt8] = []
        for _ in 0..<4000 { chain += [0x30, 0x01] }  // 30 01 30 01 ...
        #expect(code { _ = try DER.parse(chain) } != nil)
    }

    @Test func emptyInputIsTruncated() {
        #expect(code { _ = try DER.parse([]) } == .truncated)
    }

    @Test func errorsCarryOffsets() {
        // The bad INTEGER child sits at offset 2 of the buffer.
        do {
            let elements = try DER.parseSequence([0x30, 0x04, 0x02, 0x02, 0x00, 0x01])
            _ = try elements[0].integer()
            Issue.record("expected a throw")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.offset == 2)
        }
        do {
            _ = try DER.parse([0x30, 0x05, 0x30, 0x80, 0x00, 0x00, 0x00])
            Issue.record("expected a throw")
        } catch {
            #expect(error.code == .indefiniteLength)
            #expect(error.offset == 3)
        }
        // Offsets are relative to the slice handed to parse.
        let padded: [UInt8] = [0xAA, 0xAA, 0x04, 0x81, 0x01, 0x00]
        do {
            _ = try DER.parse(padded[2...])
            Issue.record("expected a throw")
        } catch {
            #expect(error.offset == 1)
        }
    }

    @Test func integers() throws {
        for value in [0, 1, 127, 128, 255, 256, -1, -128, -129, 65_535, Int.max, Int.min] {
            let node = try DER.parse(DEREncoder.integer(value))
            #expect(try node.integer() == value)
        }
        #expect(Array(try DER.parse([0x02, 0x02, 0x00, 0x80]).integerBytes()) == [0x00, 0x80])
        #expect(Array(try DER.parse([0x02, 0x02, 0x00, 0x80]).unsignedIntegerBytes()) == [0x80])
        #expect(code { _ = try DER.parse([0x02, 0x01, 0x80]).unsignedIntegerBytes() } == .integerOutOfRange)
        // Non-minimal positive and negative, and empty.
        #expect(code { _ = try DER.parse([0x02, 0x02, 0x00, 0x7F]).integer() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x02, 0x02, 0xFF, 0x80]).integer() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x02, 0x00]).integer() } == .invalidValue)
        // Nine octets do not fit Int; a range is enforced.
        let big: [UInt8] = [0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(code { _ = try DER.parse(big).integer() } == .integerOutOfRange)
        #expect(Array(try DER.parse(big).integerBytes()).count == 9)
        #expect(code { _ = try DER.parse(DEREncoder.integer(5)).integer(in: 0...4) } == .integerOutOfRange)
        // Wrong tag.
        #expect(code { _ = try DER.parse(DEREncoder.boolean(true)).integer() } == .unexpectedTag)
        #expect(try DER.parse(DEREncoder.enumerated(2)).enumerated(in: 0...2) == 2)
        #expect(code { _ = try DER.parse(DEREncoder.integer(2)).enumerated() } == .unexpectedTag)
    }

    @Test func booleansAreStrict() throws {
        #expect(try DER.parse([0x01, 0x01, 0xFF]).boolean())
        #expect(try DER.parse([0x01, 0x01, 0x00]).boolean() == false)
        #expect(code { _ = try DER.parse([0x01, 0x01, 0x01]).boolean() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x01, 0x02, 0xFF, 0xFF]).boolean() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x01, 0x00]).boolean() } == .invalidValue)
    }

    @Test func objectIdentifiers() throws {
        for oid in [
            "1.2.840.10045.2.1", "2.23.133.2.1", "1.3.6.1.4.1.11129.2.1.17", "1.3.6.1.4.1.45724.1.1.4",
            "2.999.1", "0.9.2342.19200300.100.1.1", "1.2.840.113635.100.8.2", "2.5.29.17",
        ] {
            let encoded = try DEREncoder.objectIdentifier(oid)
            #expect(try DER.parse(encoded).objectIdentifier() == oid)
        }
        // Known encoding: 2.5.29.19 = 06 03 55 1D 13.
        #expect(try DER.parse([0x06, 0x03, 0x55, 0x1D, 0x13]).objectIdentifier() == "2.5.29.19")
        #expect(code { _ = try DER.parse([0x06, 0x00]).objectIdentifier() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x06, 0x02, 0x55, 0x81]).objectIdentifier() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x06, 0x03, 0x55, 0x80, 0x01]).objectIdentifier() } == .invalidValue)
        let longArc: [UInt8] = [0x06, 0x0B, 0x2A] + [UInt8](repeating: 0xFF, count: 9) + [0x7F]
        #expect(code { _ = try DER.parse(longArc).objectIdentifier() } == .invalidValue)
    }

    @Test func bitStrings() throws {
        let ku = try DER.parse([0x03, 0x02, 0x05, 0xA0]).bitString()
        #expect(Array(ku.bytes) == [0xA0])
        #expect(ku.unusedBits == 5)
        #expect(code { _ = try DER.parse([0x03, 0x02, 0x05, 0xA1]).bitString() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x03, 0x02, 0x08, 0x00]).bitString() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x03, 0x01, 0x01]).bitString() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x03, 0x00]).bitString() } == .invalidValue)
        #expect(try DER.parse([0x03, 0x01, 0x00]).bitString().bytes.isEmpty)
    }

    @Test func stringsAndOctetStrings() throws {
        #expect(try DER.parse(DEREncoder.utf8String("id:FFFFF1D0 ü")).string() == "id:FFFFF1D0 ü")
        #expect(try DER.parse(DEREncoder.printableString("US")).string() == "US")
        #expect(try DER.parse([0x1E, 0x04, 0x00, 0x41, 0x00, 0xE9]).string() == "Aé")
        #expect(try DER.parse([0x1C, 0x04, 0x00, 0x01, 0xF6, 0x00]).string() == "\u{1F600}")
        #expect(try DER.parse([0x14, 0x01, 0xE9]).string() == "é")
        #expect(code { _ = try DER.parse([0x0C, 0x02, 0xC3, 0x28]).string() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x13, 0x01, 0x80]).string() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x1E, 0x01, 0x00]).string() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x1E, 0x02, 0xD8, 0x00]).string() } == .invalidValue)
        #expect(code { _ = try DER.parse([0x1C, 0x04, 0x00, 0x11, 0x00, 0x00]).string() } == .invalidValue)
        #expect(code { _ = try DER.parse(DEREncoder.integer(1)).string() } == .unexpectedTag)
        #expect(Array(try DER.parse(DEREncoder.octetString([1, 2, 3])).octetString()) == [1, 2, 3])
        // A constructed OCTET STRING (BER only) is not an OCTET STRING in DER.
        #expect(code { _ = try DER.parse([0x24, 0x03, 0x04, 0x01, 0x00]).octetString() } == .unexpectedTag)
        // Implicitly tagged OCTET STRING, as Android's [709] attestationApplicationId would be read.
        let implicit = DEREncoder.octetString([9], tag: .context(5, constructed: false))
        #expect(Array(try DER.parse(implicit).octetString(tag: .context(5, constructed: false))) == [9])
    }

    @Test func structuralHelpersCheckTagsAndCounts() throws {
        let seq = try DER.parse(DEREncoder.sequence([DEREncoder.null()]))
        #expect(code { _ = try seq.set() } == .unexpectedTag)
        #expect(code { _ = try seq.explicitlyTagged(0) } == .unexpectedTag)
        #expect(code { _ = try DER.parse(DEREncoder.null()).children() } == .unexpectedForm)
        let twoInside = try DER.parse(DEREncoder.tlv(.context(3, constructed: true), DEREncoder.null() + DEREncoder.null()))
        #expect(code { _ = try twoInside.explicitlyTagged(3) } == .unexpectedElementCount)
        let emptyTag = try DER.parse(DEREncoder.tlv(.context(3, constructed: true), []))
        #expect(code { _ = try emptyTag.explicitlyTagged(3) } == .unexpectedElementCount)
        #expect(code { try DER.parse([0x05, 0x01, 0x00]).null() } == .invalidValue)
        #expect(code { _ = try DER.parseSequence(DEREncoder.set([])) } == .unexpectedTag)
    }

    @Test func tagEncodingRoundTrips() throws {
        for number: UInt32 in [0, 30, 31, 127, 128, 600, 701, 702, 16_383, 16_384, DERTag.maximumNumber] {
            for tagClass in [DERTag.TagClass.universal, .application, .contextSpecific, .private] {
                let tag = DERTag(tagClass, number: number, constructed: number % 2 == 0)
                let node = try DER.parse(tag.encoded + [0x00])
                #expect(node.tag == tag)
            }
        }
    }
}
