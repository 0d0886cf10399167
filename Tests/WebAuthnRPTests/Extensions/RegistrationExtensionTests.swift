import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// §7.1 step 21: registration extension outputs checked against their definitions and the inputs.
@Suite("Extensions at registration")
struct RegistrationExtensionTests {
    typealias F = CeremonyFixture
    typealias Outputs = TestAuthenticator.ExtensionOutputs

    static func issued(_ inputs: RegistrationExtensionInputs) throws -> IssuedChallenge {
        IssuedChallenge(
            challenge: Array(repeating: 0xA1, count: 32), kind: .registration, rpId: "example.org",
            userHandle: Array("user-a".utf8), offeredAlgorithms: [.es256],
            extensions: try inputs.validatedJSON(), expiresAt: F.now.addingTimeInterval(300))
    }

    func register(
        _ inputs: RegistrationExtensionInputs, _ outputs: Outputs,
        policy: VerificationPolicy = VerificationPolicy()
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        let authenticator = try TestAuthenticator()
        var options = TestAuthenticator.RegistrationOptions()
        options.extensions = outputs
        let issued = try Self.issued(inputs)
        return F.register(try authenticator.register(challenge: issued.challenge, options), issued: issued, policy: policy)
    }

    @Test("no extensions asked, none returned: empty results, empty record properties")
    func none() throws {
        let verified = try #require(try register(RegistrationExtensionInputs(), Outputs()).accepted())
        #expect(verified.extensions == RegistrationExtensionResults())
        #expect(verified.record.extensions.isEmpty)
    }

