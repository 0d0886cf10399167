import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// W3C WebAuthn L3 §7.1, one test per step that can fail: the exact category and
/// step label, and the accepting counterpart.
@Suite("§7.1 registration, step by step")
struct RegistrationStepTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.RegistrationOptions
    static let challenge = Array(repeating: UInt8(0xA1), count: 32)

    func register(
        _ authenticator: TestAuthenticator, _ options: Options = Options(),
        issued: IssuedChallenge = F.registrationChallenge(), relyingParty: RelyingParty = F.relyingParty,
        policy: VerificationPolicy = VerificationPolicy(), now: Date = F.now,
        keepAttestation: Bool = false
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        let response = try authenticator.register(challenge: issued.challenge, options)
        return F.register(
            response, issued: issued, relyingParty: relyingParty, policy: policy, now: now,
            keepAttestation: keepAttestation)
    }

    /// An authData hook that replaces the credential public key with `key`.
    static func credentialKey(_ key: [UInt8], rpId: String = "example.org") -> (inout [UInt8]) -> Void {
        { data in
            data = TestAuthData(rpId: rpId, flags: [.userPresent], credentialId: Array(0..<32), credentialKey: key).bytes
        }
    }

    // MARK: Accepted baseline and trace

    @Test("a plain none/ES256 registration passes every step, in order")
    func baseline() throws {
        let outcome = try register(try TestAuthenticator())
        _ = try #require(outcome.accepted())
        let ran = outcome.trace.steps.map(\.step)
        #expect(
            ran == [
                "pending", "§7.1 step 3", "§7.1 step 3", "§7.1 step 4", "§7.1 steps 5-6", "§7.1 step 7", "§7.1 step 8",
                "§7.1 step 9", "§7.1 step 10", "§7.1 step 11", "§7.1 step 12", "§7.1 step 13", "§7.1 step 13",
                "§7.1 step 14", "§7.1 step 15", "§7.1 step 16", "§7.1 step 17", "§7.1 steps 18-19",
                "§7.1 step 20", "§7.1 step 21", "§7.1 step 22", "§7.1 step 23", "§7.1 step 24", "§7.1 step 25",
                "§7.1 step 26", "§7.1 step 29",
            ])
        #expect(outcome.trace.skipped("§7.1 step 11"))  // no topOrigin
        for step in [
            "pending", "§7.1 step 3", "§7.1 step 8", "§7.1 step 9", "§7.1 step 13", "§7.1 step 14",
            "§7.1 step 15", "§7.1 step 20", "§7.1 step 22", "§7.1 step 23", "§7.1 step 26", "§7.1 step 29",
        ] {
            #expect(outcome.trace.passed(step), "\(step)")
        }
    }

    @Test(
        "every credential algorithm the library offers registers and logs in",
        arguments: [TestAuthenticator.KeySpec.es256, .es384, .es512, .edDSA, .ed25519, .rs256, .ps256])
    func algorithms(_ key: TestAuthenticator.KeySpec) throws {
        var authenticator = try TestAuthenticator(key: key)
        let verified = try #require(try register(authenticator, Options(attestation: .packedSelf)).accepted())
        #expect(verified.record.algorithm == key.algorithm.rawValue)
        #expect(verified.attestation.type == .self)
        let login = try authenticator.authenticate(challenge: F.authenticationChallenge().challenge)
        let after = F.authenticate(login, record: verified.record)
        #expect(try #require(after.accepted()).updatedRecord.signCount == 1)
    }

    // MARK: pending

    @Test("pending: a challenge issued for an authentication does not answer a registration")
    func pendingWrongKind() throws {
        let authenticator = try TestAuthenticator()
        let response = try authenticator.register(challenge: Self.challenge)
        let issued = F.authenticationChallenge(Self.challenge)
        F.register(response, issued: issued).expectRejected(.challenge, step: "pending")
    }

    @Test("pending: a response at the expiry instant is accepted; a millisecond later it is rejected")
    func pendingExpired() throws {
        let authenticator = try TestAuthenticator()
        let issued = F.registrationChallenge(expiresAt: F.now)
        _ = try register(authenticator, issued: issued, now: F.now).accepted()
        _ = try register(authenticator, issued: issued, now: F.now.addingTimeInterval(-1)).accepted()
        try register(authenticator, issued: issued, now: F.now.addingTimeInterval(0.001)).expectRejected(.challenge, step: "pending")
        try register(authenticator, issued: issued, now: F.now.addingTimeInterval(1)).expectRejected(.challenge, step: "pending")
        try register(authenticator, issued: F.registrationChallenge(expiresAt: Date(timeIntervalSinceReferenceDate: .nan)))
            .expectRejected(.challenge, step: "pending")
    }

    @Test("pending: a response verified before its challenge was issued (the clock went back) is rejected")
    func pendingClockWentBack() throws {
        let authenticator = try TestAuthenticator()
        let issued = F.registrationChallenge(issuedAt: F.now)
        try register(authenticator, issued: issued, now: F.now.addingTimeInterval(-0.001)).expectRejected(.challenge, step: "pending")
        try register(authenticator, issued: issued, now: F.now.addingTimeInterval(-3600)).expectRejected(.challenge, step: "pending")
        _ = try register(authenticator, issued: issued, now: F.now).accepted()
        // Without a recorded issue time there is nothing to compare with.
        _ = try register(authenticator, issued: F.registrationChallenge(), now: F.now.addingTimeInterval(-3600)).accepted()
    }

    // MARK: Step 3

    @Test("step 3: a credential type other than public-key is malformed")
    func step3Type() throws {
        var options = Options()
        options.response = { $0.type = "password" }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 3")
    }

    // MARK: Steps 5-6

    @Test(
        "steps 5-6: clientDataJSON that is not UTF-8 JSON is malformed",
        arguments: [
            [UInt8](arrayLiteral: 0x7b, 0xff, 0x7d), Array("not json".utf8), Array("[]".utf8),
            Array(#"{"type":"webauthn.create","origin":"https://example.org"}"#.utf8),
        ])
    func step5ClientData(_ bytes: [UInt8]) throws {
        var options = Options()
        options.clientDataBytes = { $0 = bytes }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 steps 5-6")
    }

    // MARK: Step 7

    @Test("step 7: C.type webauthn.get in a registration is rejected (type)")
    func step7() throws {
        var options = Options()
        options.clientData = { $0.type = "webauthn.get" }
        try register(try TestAuthenticator(), options).expectRejected(.type, step: "§7.1 step 7")
    }

    // MARK: Step 8

    @Test("step 8: a challenge other than the issued one is rejected (challenge)")
    func step8() throws {
        var options = Options()
        options.clientData = { $0.challenge[0] ^= 1 }
        try register(try TestAuthenticator(), options).expectRejected(.challenge, step: "§7.1 step 8")
        // The same bytes in padded base64 text are not the issued challenge's encoding.
        options.clientData = { $0.challengeText = Base64URL.encode($0.challenge) + "=" }
        try register(try TestAuthenticator(), options).expectRejected(.challenge, step: "§7.1 step 8")
    }

    // MARK: Step 9

    @Test("step 9: an origin the RP does not list is rejected (origin)")
    func step9() throws {
        var authenticator = try TestAuthenticator()
        authenticator.origin = "https://example.com"
        try register(authenticator).expectRejected(.origin, step: "§7.1 step 9")
    }

    // MARK: Step 10

    @Test("step 10: crossOrigin true is rejected unless the RP expects iframes")
    func step10() throws {
        var options = Options()
        options.clientData = { $0.crossOrigin = true }
        try register(try TestAuthenticator(), options).expectRejected(.origin, step: "§7.1 step 10")
        let framed = RelyingParty(id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true)
        let outcome = try register(try TestAuthenticator(), options, relyingParty: framed)
        _ = try #require(outcome.accepted())
        #expect(outcome.trace.passed("§7.1 step 10"))
    }

    // MARK: Step 11

    @Test("step 11: topOrigin must be expected, with crossOrigin true, and listed")
    func step11() throws {
        let framed = RelyingParty(
            id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true,
            topOrigins: ["https://portal.example.com"])
        var options = Options()
        // The RP expects no iframes: a topOrigin is rejected even with crossOrigin false.
        options.clientData = { $0.topOrigin = "https://portal.example.com" }
        let unexpected = try register(try TestAuthenticator(), options)
        unexpected.expectRejected(.origin, step: "§7.1 step 11")
        unexpected.expectMessage(containing: "cross-origin ceremonies are not expected")
        // The RP expects iframes, but crossOrigin is not true.
        try register(try TestAuthenticator(), options, relyingParty: framed).expectRejected(.origin, step: "§7.1 step 11")
        // crossOrigin true, topOrigin not listed.
        options.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://evil.example.net"
        }
        try register(try TestAuthenticator(), options, relyingParty: framed).expectRejected(.origin, step: "§7.1 step 11")
        // Accepted: crossOrigin true and a listed topOrigin.
        options.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://portal.example.com"
        }
        let outcome = try register(try TestAuthenticator(), options, relyingParty: framed)
        _ = try #require(outcome.accepted())
        #expect(outcome.trace.passed("§7.1 step 11"))
    }

    // MARK: Step 13

    @Test("step 13: an attestation object that is not CBOR is malformed")
    func step13NotCBOR() throws {
        var options = Options()
        options.attestationObject = { $0 = [0xff, 0x00] }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
        options.attestationObject = { $0.append(0x00) }  // trailing byte
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("step 13: authData without attested credential data (AT clear) is malformed")
    func step13NoAttestedData() throws {
        var options = Options()
        options.authData = { $0 = TestAuthData(flags: [.userPresent, .userVerified]).bytes }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("step 13: rawId or id that disagree with authData's credential id are malformed")
    func step13IdBinding() throws {
        var options = Options()
        options.response = {
            $0.rawId = Array(repeating: 7, count: 32); $0.id = Base64URL.encode($0.rawId)
        }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
        options.response = { $0.id = Base64URL.encode(Array(repeating: 7, count: 32)) }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
        options.response = { $0.id += "=" }
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 13")
    }

    // MARK: Step 14

    @Test("step 14: rpIdHash of another RP ID is rejected (rpIdHash)")
    func step14() throws {
        var authenticator = try TestAuthenticator()
        authenticator.rpId = "example.com"
        try register(authenticator).expectRejected(.rpIdHash, step: "§7.1 step 14")
        // The issued challenge's RP ID is what counts, not the RelyingParty's default.
        authenticator.rpId = "login.example.org"
        let issued = F.registrationChallenge(rpId: "login.example.org")
        _ = try register(authenticator, issued: issued).accepted()
    }

    // MARK: Step 15

    @Test("step 15: UP clear is rejected; with conditional create it is skipped and accepted")
    func step15() throws {
        let options = Options(flags: [])
        try register(try TestAuthenticator(), options).expectRejected(.userPresence, step: "§7.1 step 15")
        let outcome = try register(try TestAuthenticator(), options, issued: F.registrationChallenge(conditional: true))
        let verified = try #require(outcome.accepted())
        #expect(outcome.trace.skipped("§7.1 step 15"))
        #expect(!verified.userPresent)
    }

    // MARK: Step 16

    @Test("step 16: UV clear is rejected only when user verification is required")
    func step16() throws {
        let required = F.registrationChallenge(userVerification: .required)
        try register(try TestAuthenticator(), Options(flags: [.userPresent]), issued: required)
            .expectRejected(.userVerification, step: "§7.1 step 16")
        _ = try register(try TestAuthenticator(), Options(flags: [.userPresent, .userVerified]), issued: required).accepted()
        _ = try register(try TestAuthenticator(), Options(flags: [.userPresent])).accepted()  // preferred
        _ = try register(
            try TestAuthenticator(), Options(flags: [.userPresent]),
            issued: F.registrationChallenge(userVerification: .discouraged)
        ).accepted()
    }

    // MARK: Step 17

    @Test("step 17: BS without BE is rejected (backupFlags); BE with or without BS is accepted")
    func step17() throws {
        try register(try TestAuthenticator(), Options(flags: [.userPresent, .backupState]))
            .expectRejected(.backupFlags, step: "§7.1 step 17")
        _ = try register(try TestAuthenticator(), Options(flags: [.userPresent, .backupEligible])).accepted()
        _ = try register(try TestAuthenticator(), Options(flags: [.userPresent, .backupEligible, .backupState])).accepted()
    }

    // MARK: Step 20

    @Test("step 20: an algorithm that was not offered is rejected (algorithm)")
    func step20NotOffered() throws {
        let issued = F.registrationChallenge(offered: [.rs256])
        try register(try TestAuthenticator(key: .es256), issued: issued).expectRejected(.algorithm, step: "§7.1 step 20")
    }

    @Test("step 20: an offered algorithm the policy does not accept is rejected (algorithm)")
    func step20NotAccepted() throws {
        let policy = VerificationPolicy(acceptedAlgorithms: [.rs256])
        try register(try TestAuthenticator(key: .es256), policy: policy).expectRejected(.algorithm, step: "§7.1 step 20")
        // Nothing offered (every pubKeyCredParams entry of an unknown type): nothing is accepted.
        let nothing = F.registrationChallenge(offered: [])
        try register(try TestAuthenticator(key: .es256), issued: nothing).expectRejected(.algorithm, step: "§7.1 step 20")
    }

    @Test("step 20: a COSE key with an unknown alg is algorithm; one missing its coordinates is malformed")
    func step20KeyShape() throws {
        let unknownAlg = CBOREncoder.encode(
            CBORItem.map([
                (.int(1), .int(2)), (.int(3), .int(-999)), (.int(-1), .int(1)),
                (.int(-2), .bytes(Array(repeating: 1, count: 32))),
                (.int(-3), .bytes(Array(repeating: 2, count: 32))),
            ]))
        var options = Options()
        options.authData = Self.credentialKey(unknownAlg)
        let open = F.registrationChallenge(offered: [COSEAlgorithm(rawValue: -999)])
        try register(try TestAuthenticator(), options, issued: open).expectRejected(.algorithm, step: "§7.1 step 20")
        let noCoordinates = CBOREncoder.encode(CBORItem.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1))]))
        options.authData = Self.credentialKey(noCoordinates)
        try register(try TestAuthenticator(), options).expectRejected(.malformed, step: "§7.1 step 20")
    }

    @Test("step 20: when nothing was offered every response is algorithm, even one whose key is malformed")
    func step20NothingOffered() throws {
        let nothing = F.registrationChallenge(offered: [])
        try register(try TestAuthenticator(), issued: nothing).expectRejected(.algorithm, step: "§7.1 step 20")
        // The key is never read: the client could not have created any credential.
        let noCoordinates = CBOREncoder.encode(CBORItem.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1))]))
        var options = Options()
        options.authData = Self.credentialKey(noCoordinates)
        try register(try TestAuthenticator(), options, issued: nothing).expectRejected(.algorithm, step: "§7.1 step 20")
    }

    @Test("step 20: an RS1 credential needs both the policy and the offer")
    func step20RS1() throws {
        let key = TestAuthenticator.KeySpec(kind: .rsa(bits: 2048), algorithm: .rs1)
        let authenticator = try TestAuthenticator(key: key)
        // Offered, but not accepted by the default policy.
        try register(authenticator, issued: F.registrationChallenge(offered: [.rs1]))
            .expectRejected(.algorithm, step: "§7.1 step 20")
        // Accepted by policy, not offered.
        let policy = VerificationPolicy(acceptedAlgorithms: [.rs1, .es256])
        try register(authenticator, issued: F.registrationChallenge(offered: [.es256]), policy: policy)
            .expectRejected(.algorithm, step: "§7.1 step 20")
        _ = try register(authenticator, issued: F.registrationChallenge(offered: [.rs1]), policy: policy).accepted()
    }

    // MARK: Step 22

    @Test("step 22: an unknown fmt, or one the policy does not allow, is rejected (attestation)")
    func step22() throws {
        try register(try TestAuthenticator(), Options(attestation: .custom(fmt: "none-such", statement: .map([]))))
            .expectRejected(.attestation, step: "§7.1 step 22")
        // fmt matching is case-sensitive.
        try register(try TestAuthenticator(), Options(attestation: .custom(fmt: "None", statement: .map([]))))
            .expectRejected(.attestation, step: "§7.1 step 22")
        let onlyPacked = VerificationPolicy(attestation: AttestationPolicy(allowedFormats: ["packed"]))
        try register(try TestAuthenticator(), policy: onlyPacked).expectRejected(.attestation, step: "§7.1 step 22")
        _ = try register(try TestAuthenticator(), Options(attestation: .packedSelf), policy: onlyPacked).accepted()
    }

    // MARK: Step 23

    @Test("step 23: an attestation statement that does not verify is rejected (attestation)")
    func step23() throws {
        try register(try TestAuthenticator(), Options(attestation: .custom(fmt: "none", statement: .map([(.text("x"), .int(1))]))))
            .expectRejected(.attestation, step: "§7.1 step 23")
        var options = Options(attestation: .packedSelf)
        options.statement = { entries in
            entries = entries.map { $0.0.text == "sig" ? ($0.0, .bytes(Array(repeating: 0x30, count: 8))) : $0 }
        }
        try register(try TestAuthenticator(), options).expectRejected(.attestation, step: "§7.1 step 23")
    }

    // MARK: Step 26

    @Test("step 26: a credential id over 1023 bytes is malformed; 1023 bytes are accepted")
    func step26() throws {
        let longest = try TestAuthenticator(credentialId: Array(repeating: 0x5a, count: 1023))
        let verified = try #require(try register(longest).accepted())
        #expect(verified.record.id.count == 1023)
        // The authenticator-data parser refuses a 1024-byte id before step 26 runs, so the
        // rejection is reported where the attestation object is parsed.
        let tooLong = try TestAuthenticator(credentialId: Array(repeating: 0x5a, count: 1024))
        try register(tooLong).expectRejected(.malformed, step: "§7.1 step 13")
    }

    // MARK: Step 29

    @Test("step 29: with trust required, an x5c chain to no anchor is rejected (trust)")
    func step29Untrusted() throws {
        let ca = try TestAuthenticator.CA.make()
        let other = try TestAuthenticator.CA.make(name: "Other Root")
        let requireTrust = VerificationPolicy(attestation: AttestationPolicy.trusted(by: [other.certificate]))
        try register(try TestAuthenticator(), Options(attestation: .packed(ca: ca)), policy: requireTrust)
            .expectRejected(.trust, step: "§7.1 step 29")
        // Accepting unattested registrations covers none and self, never an untrusted chain.
        let lenient = VerificationPolicy(
            attestation: AttestationPolicy(
                source: FixedTrustAnchors([other.certificate]), chain: .required, unattested: .accepted))
        try register(try TestAuthenticator(), Options(attestation: .packed(ca: ca)), policy: lenient)
            .expectRejected(.trust, step: "§7.1 step 29")
        // The same chain with its root as an anchor is trusted.
        let trusting = VerificationPolicy(attestation: AttestationPolicy.trusted(by: [ca.certificate]))
        let verified = try #require(
            try register(
                try TestAuthenticator(), Options(attestation: .packed(ca: ca)),
                policy: trusting
            ).accepted())
        #expect(verified.attestation.trusted)
        #expect(verified.attestation.trustAnchor == ca.certificate)
        #expect(verified.record.attestationTrusted)
        // Without the requirement, the untrusted chain registers, recorded as untrusted.
        let open = VerificationPolicy(
            attestation: AttestationPolicy(source: FixedTrustAnchors([other.certificate])))
        let untrusted = try #require(
            try register(
                try TestAuthenticator(), Options(attestation: .packed(ca: ca)),
                policy: open
            ).accepted())
        #expect(!untrusted.attestation.trusted)
        #expect(untrusted.attestation.untrustedReason != nil)
    }

    @Test(
        "step 29: with trust required, none and self are rejected unless unattested ones are accepted",
        arguments: [TestAuthenticator.Attestation.none, .packedSelf])
    func step29Unattested(_ attestation: TestAuthenticator.Attestation) throws {
        let ca = try TestAuthenticator.CA.make()
        var policy = VerificationPolicy(attestation: AttestationPolicy.trusted(by: [ca.certificate]))
        try register(try TestAuthenticator(), Options(attestation: attestation), policy: policy)
            .expectRejected(.trust, step: "§7.1 step 29")
        policy = VerificationPolicy(
            attestation: AttestationPolicy(source: FixedTrustAnchors([ca.certificate]), chain: .required, unattested: .accepted))
        let verified = try #require(try register(try TestAuthenticator(), Options(attestation: attestation), policy: policy).accepted())
        #expect(!verified.attestation.trusted)
        #expect(!verified.record.attestationTrusted)
    }

    // MARK: The result record

    @Test("step 3: transports are stored once each; more than 16, or a name over 32 bytes, is malformed")
    func transportsBounded() throws {
        func outcome(_ transports: [String]) throws -> CeremonyOutcome<VerifiedRegistration> {
            var authenticator = try TestAuthenticator()
            authenticator.transports = transports
            return try register(authenticator, Options(attestation: .none))
        }
        let repeated = try #require(try outcome(["usb", "nfc", "usb", "future-transport"]).accepted())
        #expect(repeated.record.transports == ["usb", "nfc", "future-transport"])
        let sixteen = (0..<16).map { "t\($0)" }
        #expect(try outcome(sixteen).accepted()?.record.transports == sixteen)
        try outcome(sixteen + ["t16"]).expectRejected(.malformed, step: "§7.1 step 3")
        #expect(try outcome([String(repeating: "x", count: 32)]).accepted() != nil)
        try outcome([String(repeating: "x", count: 33)]).expectRejected(.malformed, step: "§7.1 step 3")
    }

    @Test("the record carries every registration fact")
    func recordFields() throws {
        var authenticator = try TestAuthenticator(key: .es384, credentialId: Array(100..<140))
        authenticator.signCount = 41
        authenticator.transports = ["hybrid", "internal"]
        let issued = F.registrationChallenge(userHandle: [9, 8, 7])
        let outcome = try register(
            authenticator,
            Options(
                flags: [.userPresent, .userVerified, .backupEligible, .backupState],
                attestation: .packedSelf), issued: issued)
        let verified = try #require(outcome.accepted())
        let record = verified.record
        #expect(record.id == Array(100..<140))
        #expect(record.publicKey == authenticator.coseKey)
        #expect(record.algorithm == COSEAlgorithm.es384.rawValue)
        #expect(record.signCount == 41)
        #expect(record.userHandle == [9, 8, 7])
        #expect(record.uvInitialized)
        #expect(record.backupEligible)
        #expect(record.backupState)
        #expect(record.transports == ["hybrid", "internal"])
        #expect(record.aaguid == "01020304-0506-0708-090a-0b0c0d0e0f10")
        #expect(record.attestationFormat == "packed")
        #expect(record.attestationType == .self)
        #expect(!record.attestationTrusted)
        #expect(record.attestationObject == nil)
        #expect(record.registrationClientDataJSON == nil)
        #expect(verified.userPresent && verified.record.uvInitialized)
        #expect(verified.credentialKey.algorithm == .es384)
        #expect(verified.clientData.origin == "https://example.org")

        let plain = try #require(try register(try TestAuthenticator(), Options(flags: [.userPresent])).accepted()).record
        #expect(!plain.uvInitialized && !plain.backupEligible && !plain.backupState)
        #expect(plain.signCount == 0)
        #expect(plain.attestationFormat == "none" && plain.attestationType == .none)
    }

    @Test("keepAttestation keeps the raw attestation object and client data")
    func keepAttestation() throws {
        let authenticator = try TestAuthenticator()
        let response = try authenticator.register(challenge: Self.challenge)
        let kept = try #require(F.register(response, keepAttestation: true).accepted())
        #expect(kept.record.attestationObject == response.attestationObject)
        #expect(kept.record.registrationClientDataJSON == response.clientDataJSON)
    }

    // MARK: Through the service: consume, step 27, single use

    static func service(policy: VerificationPolicy = VerificationPolicy()) -> RelyingPartyService {
        RelyingPartyService(relyingParty: F.relyingParty, policy: policy)
    }

    @Test("consume: a challenge never issued is rejected (challenge) before any other step")
    func consumeNotIssued() async throws {
        let service = Self.service()
        let response = try TestAuthenticator().register(challenge: Self.challenge)
        let report = try await service.finishRegistrationReport(response, now: F.now)
        report.outcome.expectRejected(.challenge, step: "consume")
        #expect(report.trace.steps.count == 1)
    }

    @Test("consume: unparseable client data with no session challenge is malformed at consume")
    func consumeUnparseable() async throws {
        let service = Self.service()
        var options = Options()
        options.clientDataBytes = { $0 = Array("{".utf8) }
        let response = try TestAuthenticator().register(challenge: Self.challenge, options)
        try await service.finishRegistrationReport(response, now: F.now).outcome.expectRejected(.malformed, step: "consume")
        options.clientData = { $0.challengeText = "not base64url!" }
        options.clientDataBytes = { _ in }
        let badChallenge = try TestAuthenticator().register(challenge: Self.challenge, options)
        try await service.finishRegistrationReport(badChallenge, now: F.now).outcome.expectRejected(.malformed, step: "consume")
    }

    @Test("consume: the session's challenge is used when given, and the client's must match it")
    func consumeExpected() async throws {
        let service = Self.service()
        try await service.issue(F.registrationChallenge(), now: F.now)
        var options = Options()
        options.clientData = { $0.challenge = Array(repeating: 0xEE, count: 32) }
        let response = try TestAuthenticator().register(challenge: Self.challenge, options)
        try await service.finishRegistrationReport(response, challenge: .session(Self.challenge), now: F.now)
            .outcome.expectRejected(.challenge, step: "§7.1 step 8")
    }

    @Test("a challenge answers one response only, whatever the verdict")
    func singleUse() async throws {
        let service = Self.service()
        let authenticator = try TestAuthenticator()
        try await service.issue(F.registrationChallenge(), now: F.now)
        var bad = Options()
        bad.clientData = { $0.origin = "https://evil.example" }
        try await service.finishRegistrationReport(try authenticator.register(challenge: Self.challenge, bad), now: F.now)
            .outcome.expectRejected(.origin, step: "§7.1 step 9")
        // The rejected attempt consumed it: a valid response now finds no challenge.
        try await service.finishRegistrationReport(try authenticator.register(challenge: Self.challenge), now: F.now)
            .outcome.expectRejected(.challenge, step: "consume")
        // Issued again, it works once, then never again.
        try await service.issue(F.registrationChallenge(), now: F.now)
        let good = try authenticator.register(challenge: Self.challenge)
        _ = try await service.finishRegistration(good, now: F.now)
        try await service.finishRegistrationReport(good, now: F.now).outcome.expectRejected(.challenge, step: "consume")
    }

    @Test("expiry through the service: the lapsed challenge is consumed and rejected at pending")
    func serviceExpiry() async throws {
        let service = Self.service()
        try await service.issue(F.registrationChallenge(expiresAt: F.now.addingTimeInterval(60)), now: F.now)
        let response = try TestAuthenticator().register(challenge: Self.challenge)
        try await service.finishRegistrationReport(response, now: F.now.addingTimeInterval(61))
            .outcome.expectRejected(.challenge, step: "pending")
        try await service.finishRegistrationReport(response, now: F.now).outcome.expectRejected(.challenge, step: "consume")
    }

    @Test("step 27: a credential id already registered is rejected (credentialExists) and not overwritten")
    func step27() async throws {
        let service = Self.service()
        let first = try TestAuthenticator()
        try await service.issue(F.registrationChallenge(), now: F.now)
        let stored = try await service.finishRegistration(try first.register(challenge: Self.challenge), now: F.now)
        #expect(try await service.credentials.credential(id: first.credentialId)?.publicKey == stored.record.publicKey)

        // Another key claiming the same credential id, for another user.
        let second = try TestAuthenticator()
        let otherChallenge = Array(repeating: UInt8(0xC3), count: 32)
        try await service.issue(F.registrationChallenge(otherChallenge, userHandle: Array("user-b".utf8)), now: F.now)
        let report = try await service.finishRegistrationReport(try second.register(challenge: otherChallenge), now: F.now)
        report.outcome.expectRejected(.credentialExists, step: "§7.1 step 27")
        let kept = try #require(try await service.credentials.credential(id: first.credentialId))
        #expect(kept.publicKey == first.coseKey)
        #expect(kept.userHandle == Array("user-a".utf8))
    }

    @Test("an accepted registration is stored, and its trace ends with steps 27 and 28")
    func stored() async throws {
        let service = Self.service()
        let authenticator = try TestAuthenticator()
        try await service.issue(F.registrationChallenge(), now: F.now)
        let report = try await service.finishRegistrationReport(
            try authenticator.register(challenge: Self.challenge),
            now: F.now, keepAttestation: true)
        _ = try #require(report.outcome.accepted())
        #expect(report.trace.steps.first?.step == "consume")
        #expect(report.trace.steps.suffix(2).map(\.step) == ["§7.1 step 27", "§7.1 step 28"])
        let record = try #require(try await service.credentials.credential(id: authenticator.credentialId))
        #expect(record.attestationObject != nil)
    }

    @Test("a registration sent as RegistrationResponseJSON verifies the same way")
    func json() async throws {
        let service = Self.service()
        try await service.issue(F.registrationChallenge(), now: F.now)
        let json = try TestAuthenticator().registerJSON(challenge: Self.challenge)
        let decoded = try RegistrationResponseJSON(jsonData: try json.jsonData())
        #expect(decoded == json)
        let verified = try await service.finishRegistration(RegistrationResponse(json: decoded), now: F.now)
        #expect(verified.record.transports == ["usb"])
    }
}
