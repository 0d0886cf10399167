import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The finish entry points that take the request body, the verdict-only finishes, and
/// the service's key cache.
@Suite("RelyingPartyService JSON entry points and caches")
struct JSONEntryPointTests {
    let now = CeremonyFixture.now

    func challenge(_ byte: UInt8, kind: CeremonyKind = .authentication) -> IssuedChallenge {
        IssuedChallenge(
            challenge: Array(repeating: byte, count: 32), kind: kind, rpId: "example.org",
            userHandle: kind == .registration ? Array("user-a".utf8) : nil,
            offeredAlgorithms: kind == .registration ? [.es256] : [],
            expiresAt: now.addingTimeInterval(300))
    }

    @Test("finishAuthentication(jsonData:) verifies a login from the request body and stores the record")
    func loginFromBody() async throws {
        var authenticator = try TestAuthenticator(key: .es256)
        let service = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        for round in UInt8(1)...3 {
            try await service.issue(challenge(round), now: now)
            let body = try TestAuthenticator.json(try authenticator.authenticate(challenge: challenge(round).challenge)).jsonData()
            let login = try await service.finishAuthentication(AuthenticationResponse(jsonData: body), now: now)
            #expect(login.updatedRecord.signCount == UInt32(round))
            #expect(try await service.credentials.credential(id: authenticator.credentialId)?.signCount == UInt32(round))
        }
    }

    @Test("a body that is not a response is malformed; a replayed body finds no challenge")
    func rejectedBodies() async throws {
        var authenticator = try TestAuthenticator(key: .es256)
        let service = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        await #expect { try await service.finishAuthentication(AuthenticationResponse(jsonData: Data("{}".utf8)), now: now) } throws: {
            error in
            (error as? WebAuthnError)?.category == .malformed
        }
        try await service.issue(challenge(9), now: now)
        let body = try TestAuthenticator.json(try authenticator.authenticate(challenge: challenge(9).challenge)).jsonData()
        _ = try await service.finishAuthentication(AuthenticationResponse(jsonData: body), now: now)
        await #expect { try await service.finishAuthentication(AuthenticationResponse(jsonData: body), now: now) } throws: { error in
            (error as? WebAuthnError)?.category == .challenge && (error as? WebAuthnError)?.step == "consume"
        }
    }

    @Test("a verdict-only finish names the failing step, as the report does")
    func verdictOnlyErrorsNameTheirStep() async throws {
        var authenticator = try TestAuthenticator(key: .es256)
        authenticator.origin = "https://evil.example"
        let service = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        try await service.issue(challenge(4), now: now)
        let response = try authenticator.authenticate(challenge: challenge(4).challenge)
        await #expect { try await service.finishAuthentication(response, now: now) } throws: { error in
            (error as? WebAuthnError)?.category == .origin && (error as? WebAuthnError)?.step == "§7.2 step 12"
        }
        try await service.issue(challenge(5), now: now)
        let report = try await service.finishAuthenticationReport(
            try authenticator.authenticate(challenge: challenge(5).challenge), now: now)
        #expect(report.trace.steps.count > 5)
        guard case .failure(let error) = report.result else { Issue.record("expected a rejection"); return }
        #expect(error.category == .origin && error.step == "§7.2 step 12")
    }

    @Test("finishRegistration(jsonData:) registers from the request body")
    func registrationFromBody() async throws {
        let authenticator = try TestAuthenticator(key: .es256)
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        try await service.issue(challenge(7, kind: .registration), now: now)
        let body = try TestAuthenticator.json(try authenticator.register(challenge: challenge(7).challenge)).jsonData()
        let registered = try await service.finishRegistration(RegistrationResponse(jsonData: body), now: now)
        #expect(registered.record.id == authenticator.credentialId)
        #expect(try await service.credentials.credential(id: authenticator.credentialId) != nil)
    }

    @Test("a cached key is never used for a record whose key bytes changed under the same credential id")
    func keyCacheFollowsTheRecord() async throws {
        var first = try TestAuthenticator(key: .es256)
        var second = try TestAuthenticator(key: .es256)  // same credential id, another key
        #expect(first.credentialId == second.credentialId && first.coseKey != second.coseKey)
        let store = InMemoryCredentialStore(records: [first.record()])
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, credentials: store)
        try await service.issue(challenge(1), now: now)
        _ = try await service.finishAuthentication(try first.authenticate(challenge: challenge(1).challenge), now: now)
        // The record now holds the second key: a login signed by the first key must fail,
        // and one signed by the second must pass. (Its counter is the stored one: an update
        // swaps only from the stored one.)
        var replaced = second.record()
        replaced.signCount = 1
        #expect(try await store.update(CredentialUpdate(expectedSignCount: 1, record: replaced)))
        try await service.issue(challenge(2), now: now)
        first.signCount = 10
        await #expect {
            try await service.finishAuthentication(try first.authenticate(challenge: challenge(2).challenge), now: now)
        } throws: { error in (error as? WebAuthnError)?.category == .signature }
        try await service.issue(challenge(3), now: now)
        second.signCount = 10
        _ = try await service.finishAuthentication(try second.authenticate(challenge: challenge(3).challenge), now: now)
    }

    @Test("verifiers a server builds itself share one VerificationCache, and a changed key under the same id is still noticed")
    func sharedVerificationCache() throws {
        var first = try TestAuthenticator(key: .es256)
        var second = try TestAuthenticator(key: .es256)  // same credential id, another key
        let cache = VerificationCache(credentialKeyCapacity: 8)
        let policy = VerificationPolicy()
        let verifier = { AuthenticationVerifier(relyingParty: CeremonyFixture.relyingParty, policy: policy, cache: cache) }
        let login = try verifier().verify(
            try first.authenticate(challenge: challenge(1).challenge), issued: challenge(1),
            record: first.record(), now: now)
        #expect(login.updatedRecord.signCount == 1)
        #expect(cache.keys.key(for: first.record()) != nil, "the first login left its key in the shared cache")
        // A second verifier with the same cache, and a record whose key changed: the first key's
        // signature must fail, the second's must pass.
        first.signCount = 5
        #expect(throws: WebAuthnError(.signature, "")) {
            _ = try verifier().verify(
                try first.authenticate(challenge: challenge(2).challenge), issued: challenge(2),
                record: second.record(), now: now)
        }
        second.signCount = 5
        _ = try verifier().verify(
            try second.authenticate(challenge: challenge(3).challenge), issued: challenge(3),
            record: second.record(), now: now)
    }

    @Test("a cached attestation certificate is the same certificate parsed again")
    func certificateCache() throws {
        let ca = try TestAuthenticator.CA.make()
        let cache = CertificateCache(capacity: 2)
        let der = ca.certificate.derBytes
        let first = try cache.certificate(derEncoded: der[...])
        let second = try cache.certificate(derEncoded: der[...])
        #expect(first.derBytes == der && second.derBytes == der)
        #expect(throws: CryptoError.self) { _ = try cache.certificate(derEncoded: (der + [0])[...]) }
        #expect(throws: CryptoError.self) { _ = try cache.certificate(derEncoded: [0x30, 0x00][...]) }
    }
}
