/// base64url (RFC 4648 §5), the binary encoding of WebAuthn's JSON forms.
///
/// Encoding never pads. Decoding is strict: only the URL-safe alphabet, no white
/// space, and the unused low bits of the last character must be zero, so every byte
/// string has exactly one accepted encoding. Padding (`=`) is rejected unless the
/// caller passes `allowPadding: true`, and then it must be exactly the padding
/// RFC 4648 prescribes for the length.
public enum Base64URL {
    /// Why a base64url string was refused.
    public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The index (in UTF-8 bytes) of the offending character.
        public let offset: Int
        /// What was wrong.
        public let reason: String
        /// `base64url at <offset>: <reason>`.
        public var description: String { "base64url at \(offset): \(reason)" }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Encodes bytes as unpadded base64url.
    /// - Parameter bytes: the bytes.
    /// - Returns: the encoding.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            for shift in stride(from: 18, through: 0, by: -6) { out.append(alphabet[Int((n >> UInt32(shift)) & 63)]) }
            i += 3
        }
        let left = input.count - i
        if left == 1 {
            let n = UInt32(input[i]) << 16
            out.append(alphabet[Int((n >> 18) & 63)])
            out.append(alphabet[Int((n >> 12) & 63)])
        } else if left == 2 {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(alphabet[Int((n >> 18) & 63)])
            out.append(alphabet[Int((n >> 12) & 63)])
            out.append(alphabet[Int((n >> 6) & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url.
    /// - Parameters:
    ///   - string: the encoded text.
    ///   - allowPadding: accept the exact RFC 4648 padding (default false: any `=` is rejected).
    /// - Returns: the bytes.
    ///   - allowNonZeroTrailingBits: ignore set bits below the last whole byte instead of
    ///     rejecting them (default false). Only for values the relying party authored
    ///     itself, such as a stored challenge; never for what a client sends.
    /// - Throws: ``DecodingError`` for a character outside the alphabet, a length that
    ///   cannot occur (1 mod 4), non-zero trailing bits, or padding.
    public static func decode(_ string: String, allowPadding: Bool = false,
                              allowNonZeroTrailingBits: Bool = false) throws(DecodingError) -> [UInt8] {
        var chars = Array(string.utf8)
        if let firstPad = chars.firstIndex(of: UInt8(ascii: "=")) {
            guard allowPadding else { throw DecodingError(offset: firstPad, reason: "padding is not accepted") }
            let padCount = chars.count - firstPad
            guard chars.count % 4 == 0, padCount <= 2, chars[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }),
                  (firstPad % 4) + padCount == 4 else {
                throw DecodingError(offset: firstPad, reason: "padding is not the RFC 4648 padding for this length")
            }
            chars.removeLast(padCount)
        }
        guard chars.count % 4 != 1 else {
            throw DecodingError(offset: chars.count - 1, reason: "length \(chars.count) cannot be base64url")
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (index, c) in chars.enumerated() {
            let v = decodeTable[Int(c)]
            guard v != 0xff else {
                throw DecodingError(offset: index, reason: "character 0x\(String(c, radix: 16)) is outside the base64url alphabet")
            }
            accumulator = (accumulator << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 || allowNonZeroTrailingBits else {
            throw DecodingError(offset: chars.count - 1, reason: "non-zero trailing bits (non-canonical encoding)")
        }
        return out
    }
}
