/// Bytes from the OS CSPRNG (`SystemRandomNumberGenerator`: `getrandom(2)` on Linux) for the
/// server's secrets: session and refresh tokens, App Attest challenges, a development session
/// key. Drawn eight bytes per call of the generator, not one, so a 32-byte token costs four
/// system calls instead of thirty-two.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }
}
