import Foundation
import Testing
import WebAuthnCoding
import WebAuthnReplay
import WebAuthnTestSupport

@testable import WebAuthnRP

/// Recordings carry no secret extension output: PRF results (and the other secret outputs) are
/// zero bytes of the same length, and the document replays to the same verdict.
extension CeremonyRecordingTests {
    static let prfFirst = Array("recording prf first".utf8)
    static let prfSecond = Array("recording prf second".utf8)

    /// A username-first login that asks for PRF on two inputs, and a response that carries the
    /// authenticator's outputs for them (`edit` may change the response further).
    func prfLogin(
        seed: String, outputs: ((TestAuthenticator) -> [String: JSONValue])? = nil,
        edit: (inout TestAuthenticator.AuthenticationOptions) -> Void = { _ in }
    )
        async throws -> (recorded: RecordedCeremony<VerifiedAuthentication>, secrets: [String])
    {
        var auth = try TestAuthenticator(seed: seed)
        let service = RelyingPartyService(
            relyingParty: Self.relyingParty,
            credentials: InMemoryCredentialStore(records: [auth.record()]))
        let request = AuthenticationRequest(
            userHandle: auth.userHandle,
            extensions: AuthenticationExtensionInputs(
                prf: PRFInputs(eval: PRFValues(first: Self.prfFirst, second: Self.prfSecond))))
        let challenge = try await service.beginAuthentication(request, now: Self.t0).options.challenge.bytes
        let secrets = [Base64URL.encode(auth.prf(Self.prfFirst)), Base64URL.encode(auth.prf(Self.prfSecond))]
        var options = TestAuthenticator.AuthenticationOptions()
        options.extensions.client =
            outputs?(auth)
            ?? ["prf": .object(["results": .object(["first": .string(secrets[0]), "second": .string(secrets[1])])])]
        edit(&options)
        let recorded = try await finishLogin(service, try auth.authenticateJSON(challenge: challenge, options), challenge: challenge)
        return (recorded, secrets)
    }

    /// `clientExtensionResults.prf.results` of the recorded response.
    func recordedPRF(_ recording: CeremonyRecording) -> (first: String?, second: String?) {
        let results = recording.response["clientExtensionResults"]?["prf"]?["results"]
        return (results?["first"]?.stringValue, results?["second"]?.stringValue)
    }

    /// Checks that neither the recording nor its document holds a secret, and that each PRF
    /// output became zero bytes of its original length.
    func expectRedacted(
        _ recording: CeremonyRecording, secrets: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let document = String(decoding: try recording.document(), as: UTF8.self)
        for secret in secrets {
            #expect(!document.contains(secret), "the document holds a PRF output", sourceLocation: sourceLocation)
        }
        let prf = recordedPRF(recording)
        for (value, secret) in [(prf.first, secrets[0]), (prf.second, secrets[1])] {
            let bytes = try #require(try value.map { try Base64URL.decode($0) }, sourceLocation: sourceLocation)
            #expect(bytes == [UInt8](repeating: 0, count: try Base64URL.decode(secret).count), sourceLocation: sourceLocation)
            #expect(value?.count == secret.count, sourceLocation: sourceLocation)
        }
    }

