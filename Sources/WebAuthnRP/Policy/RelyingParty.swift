public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Who the relying party is and where its ceremonies may come from.
///
/// Origins are compared as serialized origins (RFC 6454 §6.2): each configured origin is
/// parsed once into scheme, host and port, with scheme and host lowercased (ASCII only) and a
/// default port dropped, so `https://Shop.example:443` allows `https://shop.example`. The
/// client's origin must then match that serialization: browsers serialize origins in lowercase,
/// so a case-changed origin in client data is not the same origin. A host is compared as
/// written in ASCII (an internationalized host as its `xn--` A-label, as browsers serialize it;
/// a trailing dot is part of the host). Non-URL origins (`android:apk-key-hash:…`,
/// `ios:bundle-id:…`) are compared as exact text but for their scheme: their payload is
/// case-sensitive. Subdomains match only when ``allowSubdomains`` is set, and then only on a
/// dot boundary.
public struct RelyingParty: Sendable {
    /// The RP ID: `rpIdHash` must be SHA-256 of its UTF-8 bytes.
    public let id: String
    /// A human-readable name, used when building creation options.
    public let name: String
    /// The origins `clientData.origin` may carry, as written (compared as serialized origins).
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
    package let rpIdHash: [UInt8]
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
        let added = androidApps.map(\.origin).filter { app in !origins.contains { OriginMatcher.sameOrigin($0, app) } }
        self.init(
            id: id, name: name, origins: origins + added, allowSubdomains: allowSubdomains,
            allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigins, appleApps: appleApps, androidApps: androidApps)
        if let problem = Self.appleAppProblem(appleApps, relyingParty: self) { throw problem }
    }

    /// Whether `origin` (as a client reports it: `clientData.origin`, or a browser's `Origin`
    /// header) is one of ``origins``, by the rule the ceremonies use: serialized origins, the
    /// configured ones read with scheme and host in any case and default ports dropped, and
    /// subdomains when ``allowSubdomains`` is set. A server's same-origin (CSRF) check calls this
    /// so that it accepts exactly the origins the verifier does.
    public func isAllowedOrigin(_ origin: String) -> Bool {
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

/// An iOS, iPadOS or macOS app, named by its App ID `<teamId>.<bundleId>`: an app whose
/// passkeys belong to the relying party (the `webcredentials` entry of
/// `apple-app-site-association`), or the app whose instances attest keys with App Attest
/// (``AppAttestService``; the `rpIdHash` there is SHA-256 of the App ID).
public struct AppleApp: Sendable, Hashable {
    /// The 10-character Apple Developer Team ID, for example `0352187391`.
    public let teamId: String
    /// The bundle identifier, for example `com.example.app`.
    public let bundleId: String

    /// Creates an app description.
    /// - Parameters:
    ///   - teamId: the Team ID.
    ///   - bundleId: the bundle identifier.
    public init(teamId: String, bundleId: String) {
        self.teamId = teamId
        self.bundleId = bundleId
    }

    /// `<teamId>.<bundleId>`.
    public var appID: String { "\(teamId).\(bundleId)" }
}

/// An Android app whose passkeys belong to the relying party (the
/// `delegate_permission/common.get_login_creds` statement of `assetlinks.json`).
public struct AndroidApp: Sendable, Hashable {
    /// The package name.
    public let packageName: String
    /// The signing certificate's SHA-256 fingerprint as `AB:CD:…` (32 bytes, uppercase hex).
    public let sha256Fingerprint: String
    /// The origin the app's ceremonies carry in client data (`android:apk-key-hash:…`).
    public let origin: String

    /// Creates an app description.
    /// - Parameters:
    ///   - packageName: the package name.
    ///   - sha256Fingerprint: the signing certificate's SHA-256 fingerprint (hex, colons optional).
    /// - Throws: ``WebAuthnError`` `malformed` when the fingerprint is not 32 bytes of hex.
    public init(packageName: String, sha256Fingerprint: String) throws(WebAuthnError) {
        self.packageName = packageName
        self.origin = try RelyingParty.androidOrigin(sha256Fingerprint: sha256Fingerprint)
        let bytes = (try? Base64URL.decode(String(origin.dropFirst("android:apk-key-hash:".count)))) ?? []
        self.sha256Fingerprint = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}

extension RelyingParty {
    /// The `webcredentials` part of `apple-app-site-association`, served at
    /// `https://<rp id>/.well-known/apple-app-site-association`: `{"webcredentials": {"apps": [...]}}`.
    /// Apple apps report the web origin `https://<rp id>`, which must be among ``origins``.
    /// - Parameter apps: the apps; nil (default) for those the relying party declares
    ///   (``init(id:name:origins:appleApps:androidApps:allowSubdomains:allowCrossOrigin:topOrigins:)``).
    /// - Returns: the JSON document.
    /// - Throws: ``WebAuthnError`` `configuration` when `https://<rp id>` is not an allowed
    ///   origin, or an app ID is malformed.
    public func appleAppSiteAssociation(apps: [AppleApp]? = nil) throws(WebAuthnError) -> Data {
        let apps = apps ?? appleApps
        if let problem = Self.appleAppProblem(apps, relyingParty: self, always: true) { throw problem }
        let document: [String: [String: [String]]] = ["webcredentials": ["apps": apps.map(\.appID)]]
        return Self.json(document)
    }

    /// Why Apple apps cannot belong to `relyingParty`, or nil: their origin `https://<rp id>` is
    /// not allowed (checked when there are apps, or `always`), or an app ID is malformed.
    static func appleAppProblem(_ apps: [AppleApp], relyingParty: RelyingParty, always: Bool = false) -> WebAuthnError? {
        // As AuthenticationServices serializes it: the RP ID's host in lowercase.
        let origin = OriginMatcher.Allowed("https://\(relyingParty.id)").text
        if always || !apps.isEmpty, !relyingParty.isAllowedOrigin(origin) {
            let apps = apps.isEmpty ? "Apple apps" : apps.map(\.appID).joined(separator: ", ")
            return associationProblem(
                "\(apps) report the origin \(origin) (AuthenticationServices sends https://<rp id>), "
                    + "which is not among the allowed origins \(relyingParty.origins); add it")
        }
        for app in apps
        where app.teamId.count != 10 || !app.teamId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
            || app.bundleId.isEmpty || app.bundleId.contains(where: { $0 == " " || $0 == "/" })
        {
            return associationProblem("\(app.appID) is not a Team ID (10 uppercase letters or digits) and a bundle ID")
        }
        return nil
    }

    /// `assetlinks.json`, served at `https://<rp id>/.well-known/assetlinks.json`: one
    /// `delegate_permission/common.get_login_creds` statement per app, and one for the web site.
    /// Each app's origin must be among ``origins`` (else its passkey ceremonies would be refused;
    /// a declared app's origin always is).
    /// - Parameter apps: the apps; nil (default) for those the relying party declares.
    /// - Returns: the JSON document.
    /// - Throws: ``WebAuthnError`` `configuration` naming an app whose origin is not allowed.
    public func assetLinks(apps: [AndroidApp]? = nil) throws(WebAuthnError) -> Data {
        let apps = apps ?? androidApps
        struct Target: Encodable {
            var namespace: String
            var site: String?
            var package_name: String?
            var sha256_cert_fingerprints: [String]?
        }
        struct Statement: Encodable { var relation: [String]; var target: Target }
        let relation = ["delegate_permission/common.get_login_creds"]
        var statements: [Statement] = []
        let site = OriginMatcher.Allowed("https://\(id)").text
        if isAllowedOrigin(site) {
            statements.append(Statement(relation: relation, target: Target(namespace: "web", site: site)))
        }
        for app in apps {
            guard isAllowedOrigin(app.origin) else {
                throw Self.associationProblem("\(app.packageName): its origin \(app.origin) is not among the allowed origins")
            }
            statements.append(
                Statement(
                    relation: relation,
                    target: Target(
                        namespace: "android_app", package_name: app.packageName, sha256_cert_fingerprints: [app.sha256Fingerprint])))
        }
        return Self.json(statements)
    }

    /// A native app that cannot be associated with this relying party.
    static func associationProblem(_ reason: String) -> WebAuthnError {
        WebAuthnError(.configuration, step: "app association", reason)
    }

    private static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}

extension RelyingParty {
    /// The web origins in ``origins`` that are not the RP ID's host or a subdomain of it: the
    /// ones a browser accepts only through the `/.well-known/webauthn` document.
    /// Each is written as its serialization (lowercase, no default port), once.
    var relatedOrigins: [String] {
        let rpID = OriginMatcher.asciiLowercased(id)
        var out: [String] = []
        for origin in allowedOrigins {
            guard let host = Self.httpsHost(origin.text), !(host == rpID || host.hasSuffix("." + rpID)) else { continue }
            if !out.contains(origin.text) { out.append(origin.text) }
        }
        return out
    }

    /// The `/.well-known/webauthn` document (L3 §5.11), `{"origins": [...]}` listing the origins
    /// outside the RP ID, to serve as `application/json` over HTTPS at the RP ID's host; checked
    /// first, the way a browser reads it (L3 §5.11.1, in order): each must be an https origin
    /// with a domain host (no path, query or fragment), its host must have a registrable domain,
    /// and its registrable origin label must be among the first `labelLimit` distinct labels.
    /// Registrable domains come from a built-in list of common public suffixes plus
    /// `publicSuffixes` (the library does not ship the whole Public Suffix List); any other host
    /// is taken to end in a one-label suffix. Call it at start-up, so a mistake is found when the
    /// server starts rather than in a user's browser.
    /// - Parameters:
    ///   - labelLimit: the browser's limit on registrable origin labels (default 5: L3 requires
    ///     clients to support at least five, and Chromium stops at five).
    ///   - publicSuffixes: public suffixes beyond the built-in list, lowercase, without leading
    ///     dot (for example `"co.example"`).
    /// - Returns: the document as JSON text (UTF-8, `/` unescaped), or nil when every origin is
    ///   under the RP ID and there is nothing to serve.
    /// - Throws: ``WebAuthnError`` `configuration` (step `related origins`) naming the first
    ///   origin a browser would not honour, and why.
    public func relatedOriginsDocument(
        labelLimit: Int = 5,
        publicSuffixes: Set<String> = []
    ) throws(WebAuthnError) -> Data? {
        try validateRelatedOrigins(labelLimit: labelLimit, publicSuffixes: publicSuffixes)
        let related = relatedOrigins
        return related.isEmpty ? nil : Self.json(["origins": related])
    }

    /// The browser's related origins validation procedure (L3 §5.11.1) over ``relatedOrigins``
    /// in order (``relatedOriginsDocument(labelLimit:publicSuffixes:)`` says what it checks).
    func validateRelatedOrigins(
        labelLimit: Int = 5,
        publicSuffixes: Set<String> = []
    ) throws(WebAuthnError) {
        var labelsSeen: [String] = []
        for origin in origins where Self.httpsHost(origin) == nil && OriginMatcher.schemeLowercased(origin).hasPrefix("https:") {
            throw Self.relatedOriginProblem(origin, "is not an https origin (scheme://host[:port], nothing after)")
        }
        for origin in relatedOrigins {
            guard let host = Self.httpsHost(origin) else { continue }
            guard let label = Self.registrableOriginLabel(host, extraSuffixes: publicSuffixes) else {
                throw Self.relatedOriginProblem(origin, "its host has no registrable domain, so browsers skip it")
            }
            if labelsSeen.contains(label) { continue }
            guard labelsSeen.count < labelLimit else {
                throw Self.relatedOriginProblem(
                    origin,
                    "its registrable origin label \"\(label)\" is label number "
                        + "\(labelsSeen.count + 1); browsers honour only \(labelLimit) (\(labelsSeen.joined(separator: ", ")))")
            }
            labelsSeen.append(label)
        }
    }

    /// A related origin a browser would not honour (L3 §5.11): `<origin>: <reason>`.
    static func relatedOriginProblem(_ origin: String, _ reason: String) -> WebAuthnError {
        WebAuthnError(.configuration, step: "related origins", "\(origin): \(reason)")
    }

    /// The lowercase host of an `https://host[:port]` origin with nothing after it, or nil
    /// (parsed and lowercased as the origin matcher does, ``OriginMatcher/Allowed``).
    static func httpsHost(_ origin: String) -> String? {
        guard let parts = OriginMatcher.Allowed(origin).parts, parts.scheme == "https" else { return nil }
        let host = String(parts.host)
        // A fully qualified host's trailing dot ends no label: `shop.example.` is a domain (another
        // origin than `shop.example`, which the serialization keeps apart).
        let labels = (host.hasSuffix(".") ? host.dropLast() : host[...]).split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 1, labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 }),
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        else { return nil }
        // An IP address has no registrable domain.
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return nil }
        return host
    }

    /// Multi-label public suffixes common enough to be built in (ICANN section of the Public
    /// Suffix List, a small subset) and the best-known private ones.
    static let builtInPublicSuffixes: Set<String> = [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "net.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr", "co.in", "net.in", "org.in",
        "co.za", "org.za", "com.br", "net.br", "org.br", "com.cn", "net.cn", "org.cn", "com.hk", "com.tw",
        "com.sg", "com.my", "com.mx", "com.ar", "com.tr", "com.pl", "co.il", "co.id", "com.ph", "com.vn",
        "github.io", "gitlab.io", "pages.dev", "vercel.app", "netlify.app", "herokuapp.com",
        "appspot.com", "azurewebsites.net", "cloudfront.net", "web.app", "firebaseapp.com",
    ]

    /// The first label of the host's registrable domain, or nil when the host is itself a
    /// public suffix.
    static func registrableOriginLabel(_ host: String, extraSuffixes: Set<String>) -> String? {
        let labels = host.split(separator: ".").map(String.init)
        guard labels.count >= 2 else { return nil }
        // The longest matching suffix wins; a one-label suffix otherwise.
        var suffixLength = 1
        for length in stride(from: labels.count, through: 2, by: -1) {
            let suffix = labels.suffix(length).joined(separator: ".")
            if builtInPublicSuffixes.contains(suffix) || extraSuffixes.contains(suffix) {
                suffixLength = length
                break
            }
        }
        guard labels.count > suffixLength else { return nil }
        return labels[labels.count - suffixLength - 1]
    }
}

