/// base64url (RFC 4648 §5), the binary encoding of WebAuthn's JSON forms.
///
/// Encoding never pads. Decoding is strict: only the URL-safe alphabet, no white
/// space, and the unused low bits of the last character must be zero, so every byte
/// string has exactly one accepted encoding. Padding (`=`) is rejected unless the
/// caller passes `allowPadding: true`, and then it must be exactly the padding
/// RFC 4648 prescribes for the length.
package enum Base64URL {
    /// Why a base64url string was refused.
    package struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The index (in UTF-8 bytes) of the offending character.
        package let offset: Int
        /// What was wrong.
        package let reason: String
        /// `base64url at <offset>: <reason>`.
        package var description: String { "base64url at \(offset): \(reason)" }
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
    package static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
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
    package static func decode(_ string: String, allowPadding: Bool = false,
                              allowNonZeroTrailingBits: Bool = false) throws(DecodingError) -> [UInt8] {
        if !allowPadding && !allowNonZeroTrailingBits {
            // The common case: a native string's UTF-8 is read in place.
            if let fast = string.utf8.withContiguousStorageIfAvailable({ strictDecode($0) }), let bytes = fast {
                return bytes
            }
        }
        return try decodeReportingErrors(Array(string.utf8), allowPadding: allowPadding,
                                         allowNonZeroTrailingBits: allowNonZeroTrailingBits)
    }

    /// Decodes strict, unpadded base64url held as UTF-8 bytes (for example a slice of a
    /// JSON document), with exactly the rules and errors of ``decode(_:allowPadding:allowNonZeroTrailingBits:)``.
    /// - Parameter utf8: the encoded text's bytes.
    /// - Returns: the bytes.
    /// - Throws: ``DecodingError`` as ``decode(_:allowPadding:allowNonZeroTrailingBits:)`` does.
    package static func decode(utf8: ArraySlice<UInt8>) throws(DecodingError) -> [UInt8] {
        if let bytes = strictDecode(utf8) { return bytes }
        return try decodeReportingErrors(Array(utf8), allowPadding: false, allowNonZeroTrailingBits: false)
    }

    /// Whether `text` is exactly the unpadded base64url encoding of `bytes`, decided
    /// without building the encoding and in time that does not depend on where they differ.
    /// - Parameters:
    ///   - text: the text.
    ///   - bytes: the bytes.
    /// - Returns: `true` when `text == encode(bytes)`.
    package static func isEncoding(_ text: String, of bytes: [UInt8]) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable({ matches($0, bytes) }) { return result }
        let copy = Array(text.utf8)
        return copy.withUnsafeBufferPointer { matches($0, bytes) }
    }

    private static func matches(_ text: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8]) -> Bool {
        let full = bytes.count / 3, left = bytes.count % 3
        guard text.count == full * 4 + (left == 0 ? 0 : left + 1) else { return false }
        var difference: UInt8 = 0
        var out = 0
        func emit(_ value: UInt32) {
            difference |= text[out] ^ alphabet[Int(value & 63)]
            out += 1
        }
        var i = 0
        for _ in 0..<full {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            emit(n >> 18); emit(n >> 12); emit(n >> 6); emit(n)
            i += 3
        }
        if left == 1 {
            let n = UInt32(bytes[i]) << 16
            emit(n >> 18); emit(n >> 12)
        } else if left == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            emit(n >> 18); emit(n >> 12); emit(n >> 6)
        }
        return difference == 0
    }

    /// One pass over strict unpadded base64url; nil on anything the strict rules refuse
    /// (the caller then reruns the checks in order to report the first error).
    private static func strictDecode<C: Collection<UInt8>>(_ chars: C) -> [UInt8]? {
        let count = chars.count
        guard count % 4 != 1 else { return nil }
        let table = decodeTable
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var iterator = chars.makeIterator()
        // Whole groups of four characters make three bytes.
        for _ in 0..<(count / 4) {
            guard let c0 = iterator.next(), let c1 = iterator.next(), let c2 = iterator.next(), let c3 = iterator.next()
            else { return nil }
            let v0 = table[Int(c0)], v1 = table[Int(c1)], v2 = table[Int(c2)], v3 = table[Int(c3)]
            guard (v0 | v1 | v2 | v3) & 0xC0 == 0 else { return nil }
            let n = UInt32(v0) << 18 | UInt32(v1) << 12 | UInt32(v2) << 6 | UInt32(v3)
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
            out.append(UInt8(truncatingIfNeeded: n))
        }
        // Two or three characters left make one or two bytes; the unused bits must be zero.
        switch count % 4 {
        case 2:
            guard let c0 = iterator.next(), let c1 = iterator.next() else { return nil }
            let v0 = table[Int(c0)], v1 = table[Int(c1)]
            guard (v0 | v1) & 0xC0 == 0, v1 & 0x0F == 0 else { return nil }
            out.append(v0 << 2 | v1 >> 4)
        case 3:
            guard let c0 = iterator.next(), let c1 = iterator.next(), let c2 = iterator.next() else { return nil }
            let v0 = table[Int(c0)], v1 = table[Int(c1)], v2 = table[Int(c2)]
            guard (v0 | v1 | v2) & 0xC0 == 0, v2 & 0x03 == 0 else { return nil }
            out.append(v0 << 2 | v1 >> 4)
            out.append((v1 & 0x0F) << 4 | v2 >> 2)
        default:
            break
        }
        return out
    }

    private static func decodeReportingErrors(_ input: [UInt8], allowPadding: Bool,
                                              allowNonZeroTrailingBits: Bool) throws(DecodingError) -> [UInt8] {
        var chars = input
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
