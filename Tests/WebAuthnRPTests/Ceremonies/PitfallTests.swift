import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Mistakes relying parties make in practice, each pinned to its rejection.
@Suite("Relying-party pitfalls")
struct PitfallTests {
    typealias F = CeremonyFixture
    typealias Reg = TestAuthenticator.RegistrationOptions
    typealias Auth = TestAuthenticator.AuthenticationOptions
    static let regChallenge = Array(repeating: UInt8(0xA1), count: 32)
    static let authChallenge = Array(repeating: UInt8(0xB2), count: 32)

    func register(
        _ authenticator: TestAuthenticator, _ options: Reg = Reg(),
        relyingParty: RelyingParty = F.relyingParty
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        F.register(try authenticator.register(challenge: Self.regChallenge, options), relyingParty: relyingParty)
    }

    func login(
        _ authenticator: inout TestAuthenticator, _ options: Auth = Auth(),
        issued: IssuedChallenge = F.authenticationChallenge(), record: CredentialRecord? = nil,
        relyingParty: RelyingParty = F.relyingParty
    ) throws -> CeremonyOutcome<VerifiedAuthentication> {
        let response = try authenticator.authenticate(challenge: issued.challenge, options)
        return F.authenticate(response, issued: issued, record: record ?? authenticator.record(), relyingParty: relyingParty)
    }

