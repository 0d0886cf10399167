import Foundation
import Testing
@_spi(Testing) import WebAuthnCrypto
@testable import WebAuthnRP

@Suite("Packed, fido-u2f and none attestation through §7.1")
struct PackedAndU2FAttestationTests {
    typealias F = CeremonyFixture

    @Test("every attestation kind the test authenticator makes verifies, with JSON round trip")
    func smoke() throws {
        let ca = try TestAuthenticator.CA.make()
        let cases: [(TestAuthenticator.Attestation, String, AttestationType)] = [
            (.none, "none", .none), (.packedSelf, "packed", .self), (.packed(ca: ca), "packed", .basic),
            (.fidoU2F(ca: ca), "fido-u2f", .basic),
        ]
        for (attestation, fmt, type) in cases {
            let authenticator = try TestAuthenticator()
            let json = try authenticator.registerJSON(challenge: Array(repeating: 0xA1, count: 32),
                                                      .init(attestation: attestation))
            let decoded = try RegistrationResponseJSON(jsonData: try json.jsonData())
            let outcome = F.register(RegistrationResponse(json: decoded))
            let verified = try #require(outcome.accepted())
            #expect(verified.attestation.format == fmt)
            #expect(verified.attestation.type == type)
        }
    }
}
