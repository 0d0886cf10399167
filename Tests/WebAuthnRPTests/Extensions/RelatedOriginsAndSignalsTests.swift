import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// L3 §5.11 related origins, the native-app association files, and the Signal API payloads.
@Suite("Related origins, app association files and signals")
struct RelatedOriginsAndSignalsTests {
    static func rp(_ origins: [String]) -> RelyingParty { RelyingParty(id: "example.com", origins: origins) }

    @Test("the well-known document lists the origins outside the RP ID, in order")
    func document() throws {
        let rp = Self.rp([
            "https://example.com", "https://login.example.com", "https://example.co.uk",
            "https://example.de", "https://exampledelivery.com", "android:apk-key-hash:abc",
        ])
        let document = try #require(try rp.relatedOriginsDocument())
        let text = String(decoding: document, as: UTF8.self)
        #expect(text.contains("\"https://example.co.uk\""))
        let decoded = try JSONDecoder().decode([String: [String]].self, from: document)
        #expect(decoded == ["origins": ["https://example.co.uk", "https://example.de", "https://exampledelivery.com"]])
        // Every origin under the RP ID (or not a web origin): nothing to serve.
        #expect(
            try Self.rp(["https://example.com", "https://login.example.com", "android:apk-key-hash:abc"]).relatedOriginsDocument() == nil)
    }

    @Test("the document lists serialized origins once, compared with the RP ID whatever the case written")
    func documentCase() throws {
        let rp = RelyingParty(
            id: "Example.com",
            origins: ["https://EXAMPLE.com", "https://Login.Example.COM", "https://Shop.Example.co.uk:443", "https://shop.example.co.uk"])
        let document = try #require(try rp.relatedOriginsDocument())
        let decoded = try JSONDecoder().decode([String: [String]].self, from: document)
        #expect(decoded == ["origins": ["https://shop.example.co.uk"]])
        #expect(rp.isAllowedOrigin("https://shop.example.co.uk"))
        #expect(rp.isAllowedOrigin("https://login.example.com"))
        // A trailing dot: a domain a browser honours, and another origin than the one without it.
        let dotted = RelyingParty(id: "example.com", origins: ["https://example.com", "https://Shop.Example.co.uk."])
        let listed = try JSONDecoder().decode([String: [String]].self, from: try #require(try dotted.relatedOriginsDocument()))
        #expect(listed == ["origins": ["https://shop.example.co.uk."]])
        #expect(dotted.isAllowedOrigin("https://shop.example.co.uk."))
        #expect(!dotted.isAllowedOrigin("https://shop.example.co.uk"))
        #expect(throws: WebAuthnError(.configuration, "")) {
            try Self.rp(["https://example.com", "https://shop..example"]).validateRelatedOrigins()
        }
    }

    @Test("labels are counted as browsers count them: the sixth distinct label fails, repeats are free")
    func labelLimit() throws {
        // The L3 example: ten origins over five labels (example, exampledelivery, myexamplerewards, examplecars, + example.net's example).
        let spec = Self.rp([
            "https://example.co.uk", "https://example.de", "https://example.sg", "https://example.net",
            "https://exampledelivery.com", "https://exampledelivery.co.uk", "https://exampledelivery.de",
            "https://exampledelivery.sg", "https://myexamplerewards.com", "https://examplecars.com",
        ])
        try spec.validateRelatedOrigins()
        let six = Self.rp(["https://a.org", "https://b.org", "https://c.org", "https://d.org", "https://e.org", "https://f.org"])
        #expect(throws: WebAuthnError(.configuration, "")) { try six.validateRelatedOrigins() }
        #expect(throws: WebAuthnError(.configuration, "")) { _ = try six.relatedOriginsDocument() }
        try six.validateRelatedOrigins(labelLimit: 6)
        // www.a.org and a.org share the label "a"; co.uk and a private suffix are public suffixes.
        try Self.rp([
            "https://a.org", "https://www.a.org", "https://a.co.uk", "https://b.org", "https://c.org",
            "https://d.org", "https://e.org",
        ]).validateRelatedOrigins()
        #expect(RelyingParty.registrableOriginLabel("shop.example.co.uk", extraSuffixes: []) == "example")
        #expect(RelyingParty.registrableOriginLabel("me.github.io", extraSuffixes: []) == "me")
        #expect(RelyingParty.registrableOriginLabel("co.uk", extraSuffixes: []) == nil)
        #expect(RelyingParty.registrableOriginLabel("a.b.example", extraSuffixes: ["b.example"]) == "a")
    }

    @Test("origins a browser would skip fail at start-up")
    func misconfigured() throws {
        for bad in [
            "https://example.org/login", "https://192.168.1.1", "https://co.uk", "https://exa mple.org", "https://:443",
            "HTTPS://Example.org/login",
        ] {
            #expect(throws: WebAuthnError(.configuration, ""), "\(bad)") {
                try Self.rp(["https://example.com", bad]).validateRelatedOrigins()
            }
        }
        // Non-web and plain-http development origins are not related origins and are left alone.
        try Self.rp(["http://localhost:8080", "android:apk-key-hash:abc"]).validateRelatedOrigins()
    }

    @Test("apple-app-site-association and assetlinks.json come from the same configuration")
    func appAssociation() throws {
        let android = try AndroidApp(packageName: "com.example.app", sha256Fingerprint: String(repeating: "ab:", count: 31) + "ab")
        #expect(android.sha256Fingerprint == String(repeating: "AB:", count: 31) + "AB")
        let rp = Self.rp(["https://example.com", android.origin])
        let aasa = try rp.appleAppSiteAssociation(apps: [AppleApp(teamId: "ABCDE12345", bundleId: "com.example.app")])
        #expect(
            try JSONDecoder().decode([String: [String: [String]]].self, from: aasa)
                == ["webcredentials": ["apps": ["ABCDE12345.com.example.app"]]])
        let links = String(decoding: try rp.assetLinks(apps: [android]), as: UTF8.self)
        #expect(links.contains("\"delegate_permission/common.get_login_creds\""))
        #expect(links.contains("\"package_name\" : \"com.example.app\""))
        #expect(links.contains("\"site\" : \"https://example.com\""))
        #expect(throws: WebAuthnError(.configuration, "")) { _ = try Self.rp(["https://example.com"]).assetLinks(apps: [android]) }
        #expect(throws: WebAuthnError(.configuration, "")) {
            _ = try Self.rp(["https://login.example.com"]).appleAppSiteAssociation(apps: [])
        }
        #expect(throws: WebAuthnError(.configuration, "")) {
            _ = try rp.appleAppSiteAssociation(apps: [AppleApp(teamId: "short", bundleId: "com.example.app")])
        }
    }

    @Test("signals: unknown only for an id the store does not hold; all accepted ids; current user details")
    func signals() async throws {
        var authenticator = try TestAuthenticator()
        let service = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        let known = try authenticator.authenticate(challenge: [1, 2, 3])
        #expect(try await service.unknownCredentialSignal(after: WebAuthnError(.unknownCredential, ""), response: known) == nil)
        var unknown = known
        unknown.rawId = [9, 9, 9]
        let signal = try #require(
            try await service.unknownCredentialSignal(
                after: WebAuthnError(.unknownCredential, ""),
                response: unknown))
        #expect(signal == UnknownCredentialSignal(rpId: "example.org", credentialId: "CQkJ"))
        #expect(try await service.unknownCredentialSignal(after: WebAuthnError(.signature, ""), response: unknown) == nil)
        let all = try await service.allAcceptedCredentialsSignal(userHandle: authenticator.userHandle)
        #expect(all.allAcceptedCredentialIds == [Base64URL.encode(authenticator.credentialId)])
        #expect(all.userId == Base64URL.encode(authenticator.userHandle))
        let details = service.currentUserDetailsSignal(
            user: PublicKeyCredentialUserEntityJSON(
                id: Base64URLBytes(authenticator.userHandle), name: "ada@example.org", displayName: "Ada"))
        let json = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        #expect(json.contains("\"displayName\":\"Ada\"") && json.contains("\"rpId\":\"example.org\""))
    }
}
