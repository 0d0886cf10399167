import Foundation
import WebAuthnRP

// What a server's own code runs around the verifier on every login with sealed challenges:
// the options (a fresh challenge sealed into a token, written as JSON) and opening the token the
// client sends back. No signature here; the `assertion.*` cases measure the verification.

/// `ceremony.begin.sealed`: begin a discoverable login with sealed challenges and write its
/// options as the JSON the client receives.
final class SealedBeginCase: BenchCase {
    let name = "ceremony.begin.sealed"
    let operationsPerRound = 20_000
    let service: RelyingPartyService

    init() throws {
        service = RelyingPartyService(
            relyingParty: BenchCases.relyingParty,
            challenges: .sealed(try SealedChallengeKey(Array(repeating: 7, count: 32)), replayStore: InMemorySealedChallengeReplayStore()))
    }

    func run(operations: Int) async throws {
        var total = 0
        for _ in 0..<operations {
            let start = try await service.beginAuthentication(AuthenticationRequest(), now: BenchCases.now)
            total &+= try start.options.jsonData().count
        }
        guard total >= operations &* 100 else { throw BenchFailure("\(name): the options are too short") }
    }
}

/// `ceremony.open.sealed`: open the token a sealed begin handed out (the finish's first step).
final class SealedOpenCase: BenchCase {
    let name = "ceremony.open.sealed"
    let operationsPerRound = 20_000
    let key: SealedChallengeKey
    let token: String

    init() throws {
        key = try SealedChallengeKey(Array(repeating: 7, count: 32))
        token = try key.seal(
            IssuedChallenge(
                challenge: Array(repeating: 1, count: 32), kind: .authentication, rpId: "example.org",
                issuedAt: BenchCases.now, expiresAt: BenchCases.now.addingTimeInterval(300)))
    }

    func run(operations: Int) async throws {
        var total = 0
        for _ in 0..<operations { total &+= try key.open(token, now: BenchCases.now).challenge.count }
        guard total == operations &* 32 else { throw BenchFailure("\(name): opened the wrong challenge") }
    }
}
