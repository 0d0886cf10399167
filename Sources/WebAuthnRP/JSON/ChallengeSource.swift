/// Where the option builders get their challenges.
enum ChallengeSource {
    /// Bytes in a freshly drawn challenge (WebAuthn Level 3 §13.4.3 asks for at least 16).
    static let length = 32
    /// The shortest challenge the builders accept from a caller.
    static let minimumLength = 16

    /// Returns the caller's challenge after checking its length, or a fresh one.
    static func challenge(_ supplied: [UInt8]?) throws(WebAuthnError) -> [UInt8] {
        guard let supplied else { return try fresh() }
        guard supplied.count >= minimumLength else {
            throw WebAuthnError(.malformed, "options: a challenge of \(supplied.count) bytes is shorter than \(minimumLength)")
        }
        return supplied
    }

    /// 32 bytes from the system's cryptographically secure generator.
    // TODO(lead): draw from `SecureRandom.bytes(count: length)` (WebAuthnCrypto, OpenSSL RAND_bytes)
    // once it is merged, mapping CryptoError to WebAuthnError, so the package has one random source.
    // Until then the standard library's SystemRandomNumberGenerator (getrandom(2) on Linux,
    // arc4random on Apple platforms) is used; it is also a CSPRNG.
    static func fresh() throws(WebAuthnError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(length)
        while out.count < length {
            let word: UInt64 = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where out.count < length {
                out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return out
    }
}
