import Foundation
import Testing

@testable import WebAuthnRP

/// `RelyingParty` origin rules: exact scheme, host and port; subdomains only when
/// allowed and only on a dot boundary; non-URL origins only by exact text.
@Suite("Origin matching")
struct OriginMatchingTests {
    static let rp = RelyingParty(id: "example.org", origins: ["https://example.org"])
    static let withSubdomains = RelyingParty(id: "example.org", origins: ["https://example.org"], allowSubdomains: true)

    @Test(
        "exact origins match; any change of scheme, host case or port does not",
        arguments: [
            ("https://example.org", true),
            ("https://example.org:443", true),  // the scheme's default port, spelled out
            ("https://EXAMPLE.org", false),
            ("HTTPS://example.org", false),
            ("http://example.org", false),
            ("https://example.org:8443", false),
            ("https://example.org:80", false),
            ("https://example.org:+443", false),  // not a serialized port
            ("https://example.org:0443", false),
            ("https://example.org: 443", false),
            ("https://example.org:", false),
            ("https://example.org/", false),
            ("https://example.org/path", false),
            ("https://user@example.org", false),
            ("https://example.org?x", false),
            ("https://example.org.", false),
            ("https://evil-example.org", false),
            ("https://example.org.evil.net", false),
            ("https://login.example.org", false),
            ("", false),
            ("example.org", false),
        ])
    func exact(_ origin: String, _ expected: Bool) {
        #expect(Self.rp.isAllowedOrigin(origin) == expected, "\(origin)")
    }

    @Test(
        "subdomains match only when allowed, and only on a dot boundary",
        arguments: [
            ("https://login.example.org", true),
            ("https://a.b.example.org", true),
            ("https://login.example.org:443", true),
            ("https://example.org", true),
            ("https://evil-example.org", false),
            ("https://loginexample.org", false),
            ("https://.example.org", false),
            ("https://login.example.org:8443", false),
            ("http://login.example.org", false),
            ("https://login.EXAMPLE.org", false),
            ("https://example.org.evil.net", false),
        ])
    func subdomains(_ origin: String, _ expected: Bool) {
        #expect(Self.withSubdomains.isAllowedOrigin(origin) == expected, "\(origin)")
    }

    @Test("explicit ports must match, default ports are equivalent")
    func ports() {
        let dev = RelyingParty(id: "localhost", origins: ["http://localhost:8080", "https://example.org:443"])
        #expect(dev.isAllowedOrigin("http://localhost:8080"))
        #expect(!dev.isAllowedOrigin("http://localhost"))
        #expect(!dev.isAllowedOrigin("http://localhost:8081"))
        #expect(!dev.isAllowedOrigin("https://localhost:8080"))
        #expect(dev.isAllowedOrigin("https://example.org"))
    }

    @Test("IPv6 literals compare by text and port; never as subdomains")
    func ipv6() {
        let rp = RelyingParty(id: "::1", origins: ["https://[::1]:8443"], allowSubdomains: true)
        #expect(rp.isAllowedOrigin("https://[::1]:8443"))
        #expect(!rp.isAllowedOrigin("https://[::1]"))
        #expect(!rp.isAllowedOrigin("https://[::1]:+8443"))
        #expect(!rp.isAllowedOrigin("https://x.[::1]:8443"))
        #expect(OriginMatcher.parse("https://[::1") == nil)
    }

    @Test("non-URL origins (Android apps) match by exact text only")
    func nonURL() {
        let app = "android:apk-key-hash:AbCdEf0123"
        let rp = RelyingParty(id: "example.org", origins: ["https://example.org", app], allowSubdomains: true)
        #expect(rp.isAllowedOrigin(app))
        #expect(!rp.isAllowedOrigin("android:apk-key-hash:abcdef0123"))
        #expect(!rp.isAllowedOrigin(app + "x"))
    }

    @Test("top origins follow the same rules")
    func topOrigins() {
        let rp = RelyingParty(
            id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true,
            topOrigins: ["https://portal.example.com"])
        #expect(rp.isAllowedTopOrigin("https://portal.example.com"))
        #expect(!rp.isAllowedTopOrigin("https://Portal.example.com"))
        #expect(!rp.isAllowedTopOrigin("https://evil-portal.example.com"))
        #expect(!rp.isAllowedTopOrigin("https://portal.example.com:444"))
        #expect(!rp.isAllowedTopOrigin("https://example.org"))
    }

