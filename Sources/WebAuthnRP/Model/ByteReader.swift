/// A bounds-checked reader over received bytes. Every read checks the length
/// against what remains and throws `malformed` naming the field; slices share the
/// caller's buffer, so nothing that is later hashed or signed is copied.
struct ByteReader {
    /// The bytes not read yet.
    private(set) var remaining: ArraySlice<UInt8>
    private let start: Int
    private let context: String

    /// - Parameters:
    ///   - bytes: the input.
    ///   - context: the structure's name, used in error messages (for example `authenticator data`).
    init(_ bytes: ArraySlice<UInt8>, context: String) {
        self.remaining = bytes
        self.start = bytes.startIndex
        self.context = context
    }

    /// Offset of the next unread byte from the start of the input.
    var offset: Int { remaining.startIndex - start }

    /// Whether every byte was read.
    var isAtEnd: Bool { remaining.isEmpty }

    /// Takes the next `count` bytes.
    mutating func take(_ count: Int, _ what: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining.count else {
            throw WebAuthnError(
                .malformed, "\(context): \(what) needs \(count) byte(s) at offset \(offset) but only \(remaining.count) remain")
        }
        let slice = remaining.prefix(count)
        remaining = remaining.dropFirst(count)
        return slice
    }

    /// Reads one byte.
    mutating func readUInt8(_ what: String) throws(WebAuthnError) -> UInt8 {
        let b = try take(1, what)
        return b.first ?? 0  // take(1) returned exactly one byte
    }

    /// Reads a big-endian unsigned integer of `width` bytes (at most 8).
    mutating func readBigEndian(_ width: Int, _ what: String) throws(WebAuthnError) -> UInt64 {
        let bytes = try take(width, what)
        return bytes.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    }

    /// Replaces the unread bytes with a suffix of them (after an embedded CBOR item was decoded).
    mutating func skip(to rest: ArraySlice<UInt8>) {
        remaining = rest
    }
}
