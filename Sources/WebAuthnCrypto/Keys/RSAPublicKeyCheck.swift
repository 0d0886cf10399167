/// The RSA public-key check, done deterministically in Swift.
///
/// libcrypto's `EVP_PKEY_public_check` (and its `_quick` variant) for RSA ends in a
/// Miller-Rabin test with random witnesses, so a hostile modulus with medium-sized factors
/// could be accepted by one call and refused by the next: the same registration got
/// different verdicts (found by the `cose-key` fuzz target, Fuzz/FailingCases/cose-key/).
/// This check keeps the deterministic rules of that check (SP 800-56B §6.4.2.2) and leaves
/// out the probabilistic one: the modulus is odd and has no prime factor below 752, and the
/// exponent is odd with 2^16 < e < 2^256. A modulus that is a prime or a prime power passes;
/// it can only hurt the party that registered it, since signatures are verified, not made,
/// with it.
enum RSAPublicKeyCheck {
    /// The odd primes up to 751, the small factors libcrypto's check also rules out.
    static let smallPrimes: [UInt32] = {
        var primes: [UInt32] = []
        for candidate in stride(from: UInt32(3), through: 751, by: 2)
        where primes.allSatisfy({ candidate % $0 != 0 }) {
            primes.append(candidate)
        }
        return primes
    }()

    /// Checks big-endian `n` and `e`.
    /// - Throws: ``CryptoError`` `malformedKey` naming the rule that failed.
    static func check(n: [UInt8], e: [UInt8]) throws(CryptoError) {
        let modulus = n.drop { $0 == 0 }
        let exponent = e.drop { $0 == 0 }
        guard let last = modulus.last, last & 1 == 1 else {
            throw CryptoError(.malformedKey, "RSA modulus is even")
        }
        guard let lastE = exponent.last, lastE & 1 == 1 else {
            throw CryptoError(.malformedKey, "RSA public exponent is even")
        }
        // 2^16 < e: more than two significant bytes, or three bytes (e ≥ 2^16, and e = 2^16 is even).
        // e < 2^256: at most 32 significant bytes.
        guard exponent.count >= 3, exponent.count <= 32 else {
            throw CryptoError(.malformedKey, "RSA public exponent is outside 2^16 < e < 2^256")
        }
        for prime in smallPrimes where remainder(modulus, prime) == 0 {
            throw CryptoError(.malformedKey, "RSA modulus has the small factor \(prime)")
        }
    }

    /// `value mod divisor` for a big-endian unsigned integer.
    static func remainder(_ value: ArraySlice<UInt8>, _ divisor: UInt32) -> UInt32 {
        var result: UInt64 = 0
        for byte in value { result = (result << 8 | UInt64(byte)) % UInt64(divisor) }
        return UInt32(truncatingIfNeeded: result)
    }
}
