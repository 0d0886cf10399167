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
    let allowedOrigins: [OriginMatcher.Allowed]
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
