import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// COSE_Key rules the mutation campaign (Docs/Mutation.md) found without a test of their own.
struct COSEKeyRuleTests {
    /// An AKP (ML-DSA) key with a public key of the right length, plus `extra` members.
    static func akp(_ algorithm: COSEAlgorithm, length: Int, extra: [(CBORItem, CBORItem)] = []) -> [UInt8] {
        CBOREncoder.encode(
            CBORItem.map(
                [
                    (.int(1), .int(7)), (.int(3), .int(Int64(algorithm.rawValue))),
                    (.int(-1), .bytes([UInt8](repeating: 0x5a, count: length))),
                ] + extra))
    }

    @Test("an AKP (ML-DSA) key carrying its private seed (label -2) is refused, whatever libcrypto provides")
    func akpPrivateMemberIsRefused() throws {
        for (algorithm, length) in [(COSEAlgorithm.mlDSA44, 1312), (.mlDSA65, 1952), (.mlDSA87, 2592)] {
            let withSeed = Self.akp(algorithm, length: length, extra: [(.int(-2), .bytes([UInt8](repeating: 0x11, count: 32)))])
            #expect(throws: CryptoError(.malformedKey, ""), "\(algorithm)") { try COSEKey(cbor: withSeed[...]) }
        }
    }

    @Test("an AKP key with an empty pub is malformed, whatever libcrypto provides")
    func akpEmptyPublicKeyIsMalformed() throws {
        for algorithm in [COSEAlgorithm.mlDSA44, .mlDSA65, .mlDSA87] {
            #expect(throws: CryptoError(.malformedKey, ""), "\(algorithm)") {
                try COSEKey(cbor: Self.akp(algorithm, length: 0)[...])
            }
        }
    }

    @Test("an ML-DSA-65 key does not verify as ML-DSA-44 (where libcrypto has ML-DSA)")
    func mlDSAParameterSetMustMatchTheAlgorithm() throws {
        guard LibCrypto.supportsMLDSA else { return }
        let key = try PrivateKey.generate(.mlDSA65)
        let signature = try key.sign([1, 2, 3], algorithm: .mlDSA65)
        #expect(throws: CryptoError(.algorithmMismatch, "")) {
            _ = try key.publicKey.verify(signature: signature[...], over: [1, 2, 3], algorithm: .mlDSA44)
        }
        #expect(try key.publicKey.verify(signature: signature[...], over: [1, 2, 3], algorithm: .mlDSA65))
    }

    @Test("a key map built in memory with a repeated label is refused (the CBOR decoder never yields one)")
    func repeatedLabelIsRefused() throws {
        let item = try CBOR.decode(try COSEKeyTests.w3cKeyBytes())
        let entries = try #require(item.mapEntries)
        for (index, entry) in entries.enumerated() {
            var repeated = entries
            repeated.insert(entry, at: index + 1)
            #expect(throws: CryptoError(.malformedKey, ""), "label \(entry.key)") {
                try COSEKey(item: .map(repeated.map { ($0.key, $0.value) }))
            }
        }
    }

    static func rsaCOSE(n: [UInt8], e: [UInt8] = [0x01, 0x00, 0x01]) -> [UInt8] {
        CBOREncoder.encode(
            CBORItem.map([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(n)), (.int(-2), .bytes(e)),
            ]))
    }

    @Test("an RSA modulus of zero is malformed, not merely weak")
    func zeroModulusIsMalformed() throws {
        for n: [UInt8] in [[0x00], [0x00, 0x00], [UInt8](repeating: 0, count: 256)] {
            #expect(throws: CryptoError(.malformedKey, ""), "\(n.count) zero bytes") {
                try COSEKey(cbor: Self.rsaCOSE(n: n)[...])
            }
        }
    }

    @Test("an RSA modulus above 16384 bits is refused before it is built, even one with no small factor")
    func oversizedModulusIsRefused() throws {
        // 16 416 bits, odd, free of the small primes the public-key check tries.
        var n = [UInt8](repeating: 0xA7, count: 2052)
        var attempts = 0
        while (try? RSAPublicKeyCheck.check(n: n, e: [0x01, 0x00, 0x01])) == nil, attempts < 30_000 {
            n[n.count - 1] = n[n.count - 1] &+ 2
            if n[n.count - 1] == 0x01 { n[n.count - 2] &+= 1 }
            attempts += 1
        }
        try #require((try? RSAPublicKeyCheck.check(n: n, e: [0x01, 0x00, 0x01])) != nil)
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: Self.rsaCOSE(n: n)[...]) }
    }

    @Test("an even RSA modulus is refused (2 is a factor the small-prime sieve does not try)")
    func evenModulusIsRefused() throws {
        let good = try COSEKey(cbor: try #require(SignatureTests.rsaKey).coseKey(algorithm: .rs256)[...])
        // 2·n: even, and free of every odd small prime (n = pq has none), so only the parity rule refuses it.
        var doubled: [UInt8] = []
        var carry: UInt8 = 0
        for byte in try #require(good.rsaParameters?.n).reversed() {
            doubled.insert(byte << 1 | carry, at: 0)
            carry = byte >> 7
        }
        if carry != 0 { doubled.insert(carry, at: 0) }
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: Self.rsaCOSE(n: doubled)[...]) }
    }
}