extension RelyingParty {
    /// The origin an Android app's passkey ceremonies report in client data:
    /// `android:apk-key-hash:` followed by the base64url (unpadded) SHA-256 of the app's signing
    /// certificate. Add it to ``origins`` next to the web origins, or declare the app
    /// (``AndroidApp``) when building the relying party. (An iOS or macOS app using
    /// AuthenticationServices reports `https://<rp id>`, which is the web origin only when the
    /// site is served at the RP ID itself, not at `www.` or `login.` under it.)
    /// - Parameter signingCertificate: the DER bytes of the certificate the APK or app bundle is
    ///   signed with (for Play App Signing, Google's app signing certificate).
    /// - Returns: the origin string.
    public static func androidOrigin(signingCertificate: [UInt8]) -> String {
        "android:apk-key-hash:" + Base64URL.encode(Digest.sha256.hash(signingCertificate))
    }

    /// The Android origin from the SHA-256 fingerprint that `keytool -list -v`, `apksigner` or
    /// the Play Console shows (`AB:CD:…`, 32 bytes in hex, colons optional): what
    /// ``AndroidApp/origin`` holds.
    /// - Parameter sha256Fingerprint: the fingerprint text.
    /// - Returns: the origin string.
    /// - Throws: ``WebAuthnError`` `malformed` when the text is not 32 bytes of hex.
    static func androidOrigin(sha256Fingerprint: String) throws(WebAuthnError) -> String {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in sha256Fingerprint.unicodeScalars where scalar != ":" && scalar != " " {
            guard let nibble = scalar.hexValue else {
                throw WebAuthnError(.malformed, "SHA-256 fingerprint: \"\(scalar)\" is not a hex digit")
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil, bytes.count == 32 else {
            throw WebAuthnError(.malformed, "SHA-256 fingerprint: expected 32 bytes of hex")
        }
        return "android:apk-key-hash:" + Base64URL.encode(bytes)
    }
}

private extension Unicode.Scalar {
    var hexValue: UInt8? {
        switch value {
        case 0x30...0x39: return UInt8(value - 0x30)
        case 0x41...0x46: return UInt8(value - 0x41 + 10)
        case 0x61...0x66: return UInt8(value - 0x61 + 10)
        default: return nil
        }
    }
}
