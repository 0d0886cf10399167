import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Extensions through the service, from the JSON a browser posts: begin (inputs sent and kept with
/// the challenge), finish (outputs read from `clientExtensionResults`), record (stored).
@Suite("Extensions through RelyingPartyService")
struct ExtensionServiceFlowTests {
    @Test("registration and login with credProps and prf, as JSON bodies: results typed, record kept")
    func flow() async throws {
        var authenticator = try TestAuthenticator()
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        let now = CeremonyFixture.now
        let options = try await service.beginRegistration(
            RegistrationRequest(
                user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(authenticator.userHandle), name: "ada", displayName: "Ada"),
                algorithms: [.es256],
                extensions: RegistrationExtensionInputs(
                    credProps: true, prf: PRFInputs(),
                    credentialProtectionPolicy: .userVerificationRequired)),
            now: now
        ).options
        #expect(options.extensions?["credProps"] == .bool(true))
        var registration = TestAuthenticator.RegistrationOptions()
        registration.extensions = .init(
            authenticator: [("credProtect", .int(3))],
            client: ["credProps": .object(["rk": .bool(true)]), "prf": .object(["enabled": .bool(true)])])
        let body = try TestAuthenticator.json(try authenticator.register(challenge: options.challenge.bytes, registration)).jsonData()
        let registered = try await service.finishRegistration(RegistrationResponse(jsonData: body), now: now)
        #expect(registered.extensions.residentKey == true)
        #expect(registered.extensions.prfEnabled == true)
        #expect(registered.extensions.credentialProtection == .userVerificationRequired)
        let stored = try #require(try await service.credentials.credential(id: authenticator.credentialId))
        #expect(stored.extensions.discoverable == true)
        #expect(stored.extensions.credentialProtection == .userVerificationRequired)

        let salt = Array("salt".utf8)
        let request = try await service.beginAuthentication(
            AuthenticationRequest(
                userHandle: authenticator.userHandle, userVerification: .required,
                extensions: AuthenticationExtensionInputs(
                    prf: PRFInputs(evalByCredential: [authenticator.credentialId: PRFValues(first: salt)]))),
            now: now
        ).options
        var login = TestAuthenticator.AuthenticationOptions()
        let output = authenticator.prf(salt)
        login.extensions = .init(client: ["prf": .object(["results": .object(["first": .string(Base64URL.encode(output))])])])
        let loginBody = try TestAuthenticator.json(try authenticator.authenticate(challenge: request.challenge.bytes, login)).jsonData()
        let verified = try await service.finishAuthentication(AuthenticationResponse(jsonData: loginBody), now: now)
        #expect(verified.extensions.prfResults?.first == output)
        #expect(verified.updatedRecord.extensions.prfEnabled == true)
        #expect(verified.updatedRecord.extensions.credentialProtection == .userVerificationRequired)

        // The same outputs against a challenge that asked for nothing: ignored, not reported.
        let plain = try await service.beginAuthentication(AuthenticationRequest(userHandle: authenticator.userHandle), now: now).options
        let plainBody = try TestAuthenticator.json(try authenticator.authenticate(challenge: plain.challenge.bytes, login)).jsonData()
        let ignored = try await service.finishAuthentication(AuthenticationResponse(jsonData: plainBody), now: now)
        #expect(ignored.extensions.prfResults == nil)
    }
}
