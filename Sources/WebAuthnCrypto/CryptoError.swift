/// Why the crypto layer refused a key, signature or certificate.
///
/// A stable ``Code`` plus a reason that keeps the cause (libcrypto's error text
/// where it has one). Equality compares the code only.
public struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// A COSE key, SPKI or raw key does not parse or breaks a COSE rule.
        case malformedKey
        /// The algorithm, key type or curve is unknown or not allowed here.
        case unsupportedAlgorithm
        /// The algorithm is known but the linked libcrypto does not provide it.
        case unsupportedByLibCrypto
        /// The key is valid but too weak for the policy (for example RSA below 2048 bits).
        case weakKey
        /// kty, alg and crv (or the key and the algorithm asked for) do not agree.
        case algorithmMismatch
        /// A signature is not in the encoding its algorithm requires (ECDSA: DER).
        case malformedSignature
        /// A certificate does not parse.
        case malformedCertificate
        /// A certificate chain does not verify to an anchor at the given time.
        case untrustedChain
        /// libcrypto failed where it should not have; the reason carries its text.
        case libcrypto
    }

    /// The category.
    public let code: Code
    /// What was wrong; for logs and people, not part of equality.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the category.
    ///   - reason: what was wrong.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    /// `crypto.<code>: <reason>`.
    public var description: String { "crypto.\(code.rawValue): \(reason)" }
}
