import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnRP
@testable import WebAuthnReplay

/// The members that say when and for whom a challenge was issued: `issuedAt`,
/// `receivedAt`, `policy.challengeLifetime` and `user`, and a challenge answered by the
/// other ceremony's response. The responses are the deliberately broken ones of
/// ``FixtureJSON``: the verdicts here are reached before any signature (the signed
/// ceremonies are in `Fixtures/`), so a broken response that gets past the challenge
/// check shows up as its own later rejection.
@Suite("Replay: issuedAt, receivedAt, challengeLifetime, user, ceremony kind")
struct ReplayIssuedMembersTests: ReplaysOneDocument {
    typealias J = FixtureJSON
    static let t = "2025-06-01T00:00:00Z"

    /// A document whose policy has the fixed clock plus `policy`.
    static func document(
        _ ceremonies: [[String: Any]], policy: [String: Any] = [:],
        extra: [String: Any] = [:]
    ) -> [String: Any] {
        var merged: [String: Any] = ["verificationTime": t]
        for (key, value) in policy { merged[key] = value }
        var doc = J.document(ceremonies, extra: extra)
        doc["policy"] = merged
        return doc
    }

    /// A broken registration stamped with times, expecting `expect`.
    static func registration(
        _ name: String, issuedAt: String? = nil, receivedAt: String? = nil,
        expect: String
    ) -> [String: Any] {
        var ceremony = J.registration(name, challenge: Base64URL.encode(Array(name.utf8)), expect: J.reject(expect))
        ceremony["issuedAt"] = issuedAt
        ceremony["receivedAt"] = receivedAt
        return ceremony
    }

