#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One keep-alive HTTP/1.1 connection on a blocking socket, owned by one worker thread: a
/// request is one `write`, its answer is read into a buffer the connection keeps, and nothing
/// is parsed but the status, `Content-Length` and the one `Set-Cookie` asked for. The generator
/// measures servers, so its own cost per request has to stay small beside theirs.
final class HTTPConnection {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// What a request answered: the status, the body's bytes (valid until the next request on
    /// this connection) and the value of the `Set-Cookie` that was asked for.
    struct Answer {
        var status: Int
        var body: UnsafeBufferPointer<UInt8>
        var cookie: [UInt8]?
        /// The body as text, for an error message.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let fd: Int32
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 17
    /// Bytes read past the answer being parsed (none, with one request in flight).
    private var filled = 0

    init(host: String, port: UInt16) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw Failure(description: "not an IPv4 address: \(host)")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect \(host):\(port): errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        buffer = .allocate(capacity: 1 << 17)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Sends `request` (a whole HTTP/1.1 request) and reads its answer; `cookie` names the
    /// `Set-Cookie` whose value to return.
    func send(_ request: [UInt8], cookie: [UInt8]? = nil) throws -> Answer {
        try request.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw Failure(description: "write: errno \(errno)") }
                offset += written
            }
        }
        // The head: read until CRLF CRLF.
        var headEnd = -1
        var scanned = 0
        while true {
            if filled >= 4 {
                var index = max(0, scanned - 3)
                while index + 3 < filled {
                    if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                        headEnd = index + 4
                        break
                    }
                    index += 1
                }
                scanned = filled
            }
            if headEnd >= 0 { break }
            try fill()
        }
        guard headEnd > 12, buffer[0] == UInt8(ascii: "H") else { throw Failure(description: "not an HTTP answer") }
        let status = Int(buffer[9] &- 48) * 100 + Int(buffer[10] &- 48) * 10 + Int(buffer[11] &- 48)
        // Header lines: Content-Length and the cookie asked for.
        var length = -1
        var cookieValue: [UInt8]?
        var line = 0
        while buffer[line] != 10 { line += 1 }
        line += 1
        while line < headEnd - 2 {
            var end = line
            while buffer[end] != 13 { end += 1 }
            if matches(line, end, "content-length:") {
                var index = line + 15
                var value = 0
                while index < end {
                    let byte = buffer[index]
                    if byte >= 48 && byte <= 57 { value = value * 10 + Int(byte - 48) }
                    index += 1
                }
                length = value
            } else if let cookie, matches(line, end, "set-cookie:") {
                var index = line + 11
                while index < end && buffer[index] == 32 { index += 1 }
                if end - index > cookie.count, cookieNamed(cookie, at: index) {
                    index += cookie.count + 1
                    var stop = index
                    while stop < end && buffer[stop] != UInt8(ascii: ";") { stop += 1 }
                    cookieValue = Array(UnsafeBufferPointer(start: buffer + index, count: stop - index))
                }
            } else if matches(line, end, "transfer-encoding:") {
                throw Failure(description: "a chunked answer (the generator reads Content-Length bodies only)")
            }
            line = end + 2
        }
        guard length >= 0, headEnd + length <= capacity else { throw Failure(description: "an answer without a usable Content-Length") }
        while filled < headEnd + length { try fill() }
        // Move anything past this answer to the front (a server answers one request at a time,
        // so normally nothing).
        let answerEnd = headEnd + length
        let body = UnsafeBufferPointer(start: buffer + headEnd, count: length)
        let answer = Answer(status: status, body: body, cookie: cookieValue)
        if filled > answerEnd {
            // Keep the extra bytes; the body pointer stays valid until the next send.
            let extra = filled - answerEnd
            let copy = Array(UnsafeBufferPointer(start: buffer + answerEnd, count: extra))
            pending = copy
        }
        filled = 0
        return answer
    }

    private var pending: [UInt8] = []

    private func fill() throws {
        if !pending.isEmpty {
            let count = min(pending.count, capacity - filled)
            pending.withUnsafeBufferPointer { (buffer + filled).update(from: $0.baseAddress!, count: count) }
            pending.removeFirst(count)
            filled += count
            return
        }
        guard filled < capacity else { throw Failure(description: "an answer larger than \(capacity) bytes") }
        while true {
            let count = read(fd, buffer + filled, capacity - filled)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: count == 0 ? "the server closed the connection" : "read: errno \(errno)") }
            filled += count
            return
        }
    }

    /// Whether the header line at `start..<end` begins with `name` (lowercase), in any case.
    private func matches(_ start: Int, _ end: Int, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard end - start >= count else { return false }
        let bytes = name.utf8Start
        for index in 0..<count where buffer[start + index] | 0x20 != bytes[index] | 0x20 {
            return false
        }
        return true
    }

    private func cookieNamed(_ name: [UInt8], at index: Int) -> Bool {
        for (offset, byte) in name.enumerated() where buffer[index + offset] != byte { return false }
        return buffer[index + name.count] == UInt8(ascii: "=")
    }
}

/// The bytes of the string value of the member whose quoted name is `needle` (`"challenge"`) in
/// a JSON text, up to its closing quote (the values the generator reads, base64url and dots, hold
/// no escapes); whitespace around the colon is allowed.
func quotedValue(after needle: [UInt8], in body: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard let base = body.baseAddress, body.count >= needle.count else { return nil }
    var index = 0
    let last = body.count - needle.count
    outer: while index <= last {
        if base[index] == needle[0] {
            for offset in 1..<needle.count where base[index + offset] != needle[offset] {
                index += 1
                continue outer
            }
            var cursor = index + needle.count
            while cursor < body.count && (base[cursor] == 32 || base[cursor] == UInt8(ascii: ":")) { cursor += 1 }
            guard cursor < body.count, base[cursor] == UInt8(ascii: "\"") else {
                index += 1
                continue outer
            }
            let start = cursor + 1
            var end = start
            while end < body.count && base[end] != UInt8(ascii: "\"") { end += 1 }
            guard end < body.count else { return nil }
            return Array(UnsafeBufferPointer(start: base + start, count: end - start))
        }
        index += 1
    }
    return nil
}

/// A POST request's bytes: the fixed head made once per user (`head`, ending in the line before
/// the variable part), then the cookie (if any), the length and the body.
struct RequestTemplate {
    let head: [UInt8]
    let cookiePrefix: [UInt8]?

    init(path: String, host: String, contentType: String = "application/json", cookie: String? = nil) {
        head = Array("POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\n".utf8)
        cookiePrefix = cookie.map { Array("Cookie: \($0)=".utf8) }
    }

    func build(body: [UInt8], cookie: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(head.count + body.count + 160 + (cookie?.count ?? 0))
        out += head
        if let cookiePrefix, let cookie {
            out += cookiePrefix
            out += cookie
            out += [13, 10]
        }
        out += Self.contentLength
        appendDecimal(body.count, to: &out)
        out += [13, 10, 13, 10]
        out += body
        return out
    }

    static let contentLength = Array("Content-Length: ".utf8)
}

func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &out) }
    out.append(UInt8(48 + value % 10))
}
