import Testing

@testable import WebAuthnCrypto

/// Digests against the FIPS 180 "abc" examples, constant-time comparison and the RNG.
struct DigestTests {
    static let abc = Array("abc".utf8)

    @Test func sha1OfABC() {
        #expect(Digest.sha1.hash(Self.abc) == hex("a9993e364706816aba3e25717850c26c9cd0d89d"))
        #expect(Digest.sha1.outputSize == 20)
    }

    @Test func sha256OfABCAndEmpty() {
        #expect(Digest.sha256.hash(Self.abc) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(Digest.sha256.hash([UInt8]()) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        #expect(Digest.sha256.outputSize == 32)
    }

    @Test func sha384OfABC() {
        #expect(
            Digest.sha384.hash(Self.abc)
                == hex(
                    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        #expect(Digest.sha384.outputSize == 48)
    }

    @Test func sha512OfABC() {
        #expect(
            Digest.sha512.hash(Self.abc)
                == hex(
                    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                        + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"))
        #expect(Digest.sha512.outputSize == 64)
    }

    @Test func hashesSlicesAndNonContiguousSequencesAlike() {
        let padded: [UInt8] = [0xff] + Self.abc + [0xff]
        let expected = Digest.sha256.hash(Self.abc)
        #expect(Digest.sha256.hash(padded[1..<4]) == expected)
        #expect(Digest.sha256.hash(Self.abc.lazy.map { $0 }) == expected)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        let bytes: [UInt8] = [9, 1, 2, 3]
        #expect(ConstantTime.equals(bytes[1...], [1, 2, 3]))
    }

    @Test func constantTimeEqualityOfASliceAgainstAnArray() {
        // The concrete (slice, array) form the rpIdHash check uses.
        let bytes: [UInt8] = [9, 1, 2, 3]
        #expect(ConstantTime.equals(bytes[1...], [1, 2, 3]))
        #expect(!ConstantTime.equals(bytes[1...], [1, 2, 4]))
        #expect(!ConstantTime.equals(bytes[1...], [1, 2]))
        #expect(!ConstantTime.equals(bytes[1...], [9, 1, 2, 3]))
        #expect(ConstantTime.equals(bytes[4...], []))
    }

    @Test func inlineSHA256IsTheArrayForm() {
        for input in [Self.abc, [], [UInt8](repeating: 0x61, count: 200)] {
            let inline = Digest.sha256Inline(input)
            #expect((0..<32).map { inline[$0] } == Digest.sha256.hash(input))
        }
    }

    @Test func secureRandomBytes() throws {
        let a = try SecureRandom.bytes(count: 32)
        let b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        #expect(throws: CryptoError(.libcrypto, "")) { try SecureRandom.bytes(count: -1) }
    }
}
