import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// App Attest challenges on the shared ``ChallengeTransport``: issued by the service, used up by
/// the verification that answers them (once, within their lifetime), and never crossing over to
/// or from a passkey ceremony, stored or sealed.
@Suite("App Attest challenges")
struct AppAttestChallengeTests {
    typealias T = AppAttestVerifierTests
    static let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    enum Mode: String, CaseIterable, CustomStringConvertible {
        case stored, sealed
        var description: String { rawValue }

        func transport() throws -> ChallengeTransport {
            switch self {
            case .stored: return .stored(InMemoryChallengeStore())
            case .sealed: return .sealed(try SealedChallengeKey.generate(), replayStore: InMemorySealedChallengeReplayStore())
            }
        }
    }

    static func service(_ transport: ChallengeTransport, app: AppleApp = T.app) -> AppAttestService {
        AppAttestService(
            app: app, environment: .production, trustAnchors: [T.authority.root.certificate], challenges: transport,
            challengeLifetime: 60)
    }

    static func category(_ body: () async throws -> Void) async -> WebAuthnError.Category? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? WebAuthnError)?.category
        }
    }

    @Test("an issued challenge admits one attestation; used again, even after a refusal, it is challenge", arguments: Mode.allCases)
    func singleUse(_ mode: Mode) async throws {
        let service = Self.service(try mode.transport())
        let issued = try await service.issueChallenge(now: T.now)
        #expect(issued.expiresAt == T.now.addingTimeInterval(60))
        let phone = try T.device("challenge phone")
        let verified = try await service.verifyAttestation(
            keyId: phone.keyId, attestation: try phone.attest(challenge: Array(issued.challenge.utf8)), challenge: issued.challenge,
            now: T.now)
        #expect(try await service.keys.key(id: phone.keyId) == verified.key)
        let second = try T.device("second challenge phone")
        let again = try phone.attest(challenge: Array(issued.challenge.utf8))
        #expect(
            await Self.category {
                _ = try await service.verifyAttestation(keyId: second.keyId, attestation: again, challenge: issued.challenge, now: T.now)
            } == .challenge)
        #expect(try await service.keys.key(id: second.keyId) == nil)

        // A refused attestation uses its challenge up too.
        let refused = try await service.issueChallenge(now: T.now)
        var options = TestAppAttestDevice.AttestationOptions()
        options.signCount = 3
        let bad = try second.attest(challenge: Array(refused.challenge.utf8), options)
        #expect(
            await Self.category {
                _ = try await service.verifyAttestation(keyId: second.keyId, attestation: bad, challenge: refused.challenge, now: T.now)
            } == .attestation)
        let good = try second.attest(challenge: Array(refused.challenge.utf8))
        #expect(
            await Self.category {
                _ = try await service.verifyAttestation(keyId: second.keyId, attestation: good, challenge: refused.challenge, now: T.now)
            } == .challenge)
    }

    @Test("a challenge answers through its expiry instant, not after it, and not before it was issued", arguments: Mode.allCases)
    func expiry(_ mode: Mode) async throws {
        let service = Self.service(try mode.transport())
        let phone = try T.device("expiry phone")
        let late = try await service.issueChallenge(now: T.now)
        #expect(
            await Self.category {
                _ = try await service.verifyAttestation(
                    keyId: phone.keyId, attestation: try phone.attest(challenge: Array(late.challenge.utf8)), challenge: late.challenge,
                    now: late.expiresAt.addingTimeInterval(0.001))
            } == .challenge)
        let early = try await service.issueChallenge(now: T.now)
        #expect(
            await Self.category {
                _ = try await service.verifyAttestation(
                    keyId: phone.keyId, attestation: try phone.attest(challenge: Array(early.challenge.utf8)), challenge: early.challenge,
                    now: T.now.addingTimeInterval(-1))
            } == .challenge)
        #expect(try await service.keys.key(id: phone.keyId) == nil)
        let onTime = try await service.issueChallenge(now: T.now)
        _ = try await service.verifyAttestation(
            keyId: phone.keyId, attestation: try phone.attest(challenge: Array(onTime.challenge.utf8)), challenge: onTime.challenge,
            now: onTime.expiresAt)
    }

    @Test("an assertion answers a challenge once, and its client data must contain it", arguments: Mode.allCases)
    func assertion(_ mode: Mode) async throws {
        let service = Self.service(try mode.transport())
        var phone = try T.device("assertion phone")
        let attested = try await service.issueChallenge(now: T.now)
        _ = try await service.verifyAttestation(
            keyId: phone.keyId, attestation: try phone.attest(challenge: Array(attested.challenge.utf8)), challenge: attested.challenge,
            now: T.now)
        let issued = try await service.issueChallenge(now: T.now)
        let clientData = Array("app-attest-request/1\nPOST\n/v1/orders\nchallenge=\(issued.challenge)".utf8)
        let verified = try await service.verifyAssertion(
            keyId: phone.keyId, assertion: try phone.assert(clientData: clientData), clientData: clientData, challenge: issued.challenge,
            now: T.now)
        #expect(verified.updatedKey.signCount == 1)
        let replayed = try phone.assert(clientData: clientData)
        #expect(
            await Self.category {
                _ = try await service.verifyAssertion(
                    keyId: phone.keyId, assertion: replayed, clientData: clientData, challenge: issued.challenge, now: T.now)
            } == .challenge)
        // A fresh challenge the signed client data (longer than the challenge) does not carry.
        let fresh = try await service.issueChallenge(now: T.now)
        let other = Array("app-attest-request/1\nPOST\n/v1/orders\nchallenge=\(String(repeating: "x", count: 600))".utf8)
        #expect(
            await Self.category {
                _ = try await service.verifyAssertion(
                    keyId: phone.keyId, assertion: try phone.assert(clientData: other), clientData: other, challenge: fresh.challenge,
                    now: T.now)
            } == .challenge)
        #expect(try await service.keys.key(id: phone.keyId)?.signCount == 1)
    }

    @Test("the challenge search finds the text anywhere, after partial matches too, and nowhere else")
    func search() {
        func contains(_ haystack: String, _ needle: String) -> Bool {
            AppAttestClientDataCheck.contains(Array(haystack.utf8), Array(needle.utf8))
        }
        #expect(contains("aabaaab", "aaab") && contains("abcabd", "abd") && contains("xyz", "xyz"))
        #expect(contains("challenge=Zm9v", "Zm9v") && contains("Zm9v\nPOST", "Zm9v") && contains("aaaa", "a"))
        #expect(!contains("aabaab", "aaab") && !contains("xy", "xyz") && !contains("abc", "") && !contains("", "a"))
        #expect(!contains(String(repeating: "a", count: 10_000), String(repeating: "a", count: 500) + "b"))
    }

    @Test("a challenge issued for another app is challenge")
    func otherApp() async throws {
        let transport = try Mode.stored.transport()
        let other = Self.service(transport, app: AppleApp(teamId: "0352187391", bundleId: "com.example.other"))
        let issued = try await other.issueChallenge(now: T.now)
        let phone = try T.device("other app phone")
        #expect(
            await Self.category {
                _ = try await Self.service(transport).verifyAttestation(
                    keyId: phone.keyId, attestation: try phone.attest(challenge: Array(issued.challenge.utf8)), challenge: issued.challenge,
                    now: T.now)
            } == .challenge)
    }

    @Test("a passkey ceremony's challenge is refused by App Attest without being used up", arguments: Mode.allCases)
    func passkeyChallengeRefused(_ mode: Mode) async throws {
        let transport = try mode.transport()
        let passkeys = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, challenges: transport)
        let appAttest = Self.service(transport)
        let start = try await passkeys.beginRegistration(RegistrationRequest(user: Self.user), now: T.now)
        let text: String
        switch start.challenge.source {
        case .sealed(let token): text = token
        default: text = start.options.challenge.base64URL
        }
        let phone = try T.device("passkey challenge phone")
        #expect(
            await Self.category {
                _ = try await appAttest.verifyAttestation(
                    keyId: phone.keyId, attestation: try phone.attest(challenge: Array(text.utf8)), challenge: text, now: T.now)
            } == .challenge)
        // The registration it belongs to still finishes.
        let authenticator = try TestAuthenticator(key: .es256)
        let created = try TestAuthenticator.json(try authenticator.register(challenge: start.options.challenge.bytes)).jsonData()
        _ = try await passkeys.finishRegistration(RegistrationResponse(jsonData: created), challenge: start.challenge, now: T.now)
    }

    @Test("an App Attest challenge is refused by a passkey finish", arguments: Mode.allCases)
    func appAttestChallengeRefusedByPasskeys(_ mode: Mode) async throws {
        let key = try SealedChallengeKey.generate()
        let transport: ChallengeTransport =
            mode == .stored ? .stored(InMemoryChallengeStore()) : .sealed(key, replayStore: InMemorySealedChallengeReplayStore())
        let passkeys = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, challenges: transport)
        let issued = try await Self.service(transport).issueChallenge(now: T.now)
        // The client data names the challenge: the stored form's bytes, or the bytes sealed in the token.
        let bytes = mode == .stored ? try Base64URL.decode(issued.challenge) : try key.open(issued.challenge, now: T.now).challenge
        let given: CeremonyChallenge = mode == .stored ? .fromClientData : .sealed(issued.challenge)
        let authenticator = try TestAuthenticator(key: .es256)
        let created = try TestAuthenticator.json(try authenticator.register(challenge: bytes)).jsonData()
        let report = try await passkeys.finishRegistrationReport(RegistrationResponse(jsonData: created), challenge: given, now: T.now)
        guard case .failure(let error) = report.result else {
            Issue.record("an App Attest challenge finished a registration")
            return
        }
        #expect(error.category == .challenge)
        #expect(try await passkeys.credentials.credential(id: authenticator.credentialId) == nil)
    }
}