    @Test(
        "configured origins are serialized once: scheme and host lowercased, default port dropped",
        arguments: [
            ("https://Shop.Example", "https://shop.example", true),
            ("HTTPS://SHOP.EXAMPLE:443", "https://shop.example", true),
            ("https://Shop.Example:8443", "https://shop.example:8443", true),
            ("http://LocalHost:80", "http://localhost", true),
            ("https://[::ABCD]", "https://[::abcd]", true),
            // the client's origin is a serialization: another case is not the same origin
            ("https://Shop.Example", "https://Shop.Example", false),
            ("https://shop.example", "HTTPS://shop.example", false),
            // a trailing dot is part of the host (RFC 6454 keeps it)
            ("https://Shop.Example.", "https://shop.example", false),
            ("https://Shop.Example", "https://shop.example.", false),
            // ASCII letters only are lowercased: the Kelvin sign (U+212A) is no "k"
            ("https://Kiosk.example", "https://\u{212A}iosk.example", false),
            ("https://\u{212A}iosk.example", "https://kiosk.example", false),
        ])
    func configuredCase(_ configured: String, _ origin: String, _ expected: Bool) {
        let rp = RelyingParty(id: "shop.example", origins: [configured], allowCrossOrigin: true, topOrigins: [configured])
        #expect(rp.isAllowedOrigin(origin) == expected, "\(configured) / \(origin)")
        #expect(rp.isAllowedOrigin(utf8: Array(origin.utf8)[...]) == expected, "\(configured) / \(origin)")
        #expect(rp.isAllowedTopOrigin(origin) == expected, "\(configured) / \(origin)")
    }

    @Test("a configured host in another case still allows subdomains on a dot boundary")
    func configuredCaseSubdomains() {
        let rp = RelyingParty(id: "example.org", origins: ["https://Example.ORG"], allowSubdomains: true)
        #expect(rp.isAllowedOrigin("https://login.example.org"))
        #expect(!rp.isAllowedOrigin("https://evil-example.org"))
    }

    @Test("app origins keep their case-sensitive payload; app and RP ID origins are found whatever the case written")
    func appOriginsAndRPID() throws {
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        let app = try AndroidApp(packageName: "org.example.app", sha256Fingerprint: fingerprint)
        let payload = app.origin.dropFirst("android:apk-key-hash:".count)
        #expect(payload != payload.lowercased())
        let rp = try RelyingParty(
            id: "Example.org", origins: ["https://Example.ORG", "ios:bundle-id:Org.Example.App"],
            appleApps: [AppleApp(teamId: "ABCDE12345", bundleId: "org.example.app")], androidApps: [app])
        #expect(rp.isAllowedOrigin(app.origin))
        #expect(!rp.isAllowedOrigin("android:apk-key-hash:" + payload.lowercased()))
        #expect(rp.isAllowedOrigin("ios:bundle-id:Org.Example.App"))
        #expect(!rp.isAllowedOrigin("ios:bundle-id:org.example.app"))
        // The scheme of an app origin is case-insensitive as written; its payload is not.
        let written = RelyingParty(id: "example.org", origins: ["Android:apk-key-hash:" + payload, "IOS:bundle-id:Org.Example.App"])
        #expect(written.isAllowedOrigin(app.origin))
        #expect(written.isAllowedOrigin("ios:bundle-id:Org.Example.App"))
        #expect(!written.isAllowedOrigin("android:apk-key-hash:" + payload.lowercased()))
        #expect(!written.isAllowedOrigin("Android:apk-key-hash:" + payload))
        // The Apple apps' origin https://<rp id> is the configured https://Example.ORG.
        #expect(throws: Never.self) { try rp.appleAppSiteAssociation() }
        let links = String(decoding: try rp.assetLinks(), as: UTF8.self)
        #expect(links.contains(#""site" : "https://example.org""#), "\(links)")
        // A declared app whose origin is already configured is not added a second time.
        let twice = try RelyingParty(id: "example.org", origins: ["https://example.org", app.origin], appleApps: [], androidApps: [app])
        #expect(twice.origins.count == 2)
    }

    @Test(
        "user info, a path, a query, a fragment or a blank is no origin, even below an allowed host",
        arguments: [
            "https://user@login.example.org",
            "https://evil.net@login.example.org",
            "https://login.example.org/path",
            "https://login.example.org?x",
            "https://login.example.org#x",
            "https://login.example.org\\x",
            "https://login .example.org",
        ])
    func notAnOriginBelowAllowedHost(_ origin: String) {
        #expect(!Self.withSubdomains.isAllowedOrigin(origin), "\(origin)")
    }
}
