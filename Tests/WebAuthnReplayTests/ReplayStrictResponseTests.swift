import Foundation
import Testing
import WebAuthnReplay

@testable import WebAuthnRP

/// A recorded response is held to the reader a server's body goes through: a member given
/// twice (JSONDecoder would keep one silently) is `malformed`, as it is for a server.
@Suite("Replay: responses are read strictly")
struct ReplayStrictResponseTests: ReplaysOneDocument {
    /// A real Chromium recording: a registration and a login, both accepted.
    static func recording() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/recorded/chromium/extensions-credblob-minpin-credprotect.json")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// `text` with `insertion` put before the first occurrence of `anchor`.
    static func inserting(_ insertion: String, before anchor: String, in text: String) throws -> String {
        let range = try #require(text.range(of: anchor))
        return text.replacingCharacters(in: range.lowerBound..<range.lowerBound, with: insertion)
    }

    @Test("the recording as it is: both ceremonies accepted")
    func unchanged() async throws {
        let (report, _) = try await replay(text: try Self.recording())
        #expect(report.results.map(\.actual) == ["accept", "accept"])
    }

    @Test(
        "a member given twice in a response, however its name is written, is malformed",
        arguments: [
            #""clientExtensionResults": {"credBlob": false}, "#,
            #""r\u0061wId": "AAAA", "#,
            #""type": "public-key", "#,
        ])
    func duplicateMember(_ member: String) async throws {
        let text = try Self.inserting(member, before: #""clientExtensionResults": {"#, in: try Self.recording())
        let (report, _) = try await replay(text: text)
        let first = try #require(report.results.first)
        #expect(first.actual == "reject(malformed)")
        #expect(first.error?.message.contains("duplicate") == true)
    }

    @Test("a ceremony that gives its response twice is malformed")
    func responseTwice() async throws {
        let original = try Self.recording()
        // The first ceremony's whole response object, written again before itself.
        let start = try #require(original.range(of: #""response": {"#))
        let fixture = try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any]
        let ceremonies = try #require(fixture?["ceremonies"] as? [[String: Any]])
        let response = try JSONSerialization.data(withJSONObject: try #require(ceremonies.first?["response"]))
        let text = original.replacingCharacters(
            in: start.lowerBound..<start.lowerBound,
            with: #""response": "# + String(decoding: response, as: UTF8.self) + ", ")
        let (report, _) = try await replay(text: text)
        let first = try #require(report.results.first)
        #expect(first.actual == "reject(malformed)")
        #expect(first.error?.message.contains("given 2 times") == true)
    }
}
