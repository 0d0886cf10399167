import Foundation
import WebAuthnCrypto

/// Who the relying party is and where its ceremonies may come from.
///
/// Origins are compared exactly: scheme, host and port must all match one of the
/// configured origins, byte for byte (browsers serialize origins in lowercase, so a
/// case-changed origin is not the same origin). Subdomains match only when
/// ``allowSubdomains`` is set, and then only on a dot boundary.
public struct RelyingParty: Sendable {
    /// The RP ID: `rpIdHash` must be SHA-256 of its UTF-8 bytes.
    public let id: String
    /// A human-readable name, used when building creation options.
    public let name: String
    /// The origins `clientData.origin` may carry.
    public let origins: [String]
    /// Accept origins on subdomains of the configured hosts (`https://login.example.org`
    /// for `https://example.org`). Off by default.
    public let allowSubdomains: Bool
    /// Whether ceremonies inside cross-origin iframes are expected. When false, client
    /// data with `crossOrigin: true` or a `topOrigin` is rejected (category `origin`).
    public let allowCrossOrigin: Bool
    /// When client data carries a `topOrigin`, it must be one of these.
    public let topOrigins: [String]
    /// SHA-256 of ``id``, computed once.
    public let rpIdHash: [UInt8]
    /// ``origins`` and ``topOrigins`` parsed once, for matching.
    private let allowedOrigins: [OriginMatcher.Allowed]
    private let allowedTopOrigins: [OriginMatcher.Allowed]
    /// The native apps declared at start-up (the association files list them).
    let appleApps: [AppleApp]
    let androidApps: [AndroidApp]

    /// Creates a relying-party description.
    /// - Parameters:
    ///   - id: the RP ID (a registrable domain suffix of the origins' hosts).
    ///   - name: a display name.
    ///   - origins: the allowed origins, for example `["https://example.org"]`.
    ///   - allowSubdomains: accept subdomains of the origins' hosts (dot boundary).
    ///   - allowCrossOrigin: accept ceremonies run inside cross-origin iframes.
    ///   - topOrigins: the top-level origins such iframes may be embedded in.
    public init(
        id: String, name: String = "", origins: [String], allowSubdomains: Bool = false,
        allowCrossOrigin: Bool = false, topOrigins: [String] = []
    ) {
        self.init(
            id: id, name: name, origins: origins, allowSubdomains: allowSubdomains, allowCrossOrigin: allowCrossOrigin,
            topOrigins: topOrigins, appleApps: [], androidApps: [])
    }

    private init(
        id: String, name: String, origins: [String], allowSubdomains: Bool, allowCrossOrigin: Bool,
        topOrigins: [String], appleApps: [AppleApp], androidApps: [AndroidApp]
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.allowSubdomains = allowSubdomains
        self.allowCrossOrigin = allowCrossOrigin
        self.topOrigins = topOrigins
        self.rpIdHash = Digest.sha256.hash(Array(id.utf8))
        self.allowedOrigins = origins.map(OriginMatcher.Allowed.init)
        self.allowedTopOrigins = topOrigins.map(OriginMatcher.Allowed.init)
        self.appleApps = appleApps
        self.androidApps = androidApps
    }

    /// Creates the relying party of a web site and its native apps, checked at start-up.
    ///
    /// An Apple app's ceremonies report the origin `https://<rp id>` (AuthenticationServices,
    /// once the associated domain is set up), so that origin must be among `origins`: a site
    /// served at `https://www.example.org` or `https://login.example.org` under the RP ID
    /// `example.org` does not cover it, and building throws. An Android app's ceremonies report
    /// `android:apk-key-hash:<base64url SHA-256 of its signing certificate>`
    /// (``AndroidApp/origin``): each declared app's origin is added to ``origins``.
    /// ``appleAppSiteAssociation(apps:)`` and ``assetLinks(apps:)`` list the declared apps.
    /// - Parameters:
    ///   - id: the RP ID.
    ///   - name: a display name.
    ///   - origins: the allowed web origins.
    ///   - appleApps: the iOS, iPadOS and macOS apps whose passkeys belong to this RP ID.
    ///   - androidApps: the Android apps whose passkeys belong to this RP ID.
    ///   - allowSubdomains: accept subdomains of the origins' hosts (dot boundary).
    ///   - allowCrossOrigin: accept ceremonies run inside cross-origin iframes.
    ///   - topOrigins: the top-level origins such iframes may be embedded in.
    /// - Throws: ``WebAuthnError`` `configuration` when Apple apps are declared and
    ///   `https://<rp id>` is not an allowed origin, or an app ID is malformed.
    public init(
        id: String, name: String = "", origins: [String], appleApps: [AppleApp], androidApps: [AndroidApp] = [],
        allowSubdomains: Bool = false, allowCrossOrigin: Bool = false,
        topOrigins: [String] = []
    ) throws(WebAuthnError) {
        let added = androidApps.map(\.origin).filter { !origins.contains($0) }
        self.init(
            id: id, name: name, origins: origins + added, allowSubdomains: allowSubdomains,
            allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigins, appleApps: appleApps, androidApps: androidApps)
        if let problem = Self.appleAppProblem(appleApps, relyingParty: self) { throw problem }
    }

    /// Whether `origin` (as the client reported it) is one of ``origins``.
    func isAllowedOrigin(_ origin: String) -> Bool {
        OriginMatcher.matches(candidate: origin, anyOf: allowedOrigins, allowSubdomains: allowSubdomains)
    }

    /// ``isAllowedOrigin(_:)`` of an origin given as UTF-8 (a slice of the client data).
    func isAllowedOrigin(utf8 origin: ArraySlice<UInt8>) -> Bool {
        OriginMatcher.matches(candidateUTF8: origin, anyOf: allowedOrigins, allowSubdomains: allowSubdomains)
    }

    /// Whether `origin` is one of ``topOrigins``.
    func isAllowedTopOrigin(_ origin: String) -> Bool {
        OriginMatcher.matches(candidate: origin, anyOf: allowedTopOrigins, allowSubdomains: allowSubdomains)
    }
}

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
        if let port = parts.port { return port }
        switch parts.scheme {
        case "https", "wss": return 443
        case "http", "ws": return 80
        default: return nil
        }
    }

    /// A configured origin with its parse, made once when the relying party is built.
    struct Allowed: Sendable {
        let text: String
        let parts: Parts?

        init(_ text: String) {
            self.text = text
            self.parts = OriginMatcher.parse(text)
        }
    }

    /// Whether `candidate` is one of `allowed`: byte-identical, or the same scheme, effective
    /// port and host (or, with `allowSubdomains`, a host below it on a dot boundary).
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
