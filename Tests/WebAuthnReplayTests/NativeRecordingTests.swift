import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnRP

/// What an iOS app posts after a registration, encoded with `JSONEncoder` (standard base64).
private struct AppRegistrationBody: Encodable {
    var credentialID: Data
    var rawClientDataJSON: Data
    var rawAttestationObject: Data

    /// The body an app posts for a registration the test authenticator made, encoded.
    static func encoded(_ made: RegistrationResponse) throws -> Data {
        try JSONEncoder().encode(
            AppRegistrationBody(
                credentialID: Data(made.rawId), rawClientDataJSON: Data(made.clientDataJSON),
                rawAttestationObject: Data(made.attestationObject)))
    }
}

/// What an iOS app posts after an assertion.
private struct AppAssertionBody: Encodable {
    var credentialID: Data
    var rawClientDataJSON: Data
    var rawAuthenticatorData: Data
    var signature: Data
    var userID: Data?
}

extension CeremonyRecordingTests {
    /// The recording's `response` as the replay finds it in the written document.
    func recordedResponse(_ recording: CeremonyRecording) throws -> JSONValue {
        let document = try JSONValue(jsonData: try recording.document())
        guard case .array(let ceremonies)? = document.objectValue?["ceremonies"], let response = ceremonies.first?.objectValue?["response"]
        else { throw WebAuthnError(.malformed, "the document has no ceremony response") }
        return response
    }

    @Test("a native app's body is recorded as received, not re-encoded, and replays to the same verdict, accepted or refused")
    func nativeBodyKeptAsReceived() async throws {
        var auth = try TestAuthenticator(seed: "recording-native-kept")
        let service = RelyingPartyService(relyingParty: Self.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let made = try auth.register(challenge: options.challenge.bytes)
        let body = try AppRegistrationBody.encoded(made)
        let registered = try await service.finishRegistrationRecording(
            jsonData: body, challenge: .session(options.challenge.bytes), now: Self.t0.addingTimeInterval(5))
        #expect(category(registered) == nil)
        // The body's own members and values (standard base64), not the toJSON() form.
        #expect(try recordedResponse(registered.recording) == JSONValue(jsonData: body))
        try await replay(registered.recording, expected: "accept")

        // A login whose signature does not verify: the app's failed ceremony replays from its body.
        let login = try await service.beginAuthentication(AuthenticationRequest(), now: Self.t0).options
        var broken = TestAuthenticator.AuthenticationOptions()
        broken.signature = { $0[$0.count - 1] ^= 1 }
        let assertion = try auth.authenticate(challenge: login.challenge.bytes, broken)
        let assertionBody = try JSONEncoder().encode(
            AppAssertionBody(
                credentialID: Data(assertion.rawId), rawClientDataJSON: Data(assertion.clientDataJSON),
                rawAuthenticatorData: Data(assertion.authenticatorData), signature: Data(assertion.signature),
                userID: assertion.userHandle.map { Data($0) }))
        let refused = try await service.finishAuthenticationRecording(
            jsonData: assertionBody, challenge: .session(login.challenge.bytes), now: Self.t0.addingTimeInterval(6))
        #expect(category(refused) == .signature)
        #expect(try recordedResponse(refused.recording) == JSONValue(jsonData: assertionBody))
        try await replay(refused.recording, expected: "reject(signature)")
    }

    @Test("a response changed after decoding is recorded from its members, not from the body it no longer matches")
    func changedResponseDropsBody() throws {
        var auth = try TestAuthenticator(seed: "recording-native-changed")
        let made = try auth.register(challenge: Array(repeating: 7, count: 32))
        let body = try AppRegistrationBody.encoded(made)
        var registration = try RegistrationResponse(jsonData: body)
        #expect(registration.recordedJSON == (try JSONValue(jsonData: body)))
        registration.rawId = [1, 2, 3]
        #expect(registration.recordedJSON == registration.decodedJSON)
        #expect(registration.recordedJSON.objectValue?["rawId"] == .string("AQID"))

        let assertion = try auth.authenticate(challenge: Array(repeating: 8, count: 32))
        let assertionBody = try JSONEncoder().encode(
            AppAssertionBody(
                credentialID: Data(assertion.rawId), rawClientDataJSON: Data(assertion.clientDataJSON),
                rawAuthenticatorData: Data(assertion.authenticatorData), signature: Data(assertion.signature)))
        var login = try AuthenticationResponse(jsonData: assertionBody)
        #expect(login.recordedJSON == (try JSONValue(jsonData: assertionBody)))
        login.signature = [0]
        #expect(login.recordedJSON == login.decodedJSON)
    }

    @Test("browser JSON is recorded as received too: members the verifier does not read are kept")
    func browserBodyKeptAsReceived() async throws {
        let auth = try TestAuthenticator(seed: "recording-browser-kept")
        let service = RelyingPartyService(relyingParty: Self.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        var object = try #require(
            try JSONValue(jsonData: try auth.registerJSON(challenge: options.challenge.bytes).jsonData()).objectValue)
        object["authenticatorAttachment"] = .string("cross-platform")
        let body = try JSONEncoder().encode(JSONValue.object(object))
        let recorded = try await service.finishRegistrationRecording(
            jsonData: body, challenge: .session(options.challenge.bytes), now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == nil)
        #expect(try recordedResponse(recorded.recording).objectValue?["authenticatorAttachment"] == .string("cross-platform"))
        try await replay(recorded.recording, expected: "accept")
    }

    @Test("a native app's body is recorded through the same observer and replays as accepted; a malformed one as malformed")
    func nativeBody() async throws {
        let auth = try TestAuthenticator(seed: "recording-native")
        let service = RelyingPartyService(relyingParty: Self.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        let made = try auth.register(challenge: options.challenge.bytes)
        let body = try AppRegistrationBody.encoded(made)
        let recorded = try await service.finishRegistrationRecording(
            jsonData: body, challenge: .session(options.challenge.bytes),
            now: Self.t0.addingTimeInterval(5))
        #expect(category(recorded) == nil)
        try await replay(recorded.recording, expected: "accept")

        let again = try await service.beginRegistration(RegistrationRequest(user: user(auth)), now: Self.t0).options
        // base64url characters in the id: not what JSONEncoder writes.
        let unpadded = String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""credentialID":""#, with: #""credentialID":"-_-_"#)
        let refused = try await service.finishRegistrationRecording(
            jsonData: Data(unpadded.utf8),
            challenge: .session(again.challenge.bytes),
            now: Self.t0.addingTimeInterval(5))
        #expect(category(refused) == .malformed)
        try await replay(refused.recording, expected: "reject(malformed)")
    }
}