    @Test("a PRF login recorded accepted: the outputs are zeros of the same length, and it replays as accepted")
    func prfLoginAccepted() async throws {
        let (recorded, secrets) = try await prfLogin(seed: "recording-prf-accepted")
        #expect(category(recorded) == nil)
        // The verified result still hands the outputs to the caller; only the recording drops them.
        let verified = try recorded.result.get()
        #expect(
            verified.extensions.prfResults.map { [Base64URL.encode($0.first)] + ($0.second.map { [Base64URL.encode($0)] } ?? []) }
                == secrets)
        try expectRedacted(recorded.recording, secrets: secrets)
        #expect(recordedPRF(recorded.recording).first?.count == 43)
        try await replay(recorded.recording, expected: "accept")
    }

    @Test("a PRF login recorded rejected (bad signature): no output in the document, and it replays as reject(signature)")
    func prfLoginBadSignature() async throws {
        let (recorded, secrets) = try await prfLogin(
            seed: "recording-prf-signature",
            edit: { options in
                options.signature = { $0[$0.count - 1] ^= 0x01 }
            })
        #expect(category(recorded) == .signature)
        try expectRedacted(recorded.recording, secrets: secrets)
        try await replay(recorded.recording, expected: "reject(signature)")
    }

    @Test("a PRF output of the wrong length is zeroed at its own length, so it replays as reject(extension)")
    func prfWrongLength() async throws {
        let short = [UInt8](repeating: 0x5A, count: 31), long = [UInt8](repeating: 0xA5, count: 33)
        let secrets = [Base64URL.encode(short), Base64URL.encode(long)]
        let (recorded, _) = try await prfLogin(
            seed: "recording-prf-length",
            outputs: { _ in
                ["prf": .object(["results": .object(["first": .string(secrets[0]), "second": .string(secrets[1])])])]
            })
        #expect(category(recorded) == .extension)
        try expectRedacted(recorded.recording, secrets: secrets)
        try await replay(recorded.recording, expected: "reject(extension)")
    }

    @Test("a PRF output that is not base64url becomes (redacted) and replays as reject(extension)")
    func prfNotBase64URL() async throws {
        let secret = "not+base64/url=="
        let (recorded, _) = try await prfLogin(
            seed: "recording-prf-text",
            outputs: { _ in
                ["prf": .object(["results": .object(["first": .string(secret)])])]
            })
        #expect(category(recorded) == .extension)
        let document = String(decoding: try recorded.recording.document(), as: UTF8.self)
        #expect(!document.contains(secret))
        #expect(recordedPRF(recorded.recording).first == "(redacted)")
        try await replay(recorded.recording, expected: "reject(extension)")
    }

    @Test("largeBlob.blob, getCredBlob and hmacGetSecret outputs are zeroed too; statements are kept")
    func otherSecretOutputs() async throws {
        let blob = Base64URL.encode(Array("the user's large blob".utf8))
        let credBlob = Base64URL.encode(Array("cred blob".utf8))
        let output1 = Base64URL.encode([UInt8](repeating: 0x77, count: 32))
        let (recorded, secrets) = try await prfLogin(
            seed: "recording-other-outputs",
            outputs: { auth in
                [
                    "prf": .object([
                        "results": .object([
                            "first": .string(Base64URL.encode(auth.prf(Self.prfFirst))),
                            "second": .string(Base64URL.encode(auth.prf(Self.prfSecond))),
                        ])
                    ]),
                    "largeBlob": .object(["blob": .string(blob)]),
                    "getCredBlob": .string(credBlob),
                    "hmacGetSecret": .object(["output1": .string(output1)]),
                    "credProps": .object(["rk": .bool(true)]),
                ]
            })
        // Outputs not asked for are ignored under the default policy: the login is accepted.
        #expect(category(recorded) == nil)
        let document = String(decoding: try recorded.recording.document(), as: UTF8.self)
        for secret in [blob, credBlob, output1] { #expect(!document.contains(secret)) }
        try expectRedacted(recorded.recording, secrets: secrets)
        let outputs = recorded.recording.response["clientExtensionResults"]
        #expect(
            try outputs?["largeBlob"]?["blob"]?.stringValue.map { try Base64URL.decode($0) }
                == [UInt8](repeating: 0, count: 21))
        #expect(try outputs?["getCredBlob"]?.stringValue.map { try Base64URL.decode($0) } == [UInt8](repeating: 0, count: 9))
        #expect(
            try outputs?["hmacGetSecret"]?["output1"]?.stringValue.map { try Base64URL.decode($0) }
                == [UInt8](repeating: 0, count: 32))
        #expect(outputs?["credProps"] == .object(["rk": .bool(true)]))
        try await replay(recorded.recording, expected: "accept")
    }

    @Test("a body that did not decode is recorded as text with its PRF outputs zeroed in place, and replays as reject(malformed)")
    func unparsedBodyWithPRF() async throws {
        var auth = try TestAuthenticator(seed: "recording-prf-unparsed")
        let (service, challenge) = try await login(records: [auth.record()])
        let secret = Base64URL.encode(auth.prf(Self.prfFirst))
        var options = TestAuthenticator.AuthenticationOptions()
        options.extensions.client = ["prf": .object(["results": .object(["first": .string(secret)])])]
        let json = try auth.authenticateJSON(challenge: challenge, options).jsonData()
        // Without `type`, the body is not an AuthenticationResponseJSON.
        var object = try #require(try JSONDecoder().decode(JSONValue.self, from: json).objectValue)
        object["type"] = nil
        let body = try JSONEncoder().encode(JSONValue.object(object))
        let recorded = try await service.finishAuthenticationRecording(
            jsonData: body, challenge: .session(challenge),
            now: Self.t0)
        #expect(category(recorded) == .malformed)
        let text = try #require(recorded.recording.response.stringValue)
        #expect(!text.contains(secret))
        #expect(
            text
                == String(decoding: body, as: UTF8.self)
                .replacingOccurrences(of: secret, with: Base64URL.encode([UInt8](repeating: 0, count: 32))))
        #expect(!String(decoding: try recorded.recording.document(), as: UTF8.self).contains(secret))
        try await replay(recorded.recording, expected: "reject(malformed)")

        // Not JSON at all (a byte after the value) but naming prf: the whole text is replaced.
        let cut = body + Data("}".utf8)
        let truncated = try await service.finishAuthenticationRecording(
            jsonData: cut, challenge: .session(challenge),
            now: Self.t0)
        #expect(category(truncated) == .malformed)
        #expect(truncated.recording.response.stringValue?.contains(secret) == false)
        #expect(truncated.recording.response.stringValue?.hasPrefix("(redacted") == true)
        try await replay(truncated.recording, expected: "reject(malformed)")
    }

    @Test("sealed challenges: a PRF login under a refused token (reused) is recorded without its outputs")
    func prfSealedRefusedToken() async throws {
        var auth = try TestAuthenticator(seed: "recording-prf-sealed")
        let key = try SealedChallengeKey.generate()
        let cache = InMemorySealedChallengeReplayStore()
        let service = RelyingPartyService(
            relyingParty: Self.relyingParty, challenges: .sealed(key, replayStore: cache),
            credentials: InMemoryCredentialStore(records: [auth.record()]))
        let request = AuthenticationRequest(
            userHandle: auth.userHandle,
            extensions: AuthenticationExtensionInputs(
                prf: PRFInputs(eval: PRFValues(first: Self.prfFirst, second: Self.prfSecond))))
        let sealed = try await service.beginAuthentication(request, now: Self.t0)
        let secrets = [Base64URL.encode(auth.prf(Self.prfFirst)), Base64URL.encode(auth.prf(Self.prfSecond))]
        var options = TestAuthenticator.AuthenticationOptions()
        options.extensions.client = [
            "prf": .object([
                "results": .object([
                    "first": .string(secrets[0]),
                    "second": .string(secrets[1]),
                ])
            ])
        ]
        let body = try auth.authenticateJSON(challenge: sealed.options.challenge.bytes, options).jsonData()
        let first = try await service.finishAuthenticationRecording(jsonData: body, challenge: sealed.challenge, now: Self.t0)
        #expect(category(first) == nil)
        try expectRedacted(first.recording, secrets: secrets)
        let again = try await service.finishAuthenticationRecording(jsonData: body, challenge: sealed.challenge, now: Self.t0)
        #expect(category(again) == .challenge)
        try expectRedacted(again.recording, secrets: secrets)
        let result = try await replayVerdict(again.recording)
        #expect(result.actual == "reject(challenge)" && result.passed)
    }
}
