import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// §7.2 steps 15 and 20: assertion extension outputs, the appid rule, and the PRF test vectors.
@Suite("Extensions at authentication")
struct AuthenticationExtensionTests {
    typealias F = CeremonyFixture
    typealias Outputs = TestAuthenticator.ExtensionOutputs
    static let appid = "https://example.org/u2f/appid.json"

    static func issued(_ inputs: AuthenticationExtensionInputs, allow: [[UInt8]] = []) throws -> IssuedChallenge {
        IssuedChallenge(
            challenge: Array(repeating: 0xB2, count: 32), kind: .authentication, rpId: "example.org",
            allowCredentials: allow, extensions: try inputs.validatedJSON(allowCredentials: allow),
            expiresAt: F.now.addingTimeInterval(300))
    }

    func login(
        _ inputs: AuthenticationExtensionInputs, _ outputs: Outputs, allow: [[UInt8]] = [],
        signedFor rpId: String = "example.org",
        policy: VerificationPolicy = VerificationPolicy()
    ) throws -> CeremonyOutcome<VerifiedAuthentication> {
        var authenticator = try TestAuthenticator()
        let record = authenticator.record()
        authenticator.rpId = rpId
        var options = TestAuthenticator.AuthenticationOptions()
        options.extensions = outputs
        let issued = try Self.issued(inputs, allow: allow)
        return F.authenticate(
            try authenticator.authenticate(challenge: issued.challenge, options), issued: issued,
            record: record, policy: policy)
    }

    static func b64(_ bytes: [UInt8]) -> JSONValue { .string(Base64URL.encode(bytes)) }

    // MARK: PRF

