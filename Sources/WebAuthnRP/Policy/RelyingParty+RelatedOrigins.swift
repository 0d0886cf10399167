public import Foundation

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