    @Test("the credential id comes from authData: a different client-supplied id/rawId is malformed")
    func clientSuppliedId() throws {
        var options = Reg()
        // A client claiming a victim's credential id while the authenticator made another.
        options.response = {
            $0.rawId = Array(repeating: 0xEE, count: 32); $0.id = Base64URL.encode($0.rawId)
        }
        let outcome = try register(try TestAuthenticator(), options)
        outcome.expectRejected(.malformed, step: "§7.1 step 13")
        // Only the id text differs.
        options.response = { $0.id = "AAAA" }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("a lookalike origin is not the RP's origin, with or without subdomains allowed")
    func lookalikeOrigin() throws {
        var authenticator = try TestAuthenticator()
        authenticator.origin = "https://evil-example.org"
        try register(authenticator).expectRejected(.origin, step: "§7.1 step 9")
        let subdomains = RelyingParty(id: "example.org", origins: ["https://example.org"], allowSubdomains: true)
        try register(authenticator, relyingParty: subdomains).expectRejected(.origin, step: "§7.1 step 9")
        try login(&authenticator, relyingParty: subdomains).expectRejected(.origin, step: "§7.2 step 12")
    }

    @Test("a case-changed origin is a different origin")
    func caseChangedOrigin() throws {
        var authenticator = try TestAuthenticator()
        authenticator.origin = "https://EXAMPLE.org"
        try register(authenticator).expectRejected(.origin, step: "§7.1 step 9")
        try login(&authenticator).expectRejected(.origin, step: "§7.2 step 12")
    }

    @Test("a subdomain is accepted only with allowSubdomains, and only on a dot boundary")
    func subdomain() throws {
        let subdomains = RelyingParty(id: "example.org", origins: ["https://example.org"], allowSubdomains: true)
        var authenticator = try TestAuthenticator()
        authenticator.origin = "https://login.example.org"
        try register(authenticator).expectRejected(.origin, step: "§7.1 step 9")
        _ = try register(authenticator, relyingParty: subdomains).accepted()
        _ = try login(&authenticator, relyingParty: subdomains).accepted()
        authenticator.origin = "https://loginexample.org"
        try register(authenticator, relyingParty: subdomains).expectRejected(.origin, step: "§7.1 step 9")
    }

    @Test("a different port is a different origin")
    func port() throws {
        var authenticator = try TestAuthenticator()
        authenticator.origin = "https://example.org:8443"
        try register(authenticator).expectRejected(.origin, step: "§7.1 step 9")
        try login(&authenticator).expectRejected(.origin, step: "§7.2 step 12")
    }

    @Test("user B's credential in user A's login is an unknown credential")
    func otherUsersCredential() throws {
        var credentialOfB = try TestAuthenticator()
        credentialOfB.userHandle = Array("user-b".utf8)
        let loginOfA = F.authenticationChallenge(userHandle: Array("user-a".utf8))
        try login(&credentialOfB, issued: loginOfA).expectRejected(.unknownCredential, step: "§7.2 step 6")
        // Even if B's authenticator lies and returns A's user handle.
        var options = Auth()
        options.response = { $0.userHandle = Array("user-a".utf8) }
        try login(&credentialOfB, options, issued: loginOfA).expectRejected(.unknownCredential, step: "§7.2 step 6")
        // And in a discoverable login, a user handle naming A does not unlock B's credential.
        try login(&credentialOfB, options).expectRejected(.userHandle, step: "§7.2 step 6")
    }

    @Test("a counter that drops to 0 after being non-zero is a regression")
    func counterToZero() throws {
        var authenticator = try TestAuthenticator()
        try login(&authenticator, Auth(signCount: 0), record: authenticator.record(signCount: 17))
            .expectRejected(.signCount, step: "§7.2 step 23")
    }

    @Test("authenticator data for another RP ID is rejected in both ceremonies")
    func wrongRPIDHash() throws {
        var authenticator = try TestAuthenticator()
        authenticator.rpId = "example.org.evil.net"
        try register(authenticator).expectRejected(.rpIdHash, step: "§7.1 step 14")
        try login(&authenticator).expectRejected(.rpIdHash, step: "§7.2 step 15")
        // The hash of a case-changed RP ID is a different hash.
        authenticator.rpId = "Example.org"
        try login(&authenticator).expectRejected(.rpIdHash, step: "§7.2 step 15")
    }

    @Test("an unknown fmt is an attestation failure, not a malformed object")
    func unknownFormat() throws {
        let statement = CBORItem.map([(.text("sig"), .bytes([1, 2, 3]))])
        try register(try TestAuthenticator(), Reg(attestation: .custom(fmt: "acme-secure", statement: statement)))
            .expectRejected(.attestation, step: "§7.1 step 22")
    }

    @Test("trailing bytes after the attestation object, or inside its authData, are malformed")
    func trailingAttestationBytes() throws {
        var options = Reg()
        options.attestationObject = { $0 += [0xa0] }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
        options.attestationObject = { _ in }
        options.authData = { $0 += [0x00] }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("trailing bytes after assertion authenticator data are malformed even when signed")
    func trailingAssertionBytes() throws {
        var authenticator = try TestAuthenticator()
        var options = Auth()
        options.authData = { $0 += [0x00, 0x00] }  // signed together with the extra bytes
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 step 7")
    }

    @Test("crossOrigin true is rejected unless the RP allows cross-origin ceremonies")
    func crossOrigin() throws {
        var authenticator = try TestAuthenticator()
        var reg = Reg()
        reg.clientData = { $0.crossOrigin = true }
        try register(authenticator, reg).expectRejected(.origin, step: "§7.1 step 10")
        var auth = Auth()
        auth.clientData = { $0.crossOrigin = true }
        try login(&authenticator, auth).expectRejected(.origin, step: "§7.2 step 13")
    }

    @Test("a topOrigin that is not allowed is rejected")
    func topOrigin() throws {
        let framed = RelyingParty(
            id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true,
            topOrigins: ["https://shop.example.com"])
        var authenticator = try TestAuthenticator()
        var reg = Reg()
        reg.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://shop-example.com"
        }
        try register(authenticator, reg, relyingParty: framed).expectRejected(.origin, step: "§7.1 step 11")
        var auth = Auth()
        auth.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://evil.example"
        }
        try login(&authenticator, auth, relyingParty: framed).expectRejected(.origin, step: "§7.2 step 14")
    }

    @Test("a signature made for one challenge does not answer another")
    func signatureBoundToChallenge() throws {
        var authenticator = try TestAuthenticator()
        var options = Auth()
        // Client data claims the right challenge, but the signature was over different client data.
        let other = try authenticator.authenticate(challenge: Array(repeating: 0x01, count: 32))
        options.response = { $0.signature = other.signature }
        try login(&authenticator, options).expectRejected(.signature, step: "§7.2 step 22")
    }
}