    @Test("the W3C L3 prf test vectors: salts and hmac-secret outputs as the test authenticator computes them")
    func prfTestVectors() throws {
        // L3 "Test Vectors for WebAuthn Extensions", prf, CTAP2 hmac-secret: seed = "WebAuthn PRF test vectors".
        let seed = Array("WebAuthn PRF test vectors".utf8)
        let first = seed + [0x02], second = seed + [0x03]
        #expect(first == hex("576562417574686e20505246207465737420766563746f727302"))
        #expect(TestAuthenticator.prfSalt(first) == hex("527413ebb48293772df30f031c5ac4650c7de14bf9498671ae163447b6a772b3"))
        #expect(TestAuthenticator.prfSalt(second) == hex("d68ac03329a10ee5e0ec834492bb9a96a0e547baf563bf78ccbe8789b22e776b"))
        let credRandom = hex("437e065e723a98b2f08f39d8baf7c53ecb3c363c5e5104bdaaf5d5ca2e028154")
        #expect(credRandom == Digest.sha256.hash(seed + [0x06]))
        let authenticator = try TestAuthenticator()
        #expect(
            authenticator.prf(first, credRandom: credRandom)
                == hex("3c33e07d202c3b029cc21f1722767021bf27d595933b3d2b6a1b9d5dddc77fae"))
        #expect(
            authenticator.prf(second, credRandom: credRandom)
                == hex("a62a8773b19cda90d7ed4ef72a80a804320dbd3997e2f663805ad1fd3293d50b"))
        // The WebAuthn API examples: the credential id and the 32-byte output value are SHA-256 of the seed.
        #expect(Base64URL.encode(Digest.sha256.hash(seed + [0x00])) == "e02eZ9lPp0UdkF4vGRO4-NxlhWBkL1FCmsmb1tTfRyE")
        #expect(Digest.sha256.hash(seed + [0x01]) == hex("c4172e982e9097c39a6c0cb720cb375b92e3fcad154a63e43a93f1096b1e1973"))
    }

    @Test("the W3C L3 prf API examples: enabled never at authentication; second exactly when the chosen input has one")
    func prfAPIExamples() throws {
        let output = Self.b64(hex("c4172e982e9097c39a6c0cb720cb375b92e3fcad154a63e43a93f1096b1e1973"))
        let authenticator = try TestAuthenticator()
        let other: [UInt8] = Array(repeating: 9, count: 16)
        let inputs = AuthenticationExtensionInputs(
            prf: PRFInputs(
                eval: PRFValues(first: [1, 2, 3, 4], second: [5, 6, 7, 8]),
                evalByCredential: [authenticator.credentialId: PRFValues(first: [9, 10, 11, 12])]))
        let allow = [authenticator.credentialId, other]
        // This credential's entry has no second input: results.first only.
        let verified = try #require(
            try login(
                inputs, Outputs(client: ["prf": .object(["results": .object(["first": output])])]),
                allow: allow
            ).accepted())
        #expect(verified.extensions.prfResults?.first.count == 32)
        #expect(verified.updatedRecord.extensions.prfEnabled == true)
        try login(inputs, Outputs(client: ["prf": .object(["results": .object(["first": output, "second": output])])]), allow: allow)
            .expectRejected(.extension, step: "§7.2 step 20")
        // `{ prf: {} }` is a valid answer (no evaluation happened).
        let empty = try #require(try login(inputs, Outputs(client: ["prf": .object([:])]), allow: allow).accepted())
        #expect(empty.extensions.prfResults == nil)
        try login(inputs, Outputs(client: ["prf": .object(["enabled": .bool(true)])]), allow: allow)
            .expectRejected(.extension, step: "§7.2 step 20")
        // With eval only (first and second asked): both outputs required.
        let evalOnly = AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1], second: [2])))
        _ = try login(evalOnly, Outputs(client: ["prf": .object(["results": .object(["first": output, "second": output])])])).accepted()
        try login(evalOnly, Outputs(client: ["prf": .object(["results": .object(["first": output])])]))
            .expectRejected(.extension, step: "§7.2 step 20")
        // Results when nothing was evaluated.
        try login(
            AuthenticationExtensionInputs(prf: PRFInputs()), Outputs(client: ["prf": .object(["results": .object(["first": output])])])
        )
        .expectRejected(.extension, step: "§7.2 step 20")
    }

    @Test("hmac-secret output in an assertion: 32, 48, 64 or 80 bytes")
    func hmacSecretOutput() throws {
        let inputs = AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1])))
        let ok = try #require(
            try login(inputs, Outputs(authenticator: [("hmac-secret", .bytes(Array(repeating: 1, count: 48)))])).accepted())
        #expect(ok.extensions.hmacSecret == true)
        try login(inputs, Outputs(authenticator: [("hmac-secret", .bytes(Array(repeating: 1, count: 33)))]))
            .expectRejected(.extension, step: "§7.2 step 20")
        try login(inputs, Outputs(authenticator: [("hmac-secret", .bool(true))])).expectRejected(.extension, step: "§7.2 step 20")
    }

    // MARK: largeBlob, credBlob

    @Test("largeBlob: blob only after read, written only after write, never supported")
    func largeBlob() throws {
        let read = AuthenticationExtensionInputs(largeBlob: .read)
        let verified = try #require(try login(read, Outputs(client: ["largeBlob": .object(["blob": Self.b64([1, 2, 3])])])).accepted())
        #expect(verified.extensions.largeBlob?.blob == [1, 2, 3])
        try login(read, Outputs(client: ["largeBlob": .object(["written": .bool(true)])])).expectRejected(.extension, step: "§7.2 step 20")
        try login(read, Outputs(client: ["largeBlob": .object(["supported": .bool(true)])])).expectRejected(
            .extension, step: "§7.2 step 20")
        let authenticator = try TestAuthenticator()
        let write = AuthenticationExtensionInputs(largeBlob: .write([7]))
        let written = try #require(
            try login(
                write, Outputs(client: ["largeBlob": .object(["written": .bool(true)])]),
                allow: [authenticator.credentialId]
            ).accepted())
        #expect(written.extensions.largeBlob?.written == true)
        try login(write, Outputs(client: ["largeBlob": .object(["blob": Self.b64([1])])]), allow: [authenticator.credentialId])
            .expectRejected(.extension, step: "§7.2 step 20")
    }

    @Test("getCredBlob: the authenticator's credBlob bytes are reported; a boolean is extension")
    func credBlob() throws {
        let inputs = AuthenticationExtensionInputs(getCredBlob: true)
        let verified = try #require(try login(inputs, Outputs(authenticator: [("credBlob", .bytes([4, 5]))])).accepted())
        #expect(verified.extensions.credBlob == [4, 5])
        try login(inputs, Outputs(authenticator: [("credBlob", .bool(true))])).expectRejected(.extension, step: "§7.2 step 20")
    }

    // MARK: appid

    @Test("appid: rpIdHash is SHA-256 of the AppID when the client used it")
    func appidUsed() throws {
        let inputs = AuthenticationExtensionInputs(appid: Self.appid)
        let verified = try #require(try login(inputs, Outputs(client: ["appid": .bool(true)]), signedFor: Self.appid).accepted())
        #expect(verified.extensions.appid == true)
        let unused = try #require(try login(inputs, Outputs(client: ["appid": .bool(false)])).accepted())
        #expect(unused.extensions.appid == false)
    }

    @Test("appid: true without the input is extension; an rpIdHash that is not the one the answer implies is rpIdHash")
    func appidRejected() throws {
        try login(AuthenticationExtensionInputs(), Outputs(client: ["appid": .bool(true)]), signedFor: Self.appid)
            .expectRejected(.extension, step: "§7.2 step 15")
        let inputs = AuthenticationExtensionInputs(appid: Self.appid)
        try login(inputs, Outputs(client: ["appid": .bool(true)])).expectRejected(.rpIdHash, step: "§7.2 step 15")
        try login(inputs, Outputs(client: ["appid": .bool(false)]), signedFor: Self.appid).expectRejected(.rpIdHash, step: "§7.2 step 15")
        try login(inputs, Outputs(client: ["appid": .bool(true)]), signedFor: "other.example")
            .expectRejected(.rpIdHash, step: "§7.2 step 15")
        try login(inputs, Outputs(client: ["appid": .string("true")]), signedFor: Self.appid)
            .expectRejected(.extension, step: "§7.2 step 15")
    }

    // MARK: Inputs

    @Test("inputs: evalByCredential keys must be in allowCredentials; largeBlob write needs exactly one credential")
    func inputValidation() throws {
        let prf = AuthenticationExtensionInputs(prf: PRFInputs(evalByCredential: [[1, 2]: PRFValues(first: [1])]))
        #expect(throws: WebAuthnError(.extension, "")) { try prf.validatedJSON(allowCredentials: []) }
        #expect(throws: WebAuthnError(.extension, "")) { try prf.validatedJSON(allowCredentials: [[3]]) }
        let json = try #require(try prf.validatedJSON(allowCredentials: [[1, 2]]))
        #expect(json["prf"] == .object(["evalByCredential": .object(["AQI": .object(["first": .string("AQ")])])]))
        let write = AuthenticationExtensionInputs(largeBlob: .write([1]))
        #expect(throws: WebAuthnError(.extension, "")) { try write.validatedJSON(allowCredentials: [[1], [2]]) }
        #expect(throws: WebAuthnError(.extension, "")) {
            try AuthenticationExtensionInputs(appid: "not a url").validatedJSON(allowCredentials: [])
        }
        #expect(try AuthenticationExtensionInputs().validatedJSON(allowCredentials: []) == nil)
        // Of several ids not in allowCredentials, the error names the smallest every time.
        let foreign = AuthenticationExtensionInputs(
            prf: PRFInputs(evalByCredential: Dictionary(uniqueKeysWithValues: (1...8).map { ([UInt8(9 - $0), 7], PRFValues(first: [1])) })))
        for _ in 0..<30 {
            do {
                _ = try foreign.validatedJSON(allowCredentials: [[9]])
                Issue.record("evalByCredential ids outside allowCredentials were accepted")
            } catch {
                #expect(error.message.contains("names \(Base64URL.encode([1, 7]))"), "\(error.message)")
            }
        }
    }

    @Test("the service validates inputs against the allowCredentials it builds and sends them")
    func serviceBegin() async throws {
        let authenticator = try TestAuthenticator()
        let service = RelyingPartyService(
            relyingParty: F.relyingParty,
            credentials: InMemoryCredentialStore(records: [authenticator.record()]))
        let good = AuthenticationRequest(
            userHandle: authenticator.userHandle,
            extensions: AuthenticationExtensionInputs(
                prf: PRFInputs(evalByCredential: [authenticator.credentialId: PRFValues(first: [1])])))
        let options = try await service.beginAuthentication(good, now: F.now).options
        #expect(options.extensions?["prf"] != nil)
        let bad = AuthenticationRequest(
            extensions: AuthenticationExtensionInputs(
                prf: PRFInputs(evalByCredential: [authenticator.credentialId: PRFValues(first: [1])])))
        await #expect(throws: WebAuthnError(.extension, "")) { _ = try await service.beginAuthentication(bad, now: F.now).options }
    }

    @Test("a login that asks for nothing and gets nothing reports nothing")
    func none() throws {
        let verified = try #require(try login(AuthenticationExtensionInputs(), Outputs()).accepted())
        #expect(verified.extensions == AuthenticationExtensionResults())
    }
}

private func hex(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        out.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return out
}
