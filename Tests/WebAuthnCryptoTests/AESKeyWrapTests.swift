import Testing

@testable import WebAuthnCrypto

/// AES-256 key unwrap (RFC 3394, JWE `A256KW`): the RFC's known answer, and every kind of damage
/// refused as nil rather than a key.
@Suite("AES key unwrap")
struct AESKeyWrapTests {
    static let kek = AES256GCMTests.hex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F")
    static let keyData = AES256GCMTests.hex("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F")
    static let wrapped = AES256GCMTests.hex("28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21")

    @Test("RFC 3394 §4.6: 256 bits of key data with a 256-bit key-encryption key")
    func knownAnswer() throws {
        #expect(try AESKeyWrap.unwrap(Self.wrapped, key: Self.kek) == Self.keyData)
    }

    @Test("a flipped bit, another key, a truncation or a length that is not whole blocks unwraps to nil")
    func damage() throws {
        for index in Self.wrapped.indices {
            var flipped = Self.wrapped
            flipped[index] ^= 0x01
            #expect(try AESKeyWrap.unwrap(flipped, key: Self.kek) == nil, "bit flipped in byte \(index)")
        }
        var otherKey = Self.kek
        otherKey[0] ^= 0x80
        #expect(try AESKeyWrap.unwrap(Self.wrapped, key: otherKey) == nil)
        #expect(try AESKeyWrap.unwrap(Array(Self.wrapped.dropLast(8)), key: Self.kek) == nil)
        #expect(try AESKeyWrap.unwrap(Array(Self.wrapped.dropLast(1)), key: Self.kek) == nil)
        #expect(try AESKeyWrap.unwrap(Array(Self.wrapped.prefix(16)), key: Self.kek) == nil)
        #expect(try AESKeyWrap.unwrap([], key: Self.kek) == nil)
    }

    @Test("a key-encryption key that is not 32 bytes is malformedKey")
    func keyLength() {
        #expect(throws: CryptoError(.malformedKey, "")) { try AESKeyWrap.unwrap(Self.wrapped, key: Array(Self.kek.prefix(16))) }
    }
}
