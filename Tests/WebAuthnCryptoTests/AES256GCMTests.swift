import Testing

@testable import WebAuthnCrypto

/// AES-256-GCM (sealed challenges): the GCM specification's known answers, and every kind of
/// damage refused.
@Suite("AES-256-GCM")
struct AES256GCMTests {
    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.utf8)[...]
        while chars.count >= 2 {
            out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) ?? 0)
            chars = chars.dropFirst(2)
        }
        return out
    }

    @Test("the GCM specification's test cases 13 and 14 (AES-256, zero key and nonce)")
    func knownAnswers() throws {
        let key = [UInt8](repeating: 0, count: 32), nonce = [UInt8](repeating: 0, count: 12)
        #expect(try AES256GCM.seal([], key: key, nonce: nonce) == Self.hex("530f8afbc74536b9a963b4f1c4cb738b"))
        let sealed = try AES256GCM.seal([UInt8](repeating: 0, count: 16), key: key, nonce: nonce)
        #expect(sealed == Self.hex("cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919"))
        #expect(try AES256GCM.open(sealed, key: key, nonce: nonce) == [UInt8](repeating: 0, count: 16))
    }

    @Test("a flipped bit anywhere, another key, nonce or aad, or a truncation does not open")
    func damage() throws {
        let key = try SecureRandom.bytes(count: 32), nonce = try SecureRandom.bytes(count: 12)
        let message = Array("the issued challenge".utf8), aad = Array("purpose".utf8)
        let sealed = try AES256GCM.seal(message, key: key, nonce: nonce, aad: aad)
        #expect(sealed.count == message.count + 16)
        #expect(try AES256GCM.open(sealed, key: key, nonce: nonce, aad: aad) == message)
        for index in sealed.indices {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(try AES256GCM.open(flipped, key: key, nonce: nonce, aad: aad) == nil)
        }
        var otherKey = key
        otherKey[0] ^= 0x80
        #expect(try AES256GCM.open(sealed, key: otherKey, nonce: nonce, aad: aad) == nil)
        var otherNonce = nonce
        otherNonce[11] ^= 0x01
        #expect(try AES256GCM.open(sealed, key: key, nonce: otherNonce, aad: aad) == nil)
        #expect(try AES256GCM.open(sealed, key: key, nonce: nonce, aad: []) == nil)
        for length in [0, 1, 15, 16, sealed.count - 1] {
            #expect(try AES256GCM.open(Array(sealed.prefix(length)), key: key, nonce: nonce, aad: aad) == nil)
        }
        #expect(throws: CryptoError(.malformedKey, "")) { try AES256GCM.seal(message, key: Array(key.prefix(16)), nonce: nonce) }
        #expect(throws: CryptoError(.malformedKey, "")) { try AES256GCM.open(sealed, key: key, nonce: Array(nonce.prefix(8))) }
    }
}
