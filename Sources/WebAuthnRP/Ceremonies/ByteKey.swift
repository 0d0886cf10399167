/// Bytes as a dictionary key (challenges, credential ids), hashed eight bytes at a time.
///
/// `[UInt8]` hashes byte by byte; the in-memory stores look up a 16 to 64-byte key a few
/// times per ceremony, so feeding the hasher whole words saves most of that. Equal
/// bytes give equal words, so equal keys hash alike; the hasher is still Swift's seeded one.
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        let span = bytes.span
        let count = span.count
        hasher.combine(count)
        var index = 0
        while index + 8 <= count {
            // An eight-byte sub-span: its reads need no checks.
            let eight = span.extracting(index..<(index + 8))
            var word: UInt64 = 0
            for offset in 0..<8 { word = word << 8 | UInt64(eight[offset]) }
            hasher.combine(word)
            index += 8
        }
        var tail: UInt64 = 0
        while index < count {
            tail = tail << 8 | UInt64(span[index])
            index += 1
        }
        hasher.combine(tail)
    }

    static func == (a: ByteKey, b: ByteKey) -> Bool { a.bytes == b.bytes }
}
