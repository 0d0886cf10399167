import WebAuthnCrypto

/// The challenge an options builder issues: the caller's own, held to a minimum length, or 32
/// bytes drawn fresh from the CSPRNG.
enum OptionsChallenge {
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

    /// 32 fresh bytes from libcrypto's CSPRNG (`RAND_bytes`), the package's one random source.
    static func fresh() throws(WebAuthnError) -> [UInt8] {
        try random(count: length, "options: no random challenge could be drawn")
    }

    /// `count` bytes from the CSPRNG; a failure is the server's (`serverFault`), never the client's.
    static func random(count: Int, _ failure: String) throws(WebAuthnError) -> [UInt8] {
        do {
            return try SecureRandom.bytes(count: count)
        } catch {
            throw WebAuthnError(.serverFault, "\(failure): \(error)")
        }
    }
}

extension PublicKeyCredentialUserEntityJSON {
    /// A new user handle: 64 random bytes from libcrypto's CSPRNG, as L3 §14.6.1 advises (a
    /// random value of the maximum length that says nothing about the user). Keep it with the
    /// account; it is `user.id` in every registration of that account.
    /// - Returns: 64 random bytes.
    /// - Throws: ``WebAuthnError`` when no random bytes could be drawn.
    public static func newUserHandle() throws(WebAuthnError) -> [UInt8] {
        try OptionsChallenge.random(count: 64, "no random user handle could be drawn")
    }
}
