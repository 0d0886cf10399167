import Crypto

/// Bytes from the OS CSPRNG for the server's secrets: session and refresh tokens, App Attest
/// challenges, a development session key. swift-crypto's `SymmetricKey(size:)` draws them from
/// `SystemRandomNumberGenerator` eight bytes a call (a 32-byte token is four `getrandom` calls,
/// not thirty-two as with `UInt8.random` per byte).
package enum SecureRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