    /// Every ceremony met its expectation; otherwise the actual verdicts are reported.
    func expectAllPassed(_ report: ReplayReport, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report.fixtureErrors.isEmpty, "\(report.fixtureErrors)", sourceLocation: sourceLocation)
        #expect(report.exitCode == 0, "\(report.results.map { "\($0.name): \($0.actual)" })", sourceLocation: sourceLocation)
    }

    // MARK: issuedAt, receivedAt, challengeLifetime

    @Test("a response more than challengeLifetime after issuedAt is challenge; at the limit it gets past the check")
    func lifetime() async throws {
        let (report, _) = try await replay(
            Self.document(
                [
                    Self.registration("within", issuedAt: "2025-05-31T23:59:30Z", expect: "malformed"),
                    Self.registration("at-limit", issuedAt: Self.t, receivedAt: "2025-06-01T00:01:00Z", expect: "malformed"),
                    Self.registration("1ms-late", issuedAt: Self.t, receivedAt: "2025-06-01T00:01:00.001Z", expect: "challenge"),
                    Self.registration("issued-earlier-late", issuedAt: "2025-05-31T23:58:59.999Z", expect: "challenge"),
                ], policy: ["challengeLifetime": 60]))
        expectAllPassed(report)
        #expect(report.results.filter { $0.actual == "reject(challenge)" }.allSatisfy { $0.error?.step == "pending" })
        #expect(report.results.last?.error?.message.contains("expired") == true)
    }

    @Test("without challengeLifetime the lifetime is 300 s; without issuedAt and receivedAt both are verificationTime")
    func defaults() async throws {
        let (report, _) = try await replay(
            Self.document([
                Self.registration("no-times", expect: "malformed"),
                Self.registration("300s", issuedAt: "2025-05-31T23:55:00Z", expect: "malformed"),
                Self.registration("300.001s", issuedAt: "2025-05-31T23:54:59.999Z", expect: "challenge"),
                Self.registration("received-only", receivedAt: "2025-06-01T00:05:00Z", expect: "malformed"),
                Self.registration("received-only-late", receivedAt: "2025-06-01T00:05:01Z", expect: "challenge"),
            ]))
        expectAllPassed(report)
    }

    @Test("a lifetime of 0 accepts only a response verified at the instant of issue; fractions of seconds count")
    func zeroAndFractionalLifetime() async throws {
        let (zero, _) = try await replay(
            Self.document(
                [
                    Self.registration("same-instant", issuedAt: Self.t, receivedAt: Self.t, expect: "malformed"),
                    Self.registration("1ms-later", issuedAt: Self.t, receivedAt: "2025-06-01T00:00:00.001Z", expect: "challenge"),
                ], policy: ["challengeLifetime": 0]))
        expectAllPassed(zero)
        let (half, _) = try await replay(
            Self.document(
                [
                    Self.registration("0.5s", issuedAt: Self.t, receivedAt: "2025-06-01T00:00:00.5Z", expect: "malformed"),
                    Self.registration("0.501s", issuedAt: Self.t, receivedAt: "2025-06-01T00:00:00.501Z", expect: "challenge"),
                ], policy: ["challengeLifetime": 0.5]))
        expectAllPassed(half)
    }

    @Test("a response received before its challenge was issued (a clock that went back) is challenge")
    func receivedBeforeIssued() async throws {
        let (report, _) = try await replay(
            Self.document([
                Self.registration("1ms-before", issuedAt: "2025-06-01T00:00:00.001Z", expect: "challenge"),
                Self.registration("an-hour-before", issuedAt: Self.t, receivedAt: "2025-05-31T23:00:00Z", expect: "challenge"),
                Self.registration("same-instant-other-zone", issuedAt: "2025-06-01T02:00:00+02:00", expect: "malformed"),
            ]))
        expectAllPassed(report)
        #expect(report.results.first?.error?.message.contains("clock went back") == true)
    }

    @Test("receivedAt is the verifier's clock for the ceremony, also when both times lie after verificationTime")
    func laterClock() async throws {
        let (report, _) = try await replay(
            Self.document([
                Self.registration(
                    "a-year-later", issuedAt: "2026-06-01T00:00:00Z", receivedAt: "2026-06-01T00:04:00Z",
                    expect: "malformed"),
                Self.registration("a-year-later-issued-only", issuedAt: "2026-06-01T00:00:00Z", expect: "challenge"),
            ]))
        expectAllPassed(report)
    }

    // MARK: The ceremony kind of a challenge

    @Test("a registration challenge answered by an assertion, and the reverse, are challenge at pending")
    func wrongKind() async throws {
        var registration = J.registration("reg-answered-by-assertion", expect: J.reject("challenge"))
        registration["response"] = J.unknownAssertion(challenge: J.challengeA)
        var authentication = J.authentication("login-answered-by-attestation", expect: J.reject("challenge"))
        authentication["response"] = J.brokenRegistration(challenge: J.challengeB)
        let (report, _) = try await replay(Self.document([registration, authentication]))
        expectAllPassed(report)
        #expect(report.results.map { $0.error?.step } == ["pending", "pending"])
        #expect(report.results.first?.error?.message.contains("issued for registration, not authentication") == true)
        #expect(report.results.last?.error?.message.contains("issued for authentication, not registration") == true)
    }

    @Test("the challenge answered by the other kind's response is consumed: replaying it with its own kind is challenge")
    func wrongKindConsumes() async throws {
        var crossed = J.registration("crossed", expect: J.reject("challenge"))
        crossed["response"] = J.unknownAssertion(challenge: J.challengeA)
        let (report, _) = try await replay(
            Self.document([
                crossed, J.registration("own-kind-after", issue: false, expect: J.reject("challenge")),
            ]))
        expectAllPassed(report)
        #expect(report.results.last?.error?.step == "consume")
    }

    @Test("a response that is neither kind's JSON is still malformed")
    func neitherKind() async throws {
        var response = J.unknownAssertion(challenge: J.challengeA)
        response["response"] = ["clientDataJSON": J.clientData()]
        var ceremony = J.registration("neither", expect: J.reject("malformed"))
        ceremony["response"] = response
        let (report, _) = try await replay(Self.document([ceremony]))
        expectAllPassed(report)
        #expect(report.results.first?.error?.message.contains("attestationObject") == true)
    }

    // MARK: user

    static let alice = Base64URL.encode(Array("alice".utf8))
    static let bob = Base64URL.encode(Array("bob".utf8))

    /// A file credential `AQID` owned by alice; its key never gets used (step 6 decides first).
    static var aliceCredential: [String: Any] { ["id": "AQID", "publicKey": "oA", "signCount": 0, "userHandle": alice] }

    static func login(_ name: String, user: String?, userHandle: String?, expect: String) -> [String: Any] {
        let challenge = Base64URL.encode(Array(name.utf8))
        var response = J.unknownAssertion(challenge: challenge)
        if let userHandle, var inner = response["response"] as? [String: Any] {
            inner["userHandle"] = userHandle
            response["response"] = inner
        }
        var ceremony = J.authentication(name, challenge: challenge, response: response, expect: J.reject(expect))
        ceremony["user"] = user
        return ceremony
    }

    @Test("user: another user's credential is unknownCredential; a userHandle that is not the user's is userHandle")
    func usernameFirst() async throws {
        let (report, _) = try await replay(
            Self.document(
                [
                    Self.login("bob-identified", user: Self.bob, userHandle: nil, expect: "unknownCredential"),
                    Self.login("bob-identified-alice-handle", user: Self.bob, userHandle: Self.alice, expect: "unknownCredential"),
                    Self.login("alice-identified-bob-handle", user: Self.alice, userHandle: Self.bob, expect: "userHandle"),
                ], extra: ["credentials": [Self.aliceCredential]]))
        expectAllPassed(report)
        #expect(report.results.map { $0.error?.step } == ["§7.2 step 6", "§7.2 step 6", "§7.2 step 6"])
        #expect(report.results.first?.error?.message.contains("does not belong to the identified user") == true)
    }

    @Test("user: without a userHandle, or with the user's own, the login gets past step 6; without user it would not")
    func usernameFirstPasses() async throws {
        let (report, _) = try await replay(
            Self.document(
                [
                    Self.login("alice-no-handle", user: Self.alice, userHandle: nil, expect: "malformed"),
                    Self.login("alice-own-handle", user: Self.alice, userHandle: Self.alice, expect: "malformed"),
                    Self.login("usernameless-no-handle", user: nil, userHandle: nil, expect: "userHandle"),
                ], extra: ["credentials": [Self.aliceCredential]]))
        expectAllPassed(report)
        let step6 = report.results.prefix(2).map { result in
            result.trace.steps.filter { $0.step == "§7.2 step 6" }.map { if case .passed = $0.outcome { true } else { false } }
        }
        #expect(step6 == [[true], [true]])
    }

    @Test("user on a credential record without a user handle: the credential cannot be shown to be theirs")
    func usernameFirstRecordWithoutHandle() async throws {
        var record = Self.aliceCredential
        record["userHandle"] = nil
        let (report, _) = try await replay(
            Self.document(
                [
                    Self.login("alice", user: Self.alice, userHandle: nil, expect: "unknownCredential")
                ], extra: ["credentials": [record]]))
        expectAllPassed(report)
    }

    // MARK: Members of other issues are left alone

    @Test("options.extensions, clientExtensionResults and expect.extensions do not stop a replay")
    func otherMembersIgnored() async throws {
        var ceremony = Self.registration("with-extensions", issuedAt: Self.t, expect: "malformed")
        var options = J.creationOptions(challenge: Base64URL.encode(Array("with-extensions".utf8)))
        options["extensions"] = ["credProps": true, "credProtect": ["credentialProtectionPolicy": "userVerificationRequired"]]
        ceremony["options"] = options
        var expect = J.reject("malformed")
        expect["extensions"] = ["credProps": ["rk": true]]
        ceremony["expect"] = expect
        var login = Self.login("login-with-extensions", user: Self.alice, userHandle: nil, expect: "malformed")
        var request = J.requestOptions(challenge: Base64URL.encode(Array("login-with-extensions".utf8)))
        request["extensions"] = ["appid": "https://example.org/appid.json"]
        login["options"] = request
        let (report, _) = try await replay(
            Self.document(
                [ceremony, login],
                policy: ["challengeLifetime": 120],
                extra: ["credentials": [Self.aliceCredential]]))
        expectAllPassed(report)
    }

    // MARK: Unusable values: exit 2 naming the member

    func expectFixtureError(
        _ report: ReplayReport, path: String, member: String, reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(report.exitCode == 2, sourceLocation: sourceLocation)
        #expect(report.results.isEmpty, sourceLocation: sourceLocation)
        guard report.fixtureErrors.count == 1, let error = report.fixtureErrors.first else {
            Issue.record("expected one fixture error, got \(report.fixtureErrors)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.file == path, sourceLocation: sourceLocation)
        #expect(error.member == member, "\(error)", sourceLocation: sourceLocation)
        if let reason { #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation) }
    }

    @Test(
        "issuedAt and receivedAt that are not RFC 3339 date-times: exit 2 naming the member",
        arguments: [
            "yesterday", "2025-02-29T00:00:00Z", "2025-06-01", "2025-06-01T00:00:00", "2025-06-01T24:00:00Z",
            "2025-06-01T00:60:00Z", "2025-06-01T00:00:60Z", "2025-06-01 00:00:00Z", "2025-06-01T00:00:00.Z",
            "2025-06-01T00:00:00+2:00", "2025-06-01T00:00:00Z ", "+2025-06-01T00:00:00Z", "",
        ])
    func badTimes(_ text: String) async throws {
        let (issued, path) = try await replay(
            Self.document([
                J.registration("ok", expect: J.reject("malformed")), Self.registration("bad", issuedAt: text, expect: "malformed"),
            ]))
        expectFixtureError(issued, path: path, member: "ceremonies[1].issuedAt", reason: "RFC 3339")
        let (received, receivedPath) = try await replay(Self.document([Self.registration("bad", receivedAt: text, expect: "malformed")]))
        expectFixtureError(received, path: receivedPath, member: "ceremonies[0].receivedAt", reason: "RFC 3339")
    }

    @Test("issuedAt of the wrong type: exit 2 naming it")
    func timeWrongType() async throws {
        var ceremony = J.registration("r", expect: J.reject("malformed"))
        ceremony["issuedAt"] = 1_748_736_000
        let (report, path) = try await replay(Self.document([ceremony]))
        expectFixtureError(report, path: path, member: "ceremonies[0].issuedAt", reason: "not of the expected type")
    }

    @Test("a negative challengeLifetime: exit 2 naming policy.challengeLifetime")
    func negativeLifetime() async throws {
        let (report, path) = try await replay(
            Self.document(
                [J.registration("r", expect: J.reject("malformed"))],
                policy: ["challengeLifetime": -1]))
        expectFixtureError(report, path: path, member: "policy.challengeLifetime", reason: "finite number of seconds")
    }

    @Test(
        "a challengeLifetime that is not a number, or too large for a Double: exit 2",
        arguments: [#""300""#, "true", "null", "[300]", "1e400", "-1e400"])
    func lifetimeNotANumber(_ literal: String) async throws {
        let text =
            #"{"format":"webauthn-ceremonies/1","relyingParty":{"id":"example.org","origins":["https://example.org"]},"#
            + #""policy":{"verificationTime":"2025-06-01T00:00:00Z","challengeLifetime":\#(literal)},"ceremonies":[]}"#
        let (report, path) = try await replay(text: text)
        if literal == "null" {
            // null is an absent member: the default lifetime.
            #expect(report.exitCode == 0 && report.fixtureErrors.isEmpty, "\(report.fixtureErrors)")
        } else if literal.contains("e400") {
            // Foundation's JSON reader refuses a number beyond Double's range for the whole
            // document, before any member is decoded: still unusable, named as the file.
            expectFixtureError(report, path: path, member: "(file)")
        } else {
            expectFixtureError(report, path: path, member: "policy.challengeLifetime")
        }
    }

    @Test(
        "user that is not a usable user handle, or on a registration: exit 2 naming it",
        arguments: [
            ("not base64!", "not base64url"), ("", "1 to 64 bytes"),
            (Base64URL.encode(Array(repeating: 7, count: 65)), "1 to 64 bytes"),
        ])
    func badUser(_ value: String, _ reason: String) async throws {
        let (report, path) = try await replay(
            Self.document([
                J.registration("r", expect: J.reject("malformed")),
                Self.login("l", user: value, userHandle: nil, expect: "unknownCredential"),
            ]))
        expectFixtureError(report, path: path, member: "ceremonies[1].user", reason: reason)
    }

    @Test("user of the wrong type, and user on a registration: exit 2 naming it")
    func userMisplaced() async throws {
        var login = Self.login("l", user: nil, userHandle: nil, expect: "unknownCredential")
        login["user"] = 42
        let (typed, typedPath) = try await replay(Self.document([login]))
        expectFixtureError(typed, path: typedPath, member: "ceremonies[0].user", reason: "not of the expected type")
        var registration = J.registration("r", expect: J.reject("malformed"))
        registration["user"] = Self.alice
        let (placed, placedPath) = try await replay(Self.document([registration]))
        expectFixtureError(placed, path: placedPath, member: "ceremonies[0].user", reason: "authentication ceremonies only")
        // A 64-byte user is the longest allowed.
        let (longest, _) = try await replay(
            Self.document([
                Self.login("l", user: Base64URL.encode(Array(repeating: 7, count: 64)), userHandle: nil, expect: "unknownCredential")
            ]))
        expectAllPassed(longest)
    }

    // MARK: The time parser

    @Test(
        "RFC 3339 date-times read to the right instant",
        arguments: [
            ("1970-01-01T00:00:00Z", 0.0), ("2025-06-01T00:00:00Z", 1_748_736_000), ("2025-06-01t00:00:00z", 1_748_736_000),
            ("2025-06-01T02:00:00+02:00", 1_748_736_000), ("2025-05-31T19:30:00-04:30", 1_748_736_000),
            ("2024-02-29T12:00:00Z", 1_709_208_000), ("2000-03-01T00:00:00Z", 951_868_800),
            ("1969-12-31T23:59:59Z", -1), ("2025-06-01T00:00:00.25Z", 1_748_736_000.25), ("9999-12-31T23:59:59Z", 253_402_300_799),
            ("0000-01-01T00:00:00Z", -62_167_219_200),
        ])
    func parses(_ text: String, _ seconds: Double) throws {
        let date = try #require(FixtureTime.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test("leap years: 29 February exists in 2024 and 2000, not in 2025 or 1900")
    func leapYears() {
        #expect(FixtureTime.parse("2024-02-29T00:00:00Z") != nil)
        #expect(FixtureTime.parse("2000-02-29T00:00:00Z") != nil)
        #expect(FixtureTime.parse("2025-02-29T00:00:00Z") == nil)
        #expect(FixtureTime.parse("1900-02-29T00:00:00Z") == nil)
        #expect(FixtureTime.parse("2025-04-31T00:00:00Z") == nil)
        #expect(FixtureTime.parse("2025-13-01T00:00:00Z") == nil)
        #expect(FixtureTime.parse("2025-00-01T00:00:00Z") == nil)
        #expect(FixtureTime.parse("2025-01-00T00:00:00Z") == nil)
    }
}
