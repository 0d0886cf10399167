import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Shapes the FIDO conformance tool sends (issue 42): a body without `clientExtensionResults`,
/// read by default; the reserved `tokenBinding` member and fido-u2f's AAGUID, which L3 leaves
/// unverified, checked by the conformance profile only.
@Suite("Response shapes: tokenBinding, absent clientExtensionResults, fido-u2f AAGUID")
struct ResponseShapeTests {
    typealias F = CeremonyFixture
    static let registrationChallenge = Array(repeating: UInt8(0xA1), count: 32)
    static let loginChallenge = Array(repeating: UInt8(0xB2), count: 32)

    // MARK: tokenBinding

    static let tokenBindingFaults: [(String, String)] = [
        (#""present""#, "not an object"), (#""unused""#, "not an object"), ("null", "not an object"),
        ("[]", "not an object"), ("{}", "status is missing"), (#"{"status":1}"#, "status is a number"),
        (#"{"status":"absent"}"#, "is not present, supported"), (#"{"status":"Present","id":"AAEC"}"#, "is not present, supported"),
        (#"{"status":"present"}"#, "tokenBinding.id must be"), (#"{"status":"present","id":5}"#, "tokenBinding.id must be"),
        (#"{"status":"present","id":"A+B/"}"#, "tokenBinding.id:"),
    ]

    @Test(
        "tokenBinding of the Level 2 shape is read without a fault",
        arguments: [
            #"{"status":"supported"}"#, #"{"status":"not-supported"}"#, #"{"status":"present","id":"AAEC"}"#,
            #"{"status":"present","id":"AAEC","other":1}"#,
        ])
    func tokenBindingWellFormed(_ member: String) throws {
        let text = #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","tokenBinding":\#(member)}"#
        for data in [
            try CollectedClientData(jsonBytes: Array(text.utf8)), try CollectedClientData(treeJSONBytes: Array(text.utf8)[...]),
        ] {
            #expect(data.origin == "https://a.example")
            #expect(data.tokenBindingFault == nil)
        }
    }

    @Test("tokenBinding of another shape parses (L3 verifies nothing of it) and its fault is noted, on both readings")
    func tokenBindingFaultNoted() throws {
        for (member, mention) in Self.tokenBindingFaults {
            let text = #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","tokenBinding":\#(member)}"#
            for data in [
                try CollectedClientData(jsonBytes: Array(text.utf8)), try CollectedClientData(treeJSONBytes: Array(text.utf8)[...]),
            ] {
                #expect(data.tokenBindingFault?.contains(mention) == true, "\(member): \(String(describing: data.tokenBindingFault))")
            }
        }
    }

    @Test("a bad tokenBinding: accepted by default (L3), refused at the parse step by the conformance profile")
    func tokenBindingInCeremonies() throws {
        let ca = try TestAuthenticator.CA.make()
        let profile = VerificationPolicy.fidoConformance(trust: FixedTrustAnchors([ca.certificate]))
        var authenticator = try TestAuthenticator()
        var options = TestAuthenticator.RegistrationOptions(attestation: .packed(ca: ca))
        for member in [#""tokenBinding":{"status":"present"}"#, #""tokenBinding":"unused""#] {
            options.clientData = { $0.extraMembers = [member] }
            let registration = try authenticator.register(challenge: Self.registrationChallenge, options)
            _ = F.register(registration).accepted()
            let refused = F.register(registration, policy: profile)
            refused.expectRejected(.malformed, step: "§7.1 steps 5-6")
            refused.expectMessage(containing: "FIDO conformance profile")
        }
        options.clientData = { $0.extraMembers = [#""tokenBinding":{"status":"supported"}"#] }
        _ = F.register(try authenticator.register(challenge: Self.registrationChallenge, options), policy: profile).accepted()

        var login = TestAuthenticator.AuthenticationOptions()
        login.clientData = { $0.extraMembers = [#""tokenBinding":"present""#] }
        let assertion = try authenticator.authenticate(challenge: Self.loginChallenge, login)
        _ = F.authenticate(assertion, record: authenticator.record()).accepted()
        F.authenticate(assertion, record: authenticator.record(), policy: profile)
            .expectRejected(.malformed, step: "§7.2 steps 7-9")
    }

    // MARK: clientExtensionResults

    /// `json` re-serialized without its top-level `clientExtensionResults` (or with it set to `value`).
    static func withoutExtensionResults(_ json: Data, value: Any? = nil) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["clientExtensionResults"] != nil)
        object["clientExtensionResults"] = value
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test("a registration body without clientExtensionResults is read as {} and verifies; null is still malformed")
    func registrationWithoutExtensionResults() throws {
        let authenticator = try TestAuthenticator()
        let json = try authenticator.registerJSON(challenge: Self.registrationChallenge).jsonData()
        let response = try RegistrationResponse(jsonData: try Self.withoutExtensionResults(json))
        #expect(response.clientExtensionResults.isEmpty)
        _ = F.register(response).accepted()
        let null = try Self.withoutExtensionResults(json, value: NSNull())
        let error = #expect(throws: WebAuthnError.self) { try RegistrationResponse(jsonData: null) }
        #expect(error?.category == .malformed)
    }

    @Test("a login body without clientExtensionResults is read as {} on the fast path and the tree path, and verifies")
    func authenticationWithoutExtensionResults() throws {
        var authenticator = try TestAuthenticator()
        let json = try authenticator.authenticateJSON(challenge: Self.loginChallenge).jsonData()
        let without = try Self.withoutExtensionResults(json)
        // The browser's fast reader reads it itself, with the same members the tree reader gives.
        let fast = try #require(PlainResponseDecoding.authentication(Array(without)[...]))
        #expect(fast.clientExtensionResults.isEmpty)
        #expect(
            try WebAuthnJSONCoding.decode(AuthenticationResponseJSON.self, from: Array(without)[...], root: "AuthenticationResponseJSON")
                == fast)
        let response = try AuthenticationResponse(jsonData: without)
        #expect(response.clientExtensionResults.isEmpty)
        _ = F.authenticate(response, record: authenticator.record()).accepted()
    }

    // MARK: fido-u2f AAGUID

    @Test("fido-u2f with a non-zero AAGUID: accepted by default (L3 §8.6, L3's own vector), refused by the conformance profile")
    func u2fNonZeroAAGUID() throws {
        let ca = try TestAuthenticator.CA.make()
        let authenticator = try TestAuthenticator()
        var options = TestAuthenticator.RegistrationOptions(attestation: .fidoU2F(ca: ca))
        let trusting = VerificationPolicy(attestation: AttestationPolicy.trusted(by: [ca.certificate]))
        let profile = VerificationPolicy.fidoConformance(trust: FixedTrustAnchors([ca.certificate]))
        let zero = try authenticator.register(challenge: Self.registrationChallenge, options)
        #expect(F.register(zero, policy: trusting).accepted()?.attestation.trusted == true)
        #expect(F.register(zero, policy: profile).accepted()?.attestation.trusted == true)
        // The U2F signature does not cover the AAGUID: the statement still verifies over these bytes.
        options.authData = { $0.replaceSubrange(37..<53, with: TestAuthenticator.defaultAAGUID) }
        let nonZero = try authenticator.register(challenge: Self.registrationChallenge, options)
        #expect(F.register(nonZero, policy: trusting).accepted()?.attestation.trusted == true)
        let outcome = F.register(nonZero, policy: profile)
        outcome.expectRejected(.attestation, step: "§7.1 step 23")
        outcome.expectMessage(containing: "requires the zero AAGUID")
    }
}
