import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoftwarePasskey
import Testing

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// Issue 41's smaller server items in process: `nosniff` on every answer, a body that stops short
/// is 400 (413 stays for one that is too large), a passkey ceremony's challenge presented as an
/// App Attest challenge is not used up, and look-alike usernames.
@Suite struct HardeningTests {
    @Test func everyAnswerSaysNosniff() async throws {
        try await AppTests.app().test(.router) { client in
            let answers = [
                try await client.execute(uri: "/healthz", method: .get),
                try await client.execute(uri: "/nothing-here", method: .get),
                try await client.execute(uri: "/api/me", method: .get),
                try await client.execute(
                    uri: "/api/login/options", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: "[")),
                try await client.execute(
                    uri: "/api/login/options", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "{}")),
                try await TokenTests.form(client, "/oauth/token", "grant_type=password"),
            ]
            #expect(Set(answers.map(\.status.code)) == [200, 404, 401, 400, 415])
            for answer in answers {
                #expect(
                    answer.headers[ResponseHeadersMiddleware<PasskeyRequestContext>.contentTypeOptions] == "nosniff", "\(answer.status)")
            }
        }
    }

    /// A request whose body yields `parts` and then fails (the connection ended before the body did).
    static func request(_ parts: [String], failing: Bool, contentLength: Int? = nil) -> Request {
        struct Ended: Error {}
        let stream = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
            for part in parts { continuation.yield(ByteBuffer(string: part)) }
            continuation.finish(throwing: failing ? Ended() : nil)
        }
        var head = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/api/login/options")
        head.headerFields[.contentType] = "application/json"
        if let contentLength { head.headerFields[.contentLength] = String(contentLength) }
        return Request(head: head, body: RequestBody(asyncSequence: stream))
    }

    static func status(_ request: Request, limit: Int) async -> HTTPResponse.Status? {
        do {
            _ = try await request.collectBody(limit: limit)
            return .ok
        } catch let error as AppError {
            return error.status
        } catch {
            return nil
        }
    }

    @Test func aBodyThatEndsEarlyIs400NotTooLarge() async throws {
        #expect(await Self.status(Self.request(["{\"user"], failing: true, contentLength: 100), limit: 4_096) == .badRequest)
        #expect(await Self.status(Self.request([], failing: true), limit: 4_096) == .badRequest)
        // Too large, by its Content-Length or by what arrives: 413.
        #expect(await Self.status(Self.request(["{}"], failing: false, contentLength: 5_000), limit: 4_096) == .contentTooLarge)
        #expect(
            await Self.status(
                Self.request([String(repeating: "a", count: 3_000), String(repeating: "b", count: 3_000)], failing: false), limit: 4_096)
                == .contentTooLarge)
        #expect(await Self.status(Self.request(["{}"], failing: false), limit: 4_096) == .ok)
    }

    @Test func aPasskeyChallengeIsNotUsedUpAsAnAppAttestChallenge() async throws {
        let authority = try SoftwareAppAttestDevice.Authority()
        try await AppTests.app(try AppAttestTests.config(.required, authority: authority)).test(.router) { client in
            var browser = Client(client)
            var passkey = try await browser.register("zara")
            try await browser.logout()
            let options = try await browser.send("/api/login/options", method: .post, json: #"{"username":"zara"}"#)
            let passkeyChallenge = try #require(challenge(in: Data(options.body.readableBytesView)))
            // Presented as an App Attest challenge: refused as one, before the store is asked.
            var headers: HTTPFields = [
                .contentType: "application/x-www-form-urlencoded",
                HTTPField.Name(AppAttest.Header.keyId)!: Data(repeating: 1, count: 32).base64EncodedString(),
                HTTPField.Name(AppAttest.Header.assertion)!: "AAAA", HTTPField.Name(AppAttest.Header.challenge)!: passkeyChallenge,
            ]
            let refused = try await client.execute(
                uri: "/oauth/token", method: .post, headers: headers, body: ByteBuffer(string: "grant_type=refresh_token"))
            #expect(refused.status == .unauthorized && AppAttestTests.code(refused) == "challenge")
            // The passkey login it belongs to still finishes.
            let assertion = try passkey.assert(challenge: passkeyChallenge)
            let verified = try await browser.send("/api/login/verify", method: .post, json: String(decoding: assertion, as: UTF8.self))
            #expect(verified.status == .ok)
            // And an App Attest challenge still counts once.
            headers[HTTPField.Name(AppAttest.Header.challenge)!] = try await AppAttestTests.challenge(client)
            let once = try await client.execute(
                uri: "/oauth/token", method: .post, headers: headers, body: ByteBuffer(string: "grant_type=refresh_token"))
            #expect(once.status == .unauthorized && AppAttestTests.code(once) == "unknown-key")
            let twice = try await client.execute(
                uri: "/oauth/token", method: .post, headers: headers, body: ByteBuffer(string: "grant_type=refresh_token"))
            #expect(twice.status == .unauthorized && AppAttestTests.code(twice) == "challenge")
        }
    }

    @Test func lookAlikeUsernames() async throws {
        // One script per name (or Latin with Han and kana, …); NFKC folds fullwidth and compatibility forms.
        for name in ["alice", "Zoë", "алиса", "Ελένη", "山田たろう", "taro山田", "김민준", "user_1.2-3", "q\u{307}"] {
            #expect(throws: Never.self, "\(name)") { _ = try Username(name) }
        }
        for name in ["\u{430}lice", "p\u{430}ypal", "alic\u{3B5}", "alice\u{FE0F}", "ali\u{200D}ce", "\u{430}\u{3B1}", "e\u{301}\u{483}"] {
            #expect(throws: AppError.self, "\(name.unicodeScalars.map { String($0.value, radix: 16) })") { _ = try Username(name) }
        }
        #expect(try Username("ａｌｉｃｅ").key == Username("alice").key)
        #expect(try Username("ａｌｉｃｅ").display == "alice")
        #expect(try Username("ALICE").key == Username("alice").key)

        try await AppTests.app().test(.router) { client in
            var browser = Client(client)
            _ = try await browser.register("casey")
            for (name, status) in [("ｃａｓｅｙ", 409), ("CASEY", 409), ("c\u{430}sey", 400), ("кейси", 200)] {
                var visitor = Client(client)
                let answer = try await visitor.send("/api/register/options", method: .post, json: #"{"username":"\#(name)"}"#)
                #expect(answer.status.code == status, "\(name)")
            }
            // A lookup folds the same way: the fullwidth name finds casey's account.
            var visitor = Client(client)
            let login = try await visitor.send("/api/login/options", method: .post, json: #"{"username":"ｃａｓｅｙ"}"#)
            #expect(((try AppTests.object(login))["allowCredentials"] as? [Any])?.count == 1)
        }
    }
}
