import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnRP

/// The ceremony state a server keeps between `begin…` and `finish…` as text
/// (`CeremonyChallenge.serialized` / `init(serialized:)`), and its `Codable` form over it.
@Suite("Ceremony challenge text")
struct CeremonyChallengeTextTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    func isChallengeError(_ error: any Error) -> Bool { (error as? WebAuthnError)?.category == .challenge }

    @Test("each kind is one short versioned string; Codable writes it as its one member and reads it back")
    func forms() throws {
        let challenge = Array(0..<32).map { UInt8($0) }
        let cases: [(CeremonyChallenge, String)] = [
            (.session(challenge), "v1.s.\(Base64URL.encode(challenge))"),
            (.fromClientData, "v1.c"),
            (.sealed("AQ-_token"), "v1.t.AQ-_token"),
        ]
        for (value, text) in cases {
            #expect(value.serialized == text)
            #expect(try CeremonyChallenge(serialized: text) == value)
            let json = #"{"source":"\#(text)"}"#
            #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == json)
            #expect(try JSONDecoder().decode(CeremonyChallenge.self, from: Data(json.utf8)) == value)
        }
        // The earlier release's unversioned text, and what is not a string, do not decode.
        for bad in [#"{"source":"s.AAEC"}"#, #"{"source":"c"}"#, #"{"source":"v1.s.not base64"}"#, #"{"source":[1,2]}"#] {
            #expect(throws: (any Error).self) { try JSONDecoder().decode(CeremonyChallenge.self, from: Data(bad.utf8)) }
        }
    }

    @Test(
        "what begin returns, kept as text and read back, finishes the ceremony: stored and sealed",
        arguments: ["stored", "sealed"])
    func roundTripThroughFinish(transport: String) async throws {
        let service = try CeremonyFixture.service(sealed: transport == "sealed")
        var authenticator = try TestAuthenticator()
        let registration = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        let kept = registration.challenge.serialized
        #expect(kept.hasPrefix(transport == "sealed" ? "v1.t." : "v1.s."))
        let restored = try CeremonyChallenge(serialized: kept)
        #expect(restored == registration.challenge)
        let made = try authenticator.register(challenge: registration.options.challenge.bytes)
        _ = try await service.finishRegistration(made, challenge: restored, now: now)

        let login = try await service.beginAuthentication(now: now)
        let asserted = try authenticator.authenticate(challenge: login.options.challenge.bytes)
        let verified = try await service.finishAuthentication(
            asserted, challenge: try CeremonyChallenge(serialized: login.challenge.serialized), now: now)
        #expect(verified.updatedRecord.id == authenticator.credentialId)
    }

    @Test("malformed text is refused as challenge, never trapping: each refusal named")
    func refusals() {
        let refused: [(String, String)] = [
            ("", "does not begin with v1."),
            ("v2.c", "does not begin with v1."),
            ("s.AAEC", "does not begin with v1."),
            ("v1.", "has no challenge or token"),
            ("v1.s.", "has no challenge or token"),
            ("v1.t.", "has no challenge or token"),
            ("v1.cc", "has no challenge or token"),
            ("v1.x.AAEC", "is not v1.s.<challenge>"),
            ("v1.s.AAE=", "not canonical base64url"),
            ("v1.s.AAF", "not canonical base64url"),  // non-zero trailing bits
            ("v1.s.AA+/", "not canonical base64url"),
            ("v1.t.AA==", "token that is not base64url"),
            ("v1.t.AB CD", "token that is not base64url"),
            ("v1.t.é", "token that is not base64url"),
            ("v1.t." + String(repeating: "A", count: 16_385), "longer than"),
        ]
        for (text, reason) in refused {
            let error = #expect(throws: WebAuthnError.self, "\(text.prefix(20))") { try CeremonyChallenge(serialized: text) }
            #expect(error?.category == .challenge && error?.step == "ceremony challenge", "\(text.prefix(20))")
            #expect(error?.message.contains(reason) == true, "\(text.prefix(20)): \(error?.message ?? "")")
        }
        // The longest sealed token still reads.
        let longest = "v1.t." + String(repeating: "A", count: 16_384)
        #expect((try? CeremonyChallenge(serialized: longest))?.serialized == longest)
    }

    @Test("every cut and every garbled character of a valid text reads back exactly or is refused as challenge")
    func truncatedAndGarbled() throws {
        let session = CeremonyChallenge.session(Array(0..<32).map { UInt8($0) }).serialized
        let sealed = CeremonyChallenge.sealed(Base64URL.encode(Array(0..<80).map { UInt8(truncatingIfNeeded: $0 &* 7) })).serialized
        var generator = SplitMix64(seed: 0x5EED)
        let garbage: [UInt8] = Array("\u{0}\"\\ .=+/-_~%é\u{7F}Av1st".utf8)
        var inputs: [[UInt8]] = []
        for text in [session, sealed, "v1.c"] {
            let bytes = Array(text.utf8)
            inputs += (0...bytes.count).map { Array(bytes.prefix($0)) }
            for index in bytes.indices {
                for replacement in garbage {
                    var changed = bytes
                    changed[index] = replacement
                    inputs.append(changed)
                }
            }
        }
        for _ in 0..<2_000 {
            let count = Int(truncatingIfNeeded: generator.next() % 48)
            var random: [UInt8] = []
            for _ in 0..<count { random.append(garbage[Int(truncatingIfNeeded: generator.next() % UInt64(garbage.count))]) }
            inputs.append(random)
        }
        var accepted = 0
        for input in inputs {
            let text = String(decoding: input, as: UTF8.self)
            do {
                let value = try CeremonyChallenge(serialized: text)
                #expect(value.serialized == text, "\(text.prefix(40))")
                accepted += 1
            } catch {
                #expect(error.category == .challenge, "\(text.prefix(40))")
            }
        }
        #expect(accepted > 0 && accepted < inputs.count)
    }
}
