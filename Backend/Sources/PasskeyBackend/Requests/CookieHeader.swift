/// Finds a cookie's value in a request's `Cookie` header lines, for every adapter, in one pass
/// over the bytes. A login looks up two cookies (the session, then its ceremony's) in a header
/// of several hundred characters; a framework's parser that splits the whole header into
/// `Character`s at each lookup cost more than the rest of the cookie work together.
///
/// RFC 6265 §5.4's `cookie-string`: pairs separated by `;`, each `name=value`, with optional
/// spaces or tabs around them. The name compares exactly (case matters); the first pair of that
/// name counts, as in the browsers' order of more specific paths first. A pair without `=` is
/// skipped. The value is returned as sent (the backend's own values are base64url and need no
/// unquoting); whether it is valid is for its reader (the signer, the session store).
package enum CookieHeader {
    /// The value of the first cookie called `name` in `lines` (every `Cookie` header line of the
    /// request, in order), or nil when none is.
    package static func value(of name: String, in lines: some Sequence<String>) -> String? {
        let wanted = Array(name.utf8)
        for line in lines {
            if let value = value(of: wanted, in: Array(line.utf8)) { return value }
        }
        return nil
    }

    private static func value(of name: [UInt8], in bytes: [UInt8]) -> String? {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            // One pair is bytes[start..<end]; trim its spaces and tabs.
            var lower = start, upper = end
            while lower < upper, isSpace(bytes[lower]) { lower += 1 }
            while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
            if upper - lower > name.count, bytes[lower + name.count] == UInt8(ascii: "="),
                bytes[lower..<(lower + name.count)].elementsEqual(name)
            {
                return String(decoding: bytes[(lower + name.count + 1)..<upper], as: UTF8.self)
            }
            start = end + 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
