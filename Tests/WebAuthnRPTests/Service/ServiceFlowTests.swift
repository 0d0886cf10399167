import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The server flow end to end: begin (options + issued challenge) then finish.
@Suite("RelyingPartyService begin/finish flow")
struct ServiceFlowTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    func service(_ policy: VerificationPolicy = VerificationPolicy()) -> RelyingPartyService {
        RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, policy: policy)
    }

    @Test("beginRegistration builds options from the RP and policy, with a fresh 32-byte challenge")
    func registrationOptions() async throws {
        let service = service()
        let first = try await service.beginRegistration(
            RegistrationRequest(user: user, userVerification: .required, attestation: .direct), now: now
        ).options
        let second = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        #expect(first.challenge.bytes.count == 32)
        #expect(first.challenge != second.challenge)
        #expect(first.rp.id == "example.org")
        #expect(first.user.id.bytes == Array("user-a".utf8))
        #expect(first.pubKeyCredParams.map(\.algorithm) == [.edDSA, .es256, .rs256])
        #expect(first.authenticatorSelection?.userVerification == .required)
        #expect(first.attestation == .direct)
        #expect(first.excludeCredentials.isEmpty)
    }

    @Test("register then log in through begin/finish; a second registration excludes the first credential")
    func fullFlow() async throws {
        let service = service()
        var authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        let response = try authenticator.register(challenge: options.challenge.bytes)
        let registered = try await service.finishRegistration(response, challenge: .session(options.challenge.bytes), now: now)
        #expect(registered.record.userHandle == Array("user-a".utf8))

        let again = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        #expect(again.excludeCredentials.map(\.id.bytes) == [authenticator.credentialId])

        let request = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-a".utf8)), now: now).options
        #expect(request.rpId == "example.org")
        #expect(request.allowCredentials?.map(\.id.bytes) == [authenticator.credentialId])
        let assertion = try authenticator.authenticate(challenge: request.challenge.bytes)
        let login = try await service.finishAuthentication(assertion, challenge: .session(request.challenge.bytes), now: now)
        #expect(login.updatedRecord.signCount == assertion.authenticatorData.signCountForTest)
    }

    @Test(
        "a registration names the user its options were made for, from the challenge alone: stored and sealed",
        arguments: ["stored", "sealed"])
    func registrationNamesItsUser(transport: String) async throws {
        let service = try CeremonyFixture.service(sealed: transport == "sealed")
        // Two sign-ups in flight at once; each finish says whose it was, in the order they end.
        let grace = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-b".utf8)), name: "grace", displayName: "Grace")
        let first = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        let second = try await service.beginRegistration(RegistrationRequest(user: grace), now: now)
        let secondMade = try TestAuthenticator(credentialId: Array(repeating: 2, count: 16)).register(
            challenge: second.options.challenge.bytes)
        let secondVerified = try await service.finishRegistration(secondMade, challenge: second.challenge, now: now)
        #expect(secondVerified.userHandle == Array("user-b".utf8))
        let firstMade = try TestAuthenticator(credentialId: Array(repeating: 1, count: 16)).register(
            challenge: first.options.challenge.bytes)
        // The state kept as text, as a server keeps it, reads back to the same binding.
        let firstVerified = try await service.finishRegistration(
            firstMade, challenge: try CeremonyChallenge(serialized: first.challenge.serialized), now: now)
        #expect(firstVerified.userHandle == Array("user-a".utf8))
        #expect(firstVerified.record.userHandle == firstVerified.userHandle)
    }

    @Test("a discoverable login has no allowCredentials and needs the user handle")
    func discoverableLogin() async throws {
        let service = service()
        var authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        _ = try await service.finishRegistration(try authenticator.register(challenge: options.challenge.bytes), now: now)

        let request = try await service.beginAuthentication(now: now).options
        #expect(request.allowCredentials == nil)
        _ = try await service.finishAuthentication(try authenticator.authenticate(challenge: request.challenge.bytes), now: now)

        authenticator.returnsUserHandle = false
        let another = try await service.beginAuthentication(now: now).options
        await #expect(throws: WebAuthnError(.userHandle, "")) {
            _ = try await service.finishAuthentication(try authenticator.authenticate(challenge: another.challenge.bytes), now: now)
        }
    }

    @Test("an issued challenge expires after the policy's challenge lifetime")
    func lifetime() async throws {
        let service = service(VerificationPolicy(challengeLifetime: 60))
        let authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        #expect(options.timeout == 60_000)
        await #expect(throws: WebAuthnError(.challenge, "")) {
            _ = try await service.finishRegistration(
                try authenticator.register(challenge: options.challenge.bytes),
                now: now.addingTimeInterval(61))
        }
    }

    @Test("begin records the issue time: the lifetime later is accepted, a millisecond more is not, nor a clock gone back")
    func lifetimeBoundaries() async throws {
        let service = service(VerificationPolicy(challengeLifetime: 60))
        var authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        _ = try await service.finishRegistration(
            try authenticator.register(challenge: options.challenge.bytes),
            now: now.addingTimeInterval(60))
        for (offset, accepted) in [(60.0, true), (60.001, false), (-0.001, false), (0, true)] {
            let request = try await service.beginAuthentication(now: now).options
            let report = try await service.finishAuthenticationReport(
                try authenticator.authenticate(challenge: request.challenge.bytes), now: now.addingTimeInterval(offset))
            #expect(report.result.failureCategory == (accepted ? nil : .challenge), "at +\(offset) s")
        }
    }

    @Test("username-first login (§7.2 step 6, first branch): only the identified user's credential logs in")
    func usernameFirst() async throws {
        let service = service()
        var authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        _ = try await service.finishRegistration(try authenticator.register(challenge: options.challenge.bytes), now: now)
        // Another user, with no credential: allowCredentials is empty, yet user-a's credential must not answer.
        let forB = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-b".utf8)), now: now).options
        #expect(forB.allowCredentials?.isEmpty == true)
        let asB = try await service.finishAuthenticationReport(try authenticator.authenticate(challenge: forB.challenge.bytes), now: now)
        #expect(asB.result.failureCategory == .unknownCredential)
        // The identified user, without a user handle in the response (allowed in the first branch).
        authenticator.returnsUserHandle = false
        let forA = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-a".utf8)), now: now).options
        _ = try await service.finishAuthentication(try authenticator.authenticate(challenge: forA.challenge.bytes), now: now)
    }

    @Test("the options' timeout is the lifetime in milliseconds, clamped, for any lifetime")
    func timeoutClamps() {
        let cases: [(TimeInterval, UInt32)] = [
            (300, 300_000), (0.0015, 1), (0, 0), (-5, 0), (.nan, 0), (.infinity, .max),
            (-.infinity, 0), (1e300, .max), (4_294_967.295, 4_294_967_295),
        ]
        for (lifetime, expected) in cases {
            #expect(VerificationPolicy(challengeLifetime: lifetime).challengeTimeoutMilliseconds == expected, "\(lifetime)")
        }
    }

    @Test("the requested conveyance is remembered: none answering direct is refused only when the policy says so")
    func conveyance() async throws {
        let strict = service(
            VerificationPolicy(attestation: AttestationPolicy(unattested: .rejectedWhenRequested)))
        let authenticator = try TestAuthenticator()
        let direct = try await strict.beginRegistration(RegistrationRequest(user: user, attestation: .direct), now: now).options
        let report = try await strict.finishRegistrationReport(try authenticator.register(challenge: direct.challenge.bytes), now: now)
        #expect(report.result.failureCategory == .trust)

        let relaxed = service()
        let asked = try await relaxed.beginRegistration(RegistrationRequest(user: user, attestation: .direct), now: now).options
        let verified = try await relaxed.finishRegistration(try authenticator.register(challenge: asked.challenge.bytes), now: now)
        #expect(verified.attestation.type == .none)
        #expect(verified.attestation.trusted == false)
    }
}

extension Result where Failure == WebAuthnError {
    var failureCategory: WebAuthnError.Category? {
        if case .failure(let error) = self { return error.category }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// The signCount field of authenticator data bytes (offset 33, big-endian).
    var signCountForTest: UInt32 {
        guard count >= 37 else { return 0 }
        return self[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
