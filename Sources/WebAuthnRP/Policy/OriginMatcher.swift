import Foundation

/// Compares serialized origins component by component.
enum OriginMatcher {
    struct Parts: Equatable {
        var scheme: Substring
        var host: Substring
        var port: Int?
    }

    /// Splits `scheme://host[:port]`; nil for anything else (paths, user info, queries,
    /// or non-URL origins such as `android:apk-key-hash:…`).
    static func parse(_ origin: String) -> Parts? {
        guard let sep = origin.range(of: "://") else { return nil }
        let scheme = origin[origin.startIndex..<sep.lowerBound]
        let rest = origin[sep.upperBound...]
        guard !scheme.isEmpty, !rest.isEmpty,
            !rest.contains(where: { "/?#@\\ ".contains($0) })
        else { return nil }
        if rest.hasPrefix("[") {  // IPv6 literal
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let host = rest[rest.startIndex...close]
            let after = rest[rest.index(after: close)...]
            if after.isEmpty { return Parts(scheme: scheme, host: host, port: nil) }
            guard after.first == ":", let port = serializedPort(after.dropFirst()) else { return nil }
            return Parts(scheme: scheme, host: host, port: port)
        }
        let pieces = rest.split(separator: ":", omittingEmptySubsequences: false)
        switch pieces.count {
        case 1: return Parts(scheme: scheme, host: pieces[0], port: nil)
        case 2:
            guard !pieces[0].isEmpty, let port = serializedPort(pieces[1]) else { return nil }
            return Parts(scheme: scheme, host: pieces[0], port: port)
        default: return nil
        }
    }

    /// A port as origin serialization writes it: ASCII digits without sign or leading
    /// zero, at most 65535. (`Int(_:)` alone would take `+443` and `0443` as 443.)
    private static func serializedPort(_ text: Substring) -> Int? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            text == "0" || text.utf8.first != 0x30,
            let port = Int(text), port <= 65535
        else { return nil }
        return port
    }

    private static func effectivePort(_ parts: Parts) -> Int? {
        parts.port ?? defaultPort(parts.scheme)
    }

    /// The port a scheme's origins have when none is written.
    static func defaultPort(_ scheme: Substring) -> Int? {
        switch scheme {
        case "https", "wss": return 443
        case "http", "ws": return 80
        default: return nil
        }
    }

    /// A configured origin with its parse, made once when the relying party is built: scheme
    /// and host lowercased (ASCII letters only: a Unicode case mapping could turn a non-ASCII
    /// letter into an ASCII one), a default port dropped, and ``text`` the serialization of
    /// that (`scheme://host[:port]`). A non-URL origin (`android:apk-key-hash:…`,
    /// `ios:bundle-id:…`) keeps its text as written but for its scheme, which is
    /// case-insensitive (RFC 3986 §3.1): its payload (base64url, a bundle ID) is case-sensitive.
    struct Allowed: Sendable {
        let text: String
        let parts: Parts?

        init(_ written: String) {
            guard let parsed = OriginMatcher.parse(written) else {
                self.text = OriginMatcher.schemeLowercased(written)
                self.parts = nil
                return
            }
            var parts = Parts(
                scheme: Substring(OriginMatcher.asciiLowercased(parsed.scheme)),
                host: Substring(OriginMatcher.asciiLowercased(parsed.host)), port: parsed.port)
            if parts.port != nil, parts.port == OriginMatcher.defaultPort(parts.scheme) { parts.port = nil }
            self.parts = parts
            self.text = "\(parts.scheme)://\(parts.host)" + (parts.port.map { ":\($0)" } ?? "")
        }
    }

    /// Whether two configured origins are the same origin (both serialized as ``Allowed``).
    static func sameOrigin(_ a: String, _ b: String) -> Bool { Allowed(a).text == Allowed(b).text }

    /// `text` with the scheme before its first `:` lowercased when it is one (an ASCII letter,
    /// then letters, digits, `+`, `-` or `.`), the rest as written.
    static func schemeLowercased(_ text: String) -> String {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return text }
        let scheme = text.utf8[..<colon]
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        func isSchemeByte(_ byte: UInt8) -> Bool { isLetter(byte) || (0x30...0x39).contains(byte) || "+-.".utf8.contains(byte) }
        guard let first = scheme.first, isLetter(first), scheme.allSatisfy(isSchemeByte) else { return text }
        return asciiLowercased(Substring(text.utf8[..<colon])) + String(Substring(text.utf8[colon...]))
    }

    /// `text` with ASCII `A`-`Z` mapped to `a`-`z` and every other byte kept.
    static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(
            decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 },
            as: UTF8.self)
    }

    /// Whether `candidate` is one of `allowed`: byte-identical to an allowed origin's
    /// serialization, or the same scheme, effective port and host (or, with `allowSubdomains`, a
    /// host below it on a dot boundary), compared as bytes with the lowercase serialization.
    static func matches(candidate: String, anyOf allowed: [Allowed], allowSubdomains: Bool) -> Bool {
        matches(candidateUTF8: Array(candidate.utf8)[...], anyOf: allowed, allowSubdomains: allowSubdomains)
    }

    /// ``matches(candidate:anyOf:allowSubdomains:)`` of a candidate given as UTF-8: an exact
    /// match is found on the bytes; only otherwise is a string made, for the components.
    static func matches(candidateUTF8 candidate: ArraySlice<UInt8>, anyOf allowed: [Allowed], allowSubdomains: Bool) -> Bool {
        // Read in place through a span (`contains(where:)` copied each entry out: three retains).
        let entries = allowed.span
        for i in entries.indices where sameUTF8(candidate, entries[i].text) { return true }
        guard let c = parse(String(decoding: candidate, as: UTF8.self)) else { return false }
        return allowed.contains { entry in
            guard let a = entry.parts else { return false }
            return matches(c, a, allowSubdomains: allowSubdomains)
        }
    }

    /// Whether bytes are a string's UTF-8 (no Unicode equivalence), compared through spans
    /// (the generic `elementsEqual` walked a UTF-8 view through its iterator).
    static func sameUTF8(_ a: ArraySlice<UInt8>, _ b: String) -> Bool {
        let x = a.span, y = b.utf8.span
        guard x.count == y.count else { return false }
        for i in 0..<x.count where x[i] != y[i] { return false }
        return true
    }

    private static func matches(_ c: Parts, _ a: Parts, allowSubdomains: Bool) -> Bool {
        guard c.scheme.utf8.elementsEqual(a.scheme.utf8), effectivePort(c) == effectivePort(a) else { return false }
        if c.host.utf8.elementsEqual(a.host.utf8) { return true }
        guard allowSubdomains, !a.host.hasPrefix("[") else { return false }
        // Dot boundary, compared byte for byte: "evil-example.org" must not match "example.org".
        let host = c.host.utf8, base = a.host.utf8
        guard host.count > base.count + 1 else { return false }
        let suffix = host.dropFirst(host.count - base.count - 1)
        return suffix.first == UInt8(ascii: ".") && suffix.dropFirst().elementsEqual(base)
    }
}
