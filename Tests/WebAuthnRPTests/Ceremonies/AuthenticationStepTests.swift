import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// W3C WebAuthn L3 §7.2, one test per step that can fail: the exact category and
/// step label, and the accepting counterpart.
@Suite("§7.2 authentication, step by step")
struct AuthenticationStepTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.AuthenticationOptions
    static let challenge = Array(repeating: UInt8(0xB2), count: 32)
    static let userA = Array("user-a".utf8)
    static let userB = Array("user-b".utf8)

    /// Signs an assertion and verifies it against `record` (default: the authenticator's own).
    func login(
        _ authenticator: inout TestAuthenticator, _ options: Options = Options(),
        issued: IssuedChallenge = F.authenticationChallenge(), record: CredentialRecord? = nil,
        relyingParty: RelyingParty = F.relyingParty, policy: VerificationPolicy = VerificationPolicy(),
        now: Date = F.now
    ) throws -> CeremonyOutcome<VerifiedAuthentication> {
        let response = try authenticator.authenticate(challenge: issued.challenge, options)
        return F.authenticate(
            response, issued: issued, record: record ?? authenticator.record(),
            relyingParty: relyingParty, policy: policy, now: now)
    }

    // MARK: Baseline

    @Test("a discoverable login passes every step, in order")
    func baseline() throws {
        var authenticator = try TestAuthenticator()
        let outcome = try login(&authenticator)
        _ = try #require(outcome.accepted())
        #expect(
            outcome.trace.steps.map(\.step) == [
                "pending", "§7.2 step 3", "§7.2 step 4", "§7.2 step 5", "§7.2 step 6", "§7.2 steps 7-9", "§7.2 step 10",
                "§7.2 step 11", "§7.2 step 12", "§7.2 step 13", "§7.2 step 14", "§7.2 step 7", "§7.2 step 15",
                "§7.2 step 16", "§7.2 step 17", "§7.2 step 18", "§7.2 step 19", "§7.2 step 20", "§7.2 step 21",
                "§7.2 step 22", "§7.2 step 23", "§7.2 step 24", "§7.2 step 25",
            ])
        #expect(outcome.trace.skipped("§7.2 step 5"))  // allowCredentials empty
        #expect(outcome.trace.skipped("§7.2 step 14"))  // no topOrigin
        #expect(outcome.trace.passed("§7.2 step 22"))
        #expect(outcome.trace.passed("§7.2 step 23"))  // 0 -> 1
    }

    // MARK: pending

    @Test("pending: a registration challenge does not answer a login; an expired one is rejected")
    func pending() throws {
        var authenticator = try TestAuthenticator()
        let registration = F.registrationChallenge(Self.challenge)
        try login(&authenticator, issued: registration).expectRejected(.challenge, step: "pending")
        let issued = F.authenticationChallenge(expiresAt: F.now)
        try login(&authenticator, issued: issued, now: F.now.addingTimeInterval(0.001)).expectRejected(.challenge, step: "pending")
        _ = try login(&authenticator, issued: issued, now: F.now).accepted()
        _ = try login(&authenticator, issued: issued, now: F.now.addingTimeInterval(-0.5)).accepted()
        // Verified before the recorded issue time: the clock went back.
        let stamped = F.authenticationChallenge(issuedAt: F.now)
        try login(&authenticator, issued: stamped, now: F.now.addingTimeInterval(-0.001)).expectRejected(.challenge, step: "pending")
        _ = try login(&authenticator, issued: stamped, now: F.now).accepted()
    }

    // MARK: Step 3

    @Test("step 3: a type other than public-key, or an id that is not rawId's base64url, is malformed")
    func step3() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.response = { $0.type = "public-key " }
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 step 3")
        options.response = { $0.id = Base64URL.encode(Array(repeating: 1, count: 32)) }
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 step 3")
    }

    // MARK: Step 5

    @Test("step 5: a credential not in a non-empty allowCredentials is rejected (unknownCredential)")
    func step5() throws {
        var authenticator = try TestAuthenticator()
        let others = F.authenticationChallenge(allowCredentials: [Array(repeating: 9, count: 32)])
        try login(&authenticator, issued: others).expectRejected(.unknownCredential, step: "§7.2 step 5")
        let listed = F.authenticationChallenge(allowCredentials: [Array(repeating: 9, count: 32), authenticator.credentialId])
        let outcome = try login(&authenticator, issued: listed)
        _ = try #require(outcome.accepted())
        #expect(outcome.trace.passed("§7.2 step 5"))
    }

    // MARK: Step 6

    @Test("step 6: no record for the credential id is rejected (unknownCredential)")
    func step6Unknown() throws {
        var authenticator = try TestAuthenticator()
        let response = try authenticator.authenticate(challenge: Self.challenge)
        F.authenticate(response, record: nil).expectRejected(.unknownCredential, step: "§7.2 step 6")
    }

    @Test("step 6: a record whose id is not credential.rawId is unknownCredential, even with the same key and user")
    func step6RecordId() throws {
        var authenticator = try TestAuthenticator()
        var other = authenticator.record()
        other.id = authenticator.credentialId.map { $0 ^ 0x20 }  // what a case-folding lookup could return
        try login(&authenticator, record: other).expectRejected(.unknownCredential, step: "§7.2 step 6")
        _ = try login(&authenticator).accepted()
    }

    @Test("step 6, identified user: another user's credential is unknownCredential; a different userHandle is userHandle")
    func step6IdentifiedUser() throws {
        var authenticator = try TestAuthenticator()
        let forA = F.authenticationChallenge(userHandle: Self.userA, allowCredentials: [authenticator.credentialId])
        var ofB = authenticator.record()
        ofB.userHandle = Self.userB
        try login(&authenticator, issued: forA, record: ofB).expectRejected(.unknownCredential, step: "§7.2 step 6")
        // The record is A's, but the authenticator returns B's handle.
        var options = Options()
        options.response = { $0.userHandle = Self.userB }
        try login(&authenticator, options, issued: forA).expectRejected(.userHandle, step: "§7.2 step 6")
        // Accepted with A's handle, and without any handle (non-discoverable credential).
        _ = try login(&authenticator, issued: forA).accepted()
        authenticator.returnsUserHandle = false
        _ = try login(&authenticator, issued: forA).accepted()
    }

    @Test("step 6, identified user with empty allowCredentials: still only that user's credentials")
    func step6IdentifiedUserNoList() throws {
        var authenticator = try TestAuthenticator()
        let forB = F.authenticationChallenge(userHandle: Self.userB)
        try login(&authenticator, issued: forB).expectRejected(.unknownCredential, step: "§7.2 step 6")
    }

    @Test("step 6, discoverable: a missing userHandle, or one that is not the record's, is rejected (userHandle)")
    func step6Discoverable() throws {
        var authenticator = try TestAuthenticator()
        authenticator.returnsUserHandle = false
        try login(&authenticator).expectRejected(.userHandle, step: "§7.2 step 6")
        authenticator.returnsUserHandle = true
        var options = Options()
        options.response = { $0.userHandle = Self.userB }
        try login(&authenticator, options).expectRejected(.userHandle, step: "§7.2 step 6")
        // An empty userHandle counts as absent.
        options.response = {
            $0 = AuthenticationResponse(
                id: $0.id, rawId: $0.rawId, clientDataJSON: $0.clientDataJSON,
                authenticatorData: $0.authenticatorData, signature: $0.signature,
                userHandle: [])
        }
        try login(&authenticator, options).expectRejected(.userHandle, step: "§7.2 step 6")
    }

    @Test("step 6, allowCredentials without an identified user: a returned userHandle must be the record's")
    func step6AllowListHandle() throws {
        var authenticator = try TestAuthenticator()
        let listed = F.authenticationChallenge(allowCredentials: [authenticator.credentialId])
        var options = Options()
        options.response = { $0.userHandle = Self.userB }
        try login(&authenticator, options, issued: listed).expectRejected(.userHandle, step: "§7.2 step 6")
        authenticator.returnsUserHandle = false
        _ = try login(&authenticator, issued: listed).accepted()
    }

    // MARK: Steps 7-9 and 7

    @Test(
        "steps 7-9: clientDataJSON that is not UTF-8 JSON client data is malformed",
        arguments: [[UInt8](arrayLiteral: 0xc3, 0x28), Array("{}".utf8), Array(#"{"type":1}"#.utf8)])
    func step7ClientData(_ bytes: [UInt8]) throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.clientDataBytes = { $0 = bytes }
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 steps 7-9")
    }

    @Test("step 7: authenticator data that does not parse is malformed")
    func step7AuthData() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.authData = { $0.removeLast() }
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 step 7")
        options.authData = { $0[32] |= AuthenticatorFlags.extensionData.rawValue }  // ED set, no extensions
        try login(&authenticator, options).expectRejected(.malformed, step: "§7.2 step 7")
    }

    // MARK: Steps 10-14

    @Test("step 10: C.type webauthn.create in a login is rejected (type)")
    func step10() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.clientData = { $0.type = "webauthn.create" }
        try login(&authenticator, options).expectRejected(.type, step: "§7.2 step 10")
    }

    @Test("step 11: a different challenge is rejected (challenge)")
    func step11() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.clientData = { $0.challenge = Array(repeating: 0xB3, count: 32) }
        try login(&authenticator, options).expectRejected(.challenge, step: "§7.2 step 11")
    }

    @Test("step 12: an unlisted origin is rejected (origin)")
    func step12() throws {
        var authenticator = try TestAuthenticator()
        authenticator.origin = "http://example.org"
        try login(&authenticator).expectRejected(.origin, step: "§7.2 step 12")
    }

    @Test("step 13: crossOrigin true without the RP expecting iframes is rejected (origin)")
    func step13() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.clientData = { $0.crossOrigin = true }
        try login(&authenticator, options).expectRejected(.origin, step: "§7.2 step 13")
        let framed = RelyingParty(id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true)
        _ = try login(&authenticator, options, relyingParty: framed).accepted()
    }

    @Test("step 14: a topOrigin that is not allowed is rejected (origin); a listed one passes")
    func step14() throws {
        var authenticator = try TestAuthenticator()
        let framed = RelyingParty(
            id: "example.org", origins: ["https://example.org"], allowCrossOrigin: true,
            topOrigins: ["https://portal.example.com"])
        var options = Options()
        options.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://attacker.example"
        }
        try login(&authenticator, options, relyingParty: framed).expectRejected(.origin, step: "§7.2 step 14")
        options.clientData = { $0.topOrigin = "https://portal.example.com" }  // crossOrigin false
        try login(&authenticator, options, relyingParty: framed).expectRejected(.origin, step: "§7.2 step 14")
        try login(&authenticator, options).expectRejected(.origin, step: "§7.2 step 14")
        options.clientData = {
            $0.crossOrigin = true; $0.topOrigin = "https://portal.example.com"
        }
        let outcome = try login(&authenticator, options, relyingParty: framed)
        _ = try #require(outcome.accepted())
        #expect(outcome.trace.passed("§7.2 step 14"))
    }

    // MARK: Steps 15-19

    @Test("step 15: rpIdHash of another RP ID is rejected (rpIdHash), even when correctly signed")
    func step15() throws {
        var authenticator = try TestAuthenticator()
        authenticator.rpId = "evil.example"
        try login(&authenticator).expectRejected(.rpIdHash, step: "§7.2 step 15")
    }

    @Test("step 16: UP clear is rejected (userPresence)")
    func step16() throws {
        var authenticator = try TestAuthenticator()
        try login(&authenticator, Options(flags: [.userVerified])).expectRejected(.userPresence, step: "§7.2 step 16")
    }

    @Test("step 17: UV clear is rejected when required, accepted when preferred")
    func step17() throws {
        var authenticator = try TestAuthenticator()
        let required = F.authenticationChallenge(userVerification: .required)
        try login(&authenticator, Options(flags: [.userPresent]), issued: required)
            .expectRejected(.userVerification, step: "§7.2 step 17")
        _ = try login(&authenticator, issued: required).accepted()
        _ = try login(&authenticator, Options(flags: [.userPresent])).accepted()
    }

    @Test("step 18: BS without BE is rejected (backupFlags)")
    func step18() throws {
        var authenticator = try TestAuthenticator()
        try login(&authenticator, Options(flags: [.userPresent, .backupState]))
            .expectRejected(.backupFlags, step: "§7.2 step 18")
    }

    @Test("step 19: BE that changed since registration is rejected (backupFlags), either way")
    func step19() throws {
        var authenticator = try TestAuthenticator()
        // Registered not eligible, now eligible.
        try login(&authenticator, Options(flags: [.userPresent, .backupEligible]))
            .expectRejected(.backupFlags, step: "§7.2 step 19")
        // Registered eligible, now not.
        let eligible = authenticator.record(backupEligible: true)
        try login(&authenticator, Options(flags: [.userPresent]), record: eligible)
            .expectRejected(.backupFlags, step: "§7.2 step 19")
        _ = try login(&authenticator, Options(flags: [.userPresent, .backupEligible]), record: eligible).accepted()
    }

    // MARK: Step 22

    @Test("step 22: a signature that does not verify is rejected (signature)")
    func step22() throws {
        var authenticator = try TestAuthenticator()
        var options = Options()
        options.signature = { $0[$0.count - 1] ^= 0x01 }
        try login(&authenticator, options).expectRejected(.signature, step: "§7.2 step 22")
        options.signature = { $0 = [] }
        try login(&authenticator, options).expectRejected(.signature, step: "§7.2 step 22")
        // Signed, then the client data changed: the hash no longer matches.
        options.signature = { _ in }
        options.response = {
            $0.clientDataJSON = Array(
                String(decoding: $0.clientDataJSON, as: UTF8.self)
                    .replacingOccurrences(of: "false", with: "false ").utf8)
        }
        try login(&authenticator, options).expectRejected(.signature, step: "§7.2 step 22")
        // Signed, then a flag changed in authenticator data.
        var flipped = Options(flags: [.userPresent])
        flipped.response = { $0.authenticatorData[32] |= AuthenticatorFlags.userVerified.rawValue }
        try login(&authenticator, flipped).expectRejected(.signature, step: "§7.2 step 22")
    }

    @Test("step 22: another credential's key does not verify the signature")
    func step22OtherKey() throws {
        var authenticator = try TestAuthenticator()
        let other = try TestAuthenticator()
        try login(&authenticator, record: other.record()).expectRejected(.signature, step: "§7.2 step 22")
    }

    @Test("step 22: a stored public key that does not parse is malformed")
    func step22BadStoredKey() throws {
        var authenticator = try TestAuthenticator()
        var record = authenticator.record()
        record.publicKey = [0xa0]
        try login(&authenticator, record: record).expectRejected(.malformed, step: "§7.2 step 22")
    }

    @Test("step 22: a stored RS1 key logs in only while the policy accepts RS1 (algorithm otherwise)")
    func step22StoredRS1NeedsThePolicy() throws {
        let key = TestAuthenticator.KeySpec(kind: .rsa(bits: 2048), algorithm: .rs1)
        var authenticator = try TestAuthenticator(key: key)
        let legacy = VerificationPolicy(acceptedAlgorithms: [.rs1, .es256])
        _ = try login(&authenticator, policy: legacy).accepted()
        // The same record after the relying party dropped RS1 from its policy.
        try login(&authenticator).expectRejected(.algorithm, step: "§7.2 step 22")
    }

    // MARK: Step 23

    @Test("step 23: a counter that does not increase is rejected (signCount)")
    func step23Regression() throws {
        var authenticator = try TestAuthenticator()
        let stored = authenticator.record(signCount: 10)
        try login(&authenticator, Options(signCount: 10), record: stored).expectRejected(.signCount, step: "§7.2 step 23")
        try login(&authenticator, Options(signCount: 9), record: stored).expectRejected(.signCount, step: "§7.2 step 23")
        try login(&authenticator, Options(signCount: 0), record: stored).expectRejected(.signCount, step: "§7.2 step 23")
        let ahead = try #require(try login(&authenticator, Options(signCount: 11), record: stored).accepted())
        #expect(ahead.updatedRecord.signCount == 11)
        #expect(!ahead.counterRegressed)
    }

    @Test("step 23: both counters zero is skipped and accepted")
    func step23BothZero() throws {
        var authenticator = try TestAuthenticator()
        let outcome = try login(&authenticator, Options(signCount: 0))
        let verified = try #require(outcome.accepted())
        #expect(outcome.trace.skipped("§7.2 step 23"))
        #expect(verified.updatedRecord.signCount == 0)
        #expect(!verified.counterRegressed)
    }

    @Test("step 23: acceptAndFlag accepts a regression, flags it and keeps the higher stored count")
    func step23AcceptAndFlag() throws {
        var authenticator = try TestAuthenticator()
        let policy = VerificationPolicy(counter: .acceptAndFlag)
        let stored = authenticator.record(signCount: 10)
        let outcome = try login(&authenticator, Options(signCount: 4), record: stored, policy: policy)
        let verified = try #require(outcome.accepted())
        #expect(verified.counterRegressed)
        #expect(verified.updatedRecord.signCount == 10)
        #expect(outcome.trace.passed("§7.2 step 23"))
        let normal = try #require(try login(&authenticator, Options(signCount: 12), record: stored, policy: policy).accepted())
        #expect(!normal.counterRegressed)
        #expect(normal.updatedRecord.signCount == 12)
    }

    // MARK: Step 25: the updated record

    @Test("the updated record takes the new signCount and BS, and uvInitialized once UV was seen")
    func updatedRecord() throws {
        var authenticator = try TestAuthenticator()
        let stored = authenticator.record(signCount: 3, backupEligible: true, backupState: false, uvInitialized: false)
        let first = try #require(
            try login(
                &authenticator,
                Options(
                    flags: [.userPresent, .userVerified, .backupEligible, .backupState],
                    signCount: 7), record: stored
            ).accepted())
        #expect(first.updatedRecord.signCount == 7)
        #expect(first.updatedRecord.backupState)
        #expect(first.updatedRecord.uvInitialized)
        #expect(first.updatedRecord.backupEligible)
        #expect(first.userVerified)
        // Without UV later, uvInitialized stays; BS follows the latest assertion.
        let second = try #require(
            try login(
                &authenticator, Options(flags: [.userPresent, .backupEligible], signCount: 8),
                record: first.updatedRecord
            ).accepted())
        #expect(second.updatedRecord.uvInitialized)
        #expect(!second.updatedRecord.backupState)
        #expect(!second.userVerified)
        // Without UV ever, uvInitialized stays false.
        let plain = try #require(
            try login(
                &authenticator, Options(flags: [.userPresent, .backupEligible], signCount: 9),
                record: stored
            ).accepted())
        #expect(!plain.updatedRecord.uvInitialized)
        // Everything else is carried over unchanged.
        #expect(plain.updatedRecord.id == stored.id && plain.updatedRecord.publicKey == stored.publicKey)
        #expect(plain.updatedRecord.userHandle == stored.userHandle && plain.updatedRecord.aaguid == stored.aaguid)
    }

    // MARK: Through the service

    static func registeredService(
        _ authenticator: TestAuthenticator,
        policy: VerificationPolicy = VerificationPolicy()
    ) async throws -> RelyingPartyService {
        let service = RelyingPartyService(relyingParty: F.relyingParty, policy: policy)
        let challenge = Array(repeating: UInt8(0xA1), count: 32)
        try await service.issue(F.registrationChallenge(challenge), now: F.now)
        _ = try await service.finishRegistration(try authenticator.register(challenge: challenge), now: F.now)
        return service
    }

    @Test("service: register, then log in twice; the stored record follows")
    func serviceFlow() async throws {
        var authenticator = try TestAuthenticator()
        let service = try await Self.registeredService(authenticator)
        for round in 1...2 {
            let challenge = Array(repeating: UInt8(round), count: 32)
            try await service.issue(F.authenticationChallenge(challenge), now: F.now)
            let json = try authenticator.authenticateJSON(challenge: challenge, Options(flags: [.userPresent, .userVerified]))
            let decoded = try AuthenticationResponseJSON(jsonData: try json.jsonData())
            let verified = try await service.finishAuthentication(AuthenticationResponse(json: decoded), now: F.now)
            #expect(verified.updatedRecord.signCount == UInt32(round))
            let stored = try #require(try await service.credentials.credential(id: authenticator.credentialId))
            #expect(stored.signCount == UInt32(round))
            #expect(stored.uvInitialized)
        }
    }

    @Test("service: an assertion replayed is rejected at consume; a cloned counter at step 23")
    func serviceReplayAndClone() async throws {
        var authenticator = try TestAuthenticator()
        let service = try await Self.registeredService(authenticator)
        try await service.issue(F.authenticationChallenge(Self.challenge), now: F.now)
        let response = try authenticator.authenticate(challenge: Self.challenge)
        _ = try await service.finishAuthentication(response, now: F.now)
        try await service.finishAuthenticationReport(response, now: F.now).outcome.expectRejected(.challenge, step: "consume")
        // A clone still at the old counter.
        var clone = authenticator
        clone.signCount = 0
        let next = Array(repeating: UInt8(0x77), count: 32)
        try await service.issue(F.authenticationChallenge(next), now: F.now)
        try await service.finishAuthenticationReport(try clone.authenticate(challenge: next), now: F.now)
            .outcome.expectRejected(.signCount, step: "§7.2 step 23")
    }

    @Test("service: an expired login challenge is rejected at pending and consumed")
    func serviceExpiry() async throws {
        var authenticator = try TestAuthenticator()
        let service = try await Self.registeredService(authenticator)
        try await service.issue(F.authenticationChallenge(Self.challenge, expiresAt: F.now.addingTimeInterval(30)), now: F.now)
        let response = try authenticator.authenticate(challenge: Self.challenge)
        try await service.finishAuthenticationReport(response, now: F.now.addingTimeInterval(30.001))
            .outcome.expectRejected(.challenge, step: "pending")
        try await service.finishAuthenticationReport(response, now: F.now).outcome.expectRejected(.challenge, step: "consume")
    }

    @Test("service: an unknown credential id is rejected (unknownCredential) at step 6")
    func serviceUnknown() async throws {
        let registered = try TestAuthenticator()
        let service = try await Self.registeredService(registered)
        var stranger = try TestAuthenticator(credentialId: Array(repeating: 0x44, count: 16))
        try await service.issue(F.authenticationChallenge(Self.challenge), now: F.now)
        try await service.finishAuthenticationReport(try stranger.authenticate(challenge: Self.challenge), now: F.now)
            .outcome.expectRejected(.unknownCredential, step: "§7.2 step 6")
    }

    @Test("service: a rejected login does not change the stored record")
    func serviceRejectedLeavesRecord() async throws {
        var authenticator = try TestAuthenticator()
        let service = try await Self.registeredService(authenticator)
        try await service.issue(F.authenticationChallenge(Self.challenge), now: F.now)
        var options = Options(signCount: 50)
        options.signature = { $0[$0.count - 1] ^= 1 }
        try await service.finishAuthenticationReport(try authenticator.authenticate(challenge: Self.challenge, options), now: F.now)
            .outcome.expectRejected(.signature, step: "§7.2 step 22")
        #expect(try await service.credentials.credential(id: authenticator.credentialId)?.signCount == 0)
    }
}
