import Foundation
import Testing
import WebAuthnRP
import WebAuthnTestSupport

/// What an iOS app posts after a registration, encoded with `JSONEncoder` (standard base64).
private struct AppRegistrationBody: Encodable {
    var credentialID: Data
    var rawClientDataJSON: Data
    var rawAttestationObject: Data
}

extension CeremonyRecordingTests {
    @Test("a native app's body is recorded through the same observer and replays as accepted; a malformed one as malformed")
    func nativeBody() async throws {
        let auth = try TestAuthenticator(seed: "recording-native")
        let service = RelyingPartyService(relyingParty: Self.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let made = try auth.register(challenge: options.challenge.bytes)
        let body = try JSONEncoder().encode(AppRegistrationBody(credentialID: Data(made.rawId), rawClientDataJSON: Data(made.clientDataJSON),
                                                                rawAttestationObject: Data(made.attestationObject)))
        let recorded = try await service.finishRegistrationRecording(jsonData: body, challenge: .session(options.challenge.bytes),
                                                                     now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == nil)
        try await replay(recorded.recording, expected: "accept")

        let again = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        // base64url characters in the id: not what JSONEncoder writes.
        let unpadded = String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""credentialID":""#, with: #""credentialID":"-_-_"#)
        let refused = try await service.finishRegistrationRecording(jsonData: Data(unpadded.utf8),
                                                                    challenge: .session(again.challenge.bytes),
                                                                    now: Self.t0.addingTimeInterval(5))
        #expect(category(refused) == .malformed)
        try await replay(refused.recording, expected: "reject(malformed)")
    }
}
