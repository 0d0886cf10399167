import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SoftwarePasskey
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// A ceremony's last write is the server's own (`commit:` of the library's `finish…`): the
/// counter's compare and swap and the sign-in it starts are one write, so of two logins of one
/// passkey at once exactly one signs in, and the one that lost the race leaves no session or
/// token family behind.
@Suite struct CeremonyWriteTests {
    /// The server with every login's write delayed (as the end-to-end node's), so two logins
    /// verified against the same stored counter both reach their write.
    static func racingApp() async throws -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await buildApplication(
            AppTests.config(), logger: logger, testing: TestingOptions(updateDelay: .milliseconds(300)))
    }

    /// Two logins of `passkey` at once through `verify`: the statuses, and the winner's client.
    static func race(
        _ passkey: inout SoftwarePasskey, username: String, verify: String, client: any TestClientProtocol
    ) async throws -> (statuses: [UInt], winner: Client?) {
        var first = Client(client), second = Client(client)
        var assertions: [Data] = []
        for index in 0..<2 {
            var browser = index == 0 ? first : second
            let options = try await browser.send("/api/login/options", method: .post, json: #"{"username":"\#(username)"}"#)
            assertions.append(try passkey.assert(challenge: challenge(in: Data(options.body.readableBytesView)) ?? ""))
            if index == 0 { first = browser } else { second = browser }
        }
        let (one, two) = (first, second)
        async let a = Self.send(one, verify, assertions[0])
        async let b = Self.send(two, verify, assertions[1])
        let results = try await [a, b]
        return (results.map(\.status).sorted(), results.first { $0.status == 200 }?.client)
    }

    static func send(_ client: Client, _ uri: String, _ body: Data) async throws -> (status: UInt, client: Client) {
        var client = client
        let response = try await client.send(uri, method: .post, json: String(decoding: body, as: UTF8.self))
        return (UInt(response.status.code), client)
    }

    @Test func ofTwoLoginsAtOnceOneSignsInAndTheOtherLeavesNoSession() async throws {
        try await Self.racingApp().test(.router) { client in
            var owner = Client(client)
            var passkey = try await owner.register("racer")  // the registration's session
            let (statuses, winner) = try await Self.race(&passkey, username: "racer", verify: "/api/login/verify", client: client)
            #expect(statuses == [200, 401])
            var signedIn = try #require(winner)
            // The registration's session and the winner's: the loser's session was never written.
            let ended = try await signedIn.send("/api/logout-all", method: .post, json: "{}")
            #expect(try AppTests.object(ended)["sessionsEnded"] as? Int == 2)
        }
    }

    @Test func ofTwoTokenLoginsAtOnceOneGetsTokensAndTheOtherLeavesNoFamily() async throws {
        try await Self.racingApp().test(.router) { client in
            var owner = Client(client)
            var passkey = try await owner.register("tokenracer")
            let (statuses, _) = try await Self.race(&passkey, username: "tokenracer", verify: "/api/token/login/verify", client: client)
            #expect(statuses == [200, 401])
            // The registration's session and the winner's token family: no family of the loser.
            let ended = try await owner.send("/api/logout-all", method: .post, json: "{}")
            #expect(try AppTests.object(ended)["sessionsEnded"] as? Int == 2)
        }
    }
}
