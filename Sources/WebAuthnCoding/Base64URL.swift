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
    /// The decoding table for whole groups of four characters: for the character at each
    /// position of a group, its six bits already shifted to where they go in the group's 24
    /// bits (entries `256 * position + character`), and bit 31 set for a character outside
    /// the alphabet, so a group is four lookups or-ed together and one test.
    private static let groupTable: [UInt32] = {
        var table = [UInt32](repeating: 0x8000_0000, count: 1024)
        for (i, c) in alphabet.enumerated() {
            let value = UInt32(i)
            table[Int(c)] = value << 18
            table[256 + Int(c)] = value << 12
            table[512 + Int(c)] = value << 6
            table[768 + Int(c)] = value
        }
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
    package static func decode(
        _ string: String, allowPadding: Bool = false,
        allowNonZeroTrailingBits: Bool = false
    ) throws(DecodingError) -> [UInt8] {
        if !allowPadding && !allowNonZeroTrailingBits {
            // The common case: a string's UTF-8 view is read in place, one pass.
            if let bytes = strictDecode(string.utf8.span) { return bytes }
        }
        return try decodeReportingErrors(
            Array(string.utf8), allowPadding: allowPadding,
            allowNonZeroTrailingBits: allowNonZeroTrailingBits)
    }

    /// Decodes strict, unpadded base64url held as UTF-8 bytes (for example a slice of a
    /// JSON document), with exactly the rules and errors of ``decode(_:allowPadding:allowNonZeroTrailingBits:)``.
    /// - Parameter utf8: the encoded text's bytes.
    /// - Returns: the bytes.
    /// - Throws: ``DecodingError`` as ``decode(_:allowPadding:allowNonZeroTrailingBits:)`` does.
    package static func decode(utf8: ArraySlice<UInt8>) throws(DecodingError) -> [UInt8] {
        if let bytes = strictDecode(utf8.span) { return bytes }
        return try decodeReportingErrors(Array(utf8), allowPadding: false, allowNonZeroTrailingBits: false)
    }

    /// The bytes of strict, unpadded base64url, or nil for anything
    /// ``decode(utf8:)`` refuses (without saying why).
    /// - Parameter utf8: the encoded text's bytes.
    /// - Returns: the bytes, or nil.
    package static func decodeIfStrict(_ utf8: Span<UInt8>) -> [UInt8]? {
        strictDecode(utf8)
    }

    /// ``decodeIfStrict(_:)`` appending the bytes to `out` (so that several members can share
    /// one buffer); false, with `out` unchanged, for anything ``decode(utf8:)`` refuses.
    /// - Parameters:
    ///   - utf8: the encoded text's bytes.
    ///   - out: receives the bytes after what it holds.
    /// - Returns: whether the text was strict base64url.
    package static func decodeIfStrict(_ utf8: Span<UInt8>, appendingTo out: inout [UInt8]) -> Bool {
        strictDecode(utf8, appendingTo: &out)
    }

    /// Whether `text` is exactly the unpadded base64url encoding of `bytes`, decided
    /// without building the encoding and in time that does not depend on where they differ.
    /// - Parameters:
    ///   - text: the text.
    ///   - bytes: the bytes.
    /// - Returns: `true` when `text == encode(bytes)`.
    package static func isEncoding(_ text: String, of bytes: [UInt8]) -> Bool {
        matches(text.utf8.span, bytes.span)
    }

    /// ``isEncoding(_:of:)`` for text given as its UTF-8 bytes.
    /// - Parameters:
    ///   - utf8: the text's bytes.
    ///   - bytes: the bytes.
    /// - Returns: `true` when `utf8` is exactly `encode(bytes)`'s UTF-8.
    package static func isEncoding(utf8: ArraySlice<UInt8>, of bytes: [UInt8]) -> Bool {
        matches(utf8.span, bytes.span)
    }

    private static func matches(_ text: Span<UInt8>, _ bytes: Span<UInt8>) -> Bool {
        let full = bytes.count / 3, left = bytes.count % 3
        guard text.count == full * 4 + (left == 0 ? 0 : left + 1) else { return false }
        let alphabetBytes = alphabet
        // Sub-spans of constant lengths, so that the indexes below need no checks.
        let alphabet = alphabetBytes.span.extracting(0..<min(64, alphabetBytes.count))
        var difference: UInt8 = 0
        var i = 0, j = 0
        for _ in 0..<full {
            let three = bytes.extracting(i..<(i + 3)), four = text.extracting(j..<(j + 4))
            let n = UInt32(three[0]) << 16 | UInt32(three[1]) << 8 | UInt32(three[2])
            difference |= four[0] ^ alphabet[Int(n >> 18 & 63)]
            difference |= four[1] ^ alphabet[Int(n >> 12 & 63)]
            difference |= four[2] ^ alphabet[Int(n >> 6 & 63)]
            difference |= four[3] ^ alphabet[Int(n & 63)]
            i += 3
            j += 4
        }
        if left == 1 {
            let n = UInt32(bytes[i]) << 16
            difference |= text[j] ^ alphabet[Int(n >> 18 & 63)]
            difference |= text[j + 1] ^ alphabet[Int(n >> 12 & 63)]
        } else if left == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            difference |= text[j] ^ alphabet[Int(n >> 18 & 63)]
            difference |= text[j + 1] ^ alphabet[Int(n >> 12 & 63)]
            difference |= text[j + 2] ^ alphabet[Int(n >> 6 & 63)]
        }
        return difference == 0
    }

    /// One pass over strict unpadded base64url; nil on anything the strict rules refuse
    /// (the caller then reruns the checks in order to report the first error). Reads the
    /// characters and the table through spans and writes the bytes in place into a
    /// result of the final size.
    private static func strictDecode(_ chars: Span<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        guard strictDecode(chars, appendingTo: &out) else { return nil }
        return out
    }

    /// ``strictDecode(_:)`` writing after what `out` holds; on refusal `out` is left as it was.
    private static func strictDecode(_ chars: Span<UInt8>, appendingTo out: inout [UInt8]) -> Bool {
        let count = chars.count
        guard count % 4 != 1 else { return false }
        let tableBytes = decodeTable
        let table = tableBytes.span
        let groupTableWords = groupTable
        // A sub-span of a constant length: the compiler then knows every index below is in range.
        let groupTable = groupTableWords.span.extracting(0..<min(1024, groupTableWords.count))
        let groups = count / 4
        let first = out.count
        out.append(contentsOf: repeatElement(0, count: groups * 3 + (count % 4 == 0 ? 0 : count % 4 - 1)))
        var bytes = out.mutableSpan
        // Whole groups of four characters make three bytes, each group read as a four-byte
        // sub-span, so that its reads need no checks.
        var i = 0, o = first
        while i + 4 <= count, o + 3 <= bytes.count {
            let group = chars.extracting(i..<(i + 4))
            let n =
                groupTable[Int(group[0])] | groupTable[256 + Int(group[1])]
                | groupTable[512 + Int(group[2])] | groupTable[768 + Int(group[3])]
            guard n & 0x8000_0000 == 0 else {
                _ = consume bytes
                out.removeSubrange(first...)
                return false
            }
            bytes[o] = UInt8(truncatingIfNeeded: n >> 16)
            bytes[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
            bytes[o + 2] = UInt8(truncatingIfNeeded: n)
            i += 4
            o += 3
        }
        // Two or three characters left make one or two bytes; the unused bits must be zero.
        switch count % 4 {
        case 2:
            let v0 = table[Int(chars[i])], v1 = table[Int(chars[i + 1])]
            guard (v0 | v1) & 0xC0 == 0, v1 & 0x0F == 0 else {
                _ = consume bytes
                out.removeSubrange(first...)
                return false
            }
            bytes[o] = v0 << 2 | v1 >> 4
        case 3:
            let v0 = table[Int(chars[i])], v1 = table[Int(chars[i + 1])], v2 = table[Int(chars[i + 2])]
            guard (v0 | v1 | v2) & 0xC0 == 0, v2 & 0x03 == 0 else {
                _ = consume bytes
                out.removeSubrange(first...)
                return false
            }
            bytes[o] = v0 << 2 | v1 >> 4
            bytes[o + 1] = (v1 & 0x0F) << 4 | v2 >> 2
        default:
            break
        }
        _ = consume bytes
        return true
    }

    private static func decodeReportingErrors(
        _ input: [UInt8], allowPadding: Bool,
        allowNonZeroTrailingBits: Bool
    ) throws(DecodingError) -> [UInt8] {
        var chars = input
        if let firstPad = chars.firstIndex(of: UInt8(ascii: "=")) {
            guard allowPadding else { throw DecodingError(offset: firstPad, reason: "padding is not accepted") }
            let padCount = chars.count - firstPad
            guard chars.count % 4 == 0, padCount <= 2, chars[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }),
                (firstPad % 4) + padCount == 4
            else {
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