    @Test("credProps: rk is reported and recorded; a non-boolean rk is extension")
    func credProps() throws {
        let verified = try #require(
            try register(
                RegistrationExtensionInputs(credProps: true),
                Outputs(client: ["credProps": .object(["rk": .bool(true)])])
            ).accepted())
        #expect(verified.extensions.residentKey == true)
        #expect(verified.record.extensions.discoverable == true)
        try register(RegistrationExtensionInputs(credProps: true), Outputs(client: ["credProps": .object(["rk": .string("yes")])]))
            .expectRejected(.extension, step: "§7.1 step 21")
        try register(RegistrationExtensionInputs(credProps: true), Outputs(client: ["credProps": .bool(true)]))
            .expectRejected(.extension, step: "§7.1 step 21")
    }

    @Test(
        "unsolicited outputs are accepted by default (credential facts reported, answers to inputs not) and rejected by the strict policy")
    func unsolicited() throws {
        let outputs = Outputs(client: ["credProps": .object(["rk": .bool(true)])])
        let verified = try #require(try register(RegistrationExtensionInputs(), outputs).accepted())
        #expect(verified.extensions.residentKey == true)
        let result32 = JSONValue.string(Base64URL.encode(Array(repeating: 7, count: 32)))
        let prf = try #require(
            try register(
                RegistrationExtensionInputs(),
                Outputs(client: [
                    "prf": .object(["enabled": .bool(true), "results": .object(["first": result32])]),
                    "largeBlob": .object(["supported": .bool(true)]), "appidExclude": .bool(true),
                ])
            ).accepted())
        #expect(prf.extensions.prfEnabled == true)
        #expect(prf.extensions.prfResults == nil)
        #expect(prf.extensions.largeBlob?.supported == true)
        #expect(prf.extensions.appidExclude == nil)
        let strict = VerificationPolicy(rejectUnsolicitedExtensionOutputs: true)
        try register(RegistrationExtensionInputs(), outputs, policy: strict).expectRejected(.extension, step: "§7.1 step 21")
        try register(RegistrationExtensionInputs(), Outputs(authenticator: [("minPinLength", .int(6))]), policy: strict)
            .expectRejected(.extension, step: "§7.1 step 21")
        _ = try register(RegistrationExtensionInputs(credProps: true), outputs, policy: strict).accepted()
        // An unknown extension is ignored by default.
        _ = try register(
            RegistrationExtensionInputs(),
            Outputs(
                authenticator: [("exampleExt", .text("x"))],
                client: ["exampleExt": .number(1)])
        ).accepted()
    }

    @Test("prf: enabled reported; results only with eval, 32 bytes, second exactly when asked")
    func prf() throws {
        let enabled = try #require(
            try register(
                RegistrationExtensionInputs(prf: PRFInputs()),
                Outputs(client: ["prf": .object(["enabled": .bool(true)])])
            ).accepted())
        #expect(enabled.extensions.prfEnabled == true)
        #expect(enabled.record.extensions.prfEnabled == true)
        let result32 = JSONValue.string(Base64URL.encode(Array(repeating: 7, count: 32)))
        // results without an evaluation input
        try register(
            RegistrationExtensionInputs(prf: PRFInputs()),
            Outputs(client: ["prf": .object(["enabled": .bool(true), "results": .object(["first": result32])])])
        )
        .expectRejected(.extension, step: "§7.1 step 21")
        let eval = RegistrationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1, 2, 3, 4])))
        let withResults = try #require(
            try register(
                eval,
                Outputs(client: [
                    "prf": .object([
                        "enabled": .bool(true), "results": .object(["first": result32]),
                    ])
                ])
            ).accepted())
        #expect(withResults.extensions.prfResults?.first == Array(repeating: 7, count: 32))
        #expect(withResults.extensions.prfResults?.second == nil)
        let short = JSONValue.string(Base64URL.encode(Array(repeating: 7, count: 31)))
        try register(eval, Outputs(client: ["prf": .object(["enabled": .bool(true), "results": .object(["first": short])])]))
            .expectRejected(.extension, step: "§7.1 step 21")
        try register(
            eval,
            Outputs(client: [
                "prf": .object([
                    "enabled": .bool(true),
                    "results": .object(["first": result32, "second": result32]),
                ])
            ])
        )
        .expectRejected(.extension, step: "§7.1 step 21")
        try register(eval, Outputs(client: ["prf": .object(["enabled": .bool(false), "results": .object(["first": result32])])]))
            .expectRejected(.extension, step: "§7.1 step 21")
        try register(eval, Outputs(client: ["prf": .object(["enabled": .number(1)])]))
            .expectRejected(.extension, step: "§7.1 step 21")
        try register(eval, Outputs(client: ["prf": .object(["results": .object(["first": .string("+/")])])]))
            .expectRejected(.extension, step: "§7.1 step 21")
    }

    @Test("largeBlob: supported only; required but unsupported is extension")
    func largeBlob() throws {
        let verified = try #require(
            try register(
                RegistrationExtensionInputs(largeBlob: .preferred),
                Outputs(client: ["largeBlob": .object(["supported": .bool(true)])])
            ).accepted())
        #expect(verified.extensions.largeBlob?.supported == true)
        #expect(verified.record.extensions.largeBlobSupported == true)
        _ = try register(
            RegistrationExtensionInputs(largeBlob: .preferred),
            Outputs(client: ["largeBlob": .object(["supported": .bool(false)])])
        ).accepted()
        try register(
            RegistrationExtensionInputs(largeBlob: .required),
            Outputs(client: ["largeBlob": .object(["supported": .bool(false)])])
        )
        .expectRejected(.extension, step: "§7.1 step 21")
        try register(
            RegistrationExtensionInputs(largeBlob: .preferred),
            Outputs(client: ["largeBlob": .object(["supported": .bool(true), "written": .bool(true)])])
        )
        .expectRejected(.extension, step: "§7.1 step 21")
    }

    @Test("credProtect: the level is recorded; below an enforced level is extension; out of range is extension")
    func credProtect() throws {
        let enforced = RegistrationExtensionInputs(
            credentialProtectionPolicy: .userVerificationRequired,
            enforceCredentialProtectionPolicy: true)
        let three = try #require(try register(enforced, Outputs(authenticator: [("credProtect", .int(3))])).accepted())
        #expect(three.extensions.credentialProtection == .userVerificationRequired)
        #expect(three.record.extensions.credentialProtection == .userVerificationRequired)
        try register(enforced, Outputs(authenticator: [("credProtect", .int(2))])).expectRejected(.extension, step: "§7.1 step 21")
        try register(enforced, Outputs()).expectRejected(.extension, step: "§7.1 step 21")
        let notEnforced = RegistrationExtensionInputs(credentialProtectionPolicy: .userVerificationRequired)
        let lower = try #require(try register(notEnforced, Outputs(authenticator: [("credProtect", .int(1))])).accepted())
        #expect(lower.extensions.credentialProtection == .userVerificationOptional)
        try register(notEnforced, Outputs(authenticator: [("credProtect", .int(4))])).expectRejected(.extension, step: "§7.1 step 21")
        try register(notEnforced, Outputs(authenticator: [("credProtect", .text("3"))])).expectRejected(.extension, step: "§7.1 step 21")
    }

    @Test("minPinLength, hmac-secret and credBlob are typed and recorded; wrong types are extension")
    func authenticatorOutputs() throws {
        let inputs = RegistrationExtensionInputs(minPinLength: true, hmacCreateSecret: true, credBlob: [1, 2, 3])
        // Canonical order: shorter keys first.
        let outputs = Outputs(
            authenticator: [
                ("credBlob", .bool(true)), ("hmac-secret", .bool(true)),
                ("minPinLength", .int(8)),
            ],
            client: ["hmacCreateSecret": .bool(true), "credBlob": .bool(true)])
        let verified = try #require(try register(inputs, outputs).accepted())
        #expect(verified.extensions.minPinLength == 8)
        #expect(verified.extensions.hmacSecret == true)
        #expect(verified.extensions.credBlob == true)
        #expect(verified.record.extensions.minPinLength == 8)
        #expect(verified.record.extensions.credBlobStored == true)
        try register(inputs, Outputs(authenticator: [("hmac-secret", .bytes(Array(repeating: 0, count: 32)))]))
            .expectRejected(.extension, step: "§7.1 step 21")
        try register(inputs, Outputs(authenticator: [("minPinLength", .int(-1))])).expectRejected(.extension, step: "§7.1 step 21")
        try register(inputs, Outputs(authenticator: [("credBlob", .bytes([1]))])).expectRejected(.extension, step: "§7.1 step 21")
    }

    @Test("the extensions map: a non-text key is extension; deep, huge or non-canonical maps are malformed")
    func hostileMaps() throws {
        let inputs = RegistrationExtensionInputs()
        let intKey = CBOREncoder.encode(CBORItem.map([(.int(1), .bool(true))]))
        try register(inputs, Outputs(authenticatorBytes: intKey)).expectRejected(.extension, step: "§7.1 step 21")
        var deep = CBORItem.int(1)
        for _ in 0..<5 { deep = .array([deep]) }
        let deepMap = CBOREncoder.encode(CBORItem.map([(.text("x"), deep)]))
        try register(inputs, Outputs(authenticatorBytes: deepMap)).expectRejected(.malformed, step: "§7.1 step 21")
        let huge = CBOREncoder.encode(CBORItem.map((0..<40).map { (CBORItem.text(String(format: "e%02d", $0)), CBORItem.bool(true)) }))
        try register(inputs, Outputs(authenticatorBytes: huge)).expectRejected(.malformed, step: "§7.1 step 21")
        // Keys out of canonical order: refused while authenticator data is read (step 13), in
        // the pass that decodes the map.
        let unordered: [UInt8] = [0xA2, 0x62, 0x62, 0x62, 0xF5, 0x61, 0x61, 0xF5]
        try register(inputs, Outputs(authenticatorBytes: unordered)).expectRejected(.malformed, step: "§7.1 step 13")
        // More than 64 client outputs: refused before any is read.
        var many: [String: JSONValue] = [:]
        for index in 0..<65 { many["x\(index)"] = .bool(true) }
        try register(inputs, Outputs(client: many)).expectRejected(.malformed, step: "§7.1 step 21")
        many.removeValue(forKey: "x0")
        _ = try register(inputs, Outputs(client: many)).accepted()
        // Cut-off CBOR does not parse as authenticator data at all.
        try register(inputs, Outputs(authenticatorBytes: [0xA1, 0x61])).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("inputs are validated before they are sent")
    func inputValidation() throws {
        #expect(throws: WebAuthnError(.extension, "")) {
            try RegistrationExtensionInputs(prf: PRFInputs(evalByCredential: [[1]: PRFValues(first: [1])])).validatedJSON()
        }
        #expect(throws: WebAuthnError(.extension, "")) {
            try RegistrationExtensionInputs(credBlob: Array(repeating: 1, count: 33)).validatedJSON()
        }
        #expect(throws: WebAuthnError(.extension, "")) {
            try RegistrationExtensionInputs(appidExclude: "http://example.org/appid").validatedJSON()
        }
        #expect(throws: WebAuthnError(.extension, "")) {
            try RegistrationExtensionInputs(enforceCredentialProtectionPolicy: true).validatedJSON()
        }
        let json = try #require(
            try RegistrationExtensionInputs(
                credProps: true, prf: PRFInputs(eval: PRFValues(first: [1, 2, 3, 4])), largeBlob: .required,
                credentialProtectionPolicy: .userVerificationOptionalWithCredentialIDList,
                enforceCredentialProtectionPolicy: true, appidExclude: "https://example.org/appid"
            ).validatedJSON())
        #expect(json["credProps"] == .bool(true))
        #expect(json["prf"] == .object(["eval": .object(["first": .string("AQIDBA")])]))
        #expect(json["largeBlob"] == .object(["support": .string("required")]))
        #expect(json["credentialProtectionPolicy"] == .string("userVerificationOptionalWithCredentialIDList"))
        #expect(json["enforceCredentialProtectionPolicy"] == .bool(true))
        #expect(json["appidExclude"] == .string("https://example.org/appid"))
        #expect(try RegistrationExtensionInputs().validatedJSON() == nil)
    }

    @Test("records and issued challenges keep extension data through Codable; older rows still decode")
    func storage() throws {
        let verified = try #require(
            try register(
                RegistrationExtensionInputs(credProps: true),
                Outputs(client: ["credProps": .object(["rk": .bool(true)])])
            ).accepted())
        let data = try JSONEncoder().encode(verified.record)
        let decoded = try JSONDecoder().decode(CredentialRecord.self, from: data)
        #expect(decoded == verified.record)
        #expect(decoded.extensions.discoverable == true)
        var plain = verified.record
        plain.extensions = CredentialExtensionProperties()
        let old = try JSONEncoder().encode(plain)
        #expect(!String(decoding: old, as: UTF8.self).contains("extensions"))
        #expect(try JSONDecoder().decode(CredentialRecord.self, from: old).extensions.isEmpty)
        let issued = try Self.issued(RegistrationExtensionInputs(credProps: true, largeBlob: .preferred))
        let round = try JSONDecoder().decode(IssuedChallenge.self, from: try JSONEncoder().encode(issued))
        #expect(round == issued)
        #expect(round.extensions?["credProps"] == .bool(true))
    }
}
