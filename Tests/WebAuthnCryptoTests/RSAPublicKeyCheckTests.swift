import Testing
import WebAuthnCoding

@testable import WebAuthnCrypto

/// The RSA public-key check is deterministic: the same key gets the same verdict every time.
struct RSAPublicKeyCheckTests {
    /// Fuzz/FailingCases/cose-key/rsa-check-nondeterministic-fd557aa5e498: an RS256 COSE key whose
    /// 2048-bit modulus is a mutated one. libcrypto's probabilistic RSA check refused it on some
    /// calls and accepted it on others, so one registration could get two verdicts.
    static let mutatedModulusKey = hex(
        "a4010303390100205901009e615c5620368baa9c21cea36d5b7fffffffffffffff905702419dc980edac1aaf8e30f73b73fe058f10"
            + "f6893c5d2ea3ac0bb995920c942fc9433959d522c8bb00ecebe7a7f20a95273ad49aba441f4c2c9b6990d1c8c774eb996d239e07"
            + "90c599a12a72ee12865baede97ebc2fe62edbc202dff4b010268636f6d70106f756e644afa4936429875c2fe62edbc202dff4b2d"
            + "56c3cd4d95fc27674129b739331411d5c5766c54dc02b2d0377dd901909bedf867942ac682703b09f138499aab9c1cd9780ac68f"
            + "266a9501f1f0864b0c28b808e5b62b88fe4b467a4c3b031e8796830e42f21b28faa5cff0e3761e6ed5c5170ec75b4cbb6fa113f7"
            + "c5cd8bc2e2372143010001")

    static func verdict(_ bytes: [UInt8]) -> String {
        do {
            let key = try COSEKey(cbor: bytes[...])
            return "accepted \(key.algorithm)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aHostileModulusGetsTheSameVerdictEveryTime() {
        let first = Self.verdict(Self.mutatedModulusKey)
        for _ in 0..<300 {
            #expect(Self.verdict(Self.mutatedModulusKey) == first)
        }
        // No small factor, odd, e = 65537: the deterministic rules accept it.
        #expect(first == "accepted RS256")
    }

    static func code(n: [UInt8], e: [UInt8]) -> CryptoError.Code? {
        do {
            try RSAPublicKeyCheck.check(n: n, e: e)
            return nil
        } catch {
            return error.code
        }
    }

    static let f4: [UInt8] = [0x01, 0x00, 0x01]

    @Test func theModulusMustBeOddWithoutSmallFactors() {
        // 757 * 761 = 576077: both factors above the table, accepted.
        #expect(Self.code(n: [0x08, 0xCA, 0x4D], e: Self.f4) == nil)
        // 751 * 757 = 568507: 751 is the largest small prime.
        #expect(Self.code(n: [0x08, 0xAC, 0xBB], e: Self.f4) == .malformedKey)
        // 3 * 757 = 2271.
        #expect(Self.code(n: [0x08, 0xDF], e: Self.f4) == .malformedKey)
        // Even, empty, zero.
        #expect(Self.code(n: [0x08, 0xCA, 0x4E], e: Self.f4) == .malformedKey)
        #expect(Self.code(n: [], e: Self.f4) == .malformedKey)
        #expect(Self.code(n: [0, 0], e: Self.f4) == .malformedKey)
    }

    @Test func theExponentMustBeOddAndBetween2To16And2To256() {
        let n: [UInt8] = [0x08, 0xCA, 0x4D]
        #expect(Self.code(n: n, e: [0x03]) == .malformedKey)
        #expect(Self.code(n: n, e: [0xFF, 0xFF]) == .malformedKey)  // 2^16 - 1
        #expect(Self.code(n: n, e: [0x01, 0x00, 0x00]) == .malformedKey)  // 2^16, even
        #expect(Self.code(n: n, e: [0x00, 0x01, 0x00, 0x01]) == nil)  // leading zero ignored
        #expect(Self.code(n: n, e: [0x01, 0x00, 0x02]) == .malformedKey)  // even
        #expect(Self.code(n: n, e: [UInt8](repeating: 0xFF, count: 32)) == nil)  // 2^256 - 1
        #expect(Self.code(n: n, e: [0x01] + [UInt8](repeating: 0x00, count: 31) + [0x01]) == .malformedKey)  // > 2^256
    }

    @Test func remainderMatchesMachineArithmetic() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let value = UInt64.random(in: 0...UInt64.max, using: &generator)
            let bytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            for prime in RSAPublicKeyCheck.smallPrimes.prefix(20) + [751] {
                #expect(UInt64(RSAPublicKeyCheck.remainder(bytes[...], prime)) == value % UInt64(prime))
            }
        }
        #expect(RSAPublicKeyCheck.smallPrimes.first == 3 && RSAPublicKeyCheck.smallPrimes.last == 751)
        #expect(RSAPublicKeyCheck.smallPrimes.count == 132)
    }
}
