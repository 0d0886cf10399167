import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// The `Fixtures/app-attest/` group: Apple App Attest attestations and assertions from
/// ``TestAppAttestDevice`` under a test App Attestation root, one file per rejection category
/// of the fixture specification's "Apple App Attest ceremonies" plus accepted ceremonies in
/// both environments.
enum AppAttestFixtureCorpus {
    static let app = AppAttestApp(teamId: "0352187391", bundleId: "com.example.app")

    /// Every file of the group, rendered, with paths not already taken in `paths`.
    static func rendered(excluding paths: inout Set<String>) throws -> [FixtureWriter.RenderedFile] {
        var out: [FixtureWriter.RenderedFile] = []
        for file in try files() {
            guard paths.insert(file.path).inserted else {
                throw WebAuthnError(.malformed, "two generated fixtures share the path \(file.path)")
            }
            out.append(FixtureWriter.RenderedFile(path: file.path, text: file.document.text))
        }
        return out
    }

    static func files() throws -> [AppAttestFixtureFile] {
        let authority = try TestAppAttestDevice.Authority.make(seed: "app attest root")
        let rogue = try TestAppAttestDevice.Authority.make(name: "Rogue App Attestation Root", seed: "rogue app attest root")
        func device(
            _ seed: String, _ environment: AppAttestEnvironment = .production,
            by issuer: TestAppAttestDevice.Authority? = nil
        ) throws -> TestAppAttestDevice {
            try TestAppAttestDevice(seed: seed, app: app, environment: environment, authority: issuer ?? authority)
        }
        var files: [AppAttestFixtureFile] = []

        // Accepted, production: attest, then two assertions.
        var file = AppAttestFixtureFile(
            "app-attest/production.json",
            "App Attest, production: a key attestation, then two assertions with rising counters",
            environment: .production, anchors: [authority.root.certificate])
        var phone = try device("production phone")
        try file.attest("attest", phone)
        try file.assert("assert-1", &phone)
        try file.assert("assert-2", &phone)
        files.append(file)

        // Accepted, development.
        file = AppAttestFixtureFile(
            "app-attest/development.json",
            "App Attest, development (AAGUID appattestdevelop): a key attestation, then an assertion",
            environment: .development, anchors: [authority.root.certificate])
        phone = try device("development phone", .development)
        try file.attest("attest", phone)
        try file.assert("assert-1", &phone)
        files.append(file)

        // Accepted: the map recent devices append to the attestation's authData with ED clear
        // (Apple's published sample, iOS 27, has {apple_bundle_version_01, apple_validation_category_01});
        // any other tail is still malformed.
        file = AppAttestFixtureFile(
            "app-attest/device-extensions.json",
            "App Attest: authData ending in the map recent devices append with the ED flag clear (accepted), or in bytes that are not one CBOR map (malformed)",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("device extensions phone")
        let deviceMap = AppAttestationOptions.deviceAuthDataExtensions
        for (name, tail) in [
            ("authdata-tail-not-a-map", [0x61, 0x78] as [UInt8]), ("authdata-tail-map-then-a-byte", deviceMap + [0x00]),
            ("authdata-tail-two-maps", deviceMap + deviceMap),
        ] {
            var options = AppAttestationOptions()
            options.unannouncedAuthDataTail = tail
            try file.attest(name, phone, options, expect: .reject(.malformed))
        }
        var deviceTail = AppAttestationOptions()
        deviceTail.unannouncedAuthDataTail = deviceMap
        try file.attest("attest", phone, deviceTail)
        try file.assert("assert-1", &phone)
        files.append(file)

        // Keys known before replay (appKeys).
        file = AppAttestFixtureFile(
            "app-attest/preloaded-keys.json",
            "App Attest: assertions against a key listed in appKeys with counter 5",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("preloaded phone")
        phone.signCount = 5
        file.appKeys.append(
            .object([
                ("keyId", .bytes(phone.keyId)), ("publicKey", .bytes(phone.publicPoint)),
                ("signCount", .int(5)),
            ]))
        try file.assert("assert-6", &phone)
        try file.assert("assert-7", &phone)
        files.append(file)

        // malformed
        file = AppAttestFixtureFile(
            "app-attest/malformed.json",
            "App Attest: attestations and assertions that do not parse (CBOR, members, authenticator data)",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("malformed phone")
        let attestChallenge = file.challenge("not-cbor")
        file.attestation(
            "attestation-not-cbor", keyId: phone.keyId, challenge: attestChallenge,
            object: Array("not cbor".utf8), expect: .reject(.malformed))
        var trailing = AppAttestationOptions()
        trailing.object = { $0.append(0x00) }
        try file.attest("attestation-trailing-byte", phone, trailing, expect: .reject(.malformed))
        var badCert = AppAttestationOptions()
        badCert.x5c = { $0[0] = Array($0[0].prefix(40)) }
        try file.attest("attestation-certificate-truncated", phone, badCert, expect: .reject(.malformed))
        try file.attest("attest", phone)
        var garbage = AppAssertionOptions()
        garbage.object = { $0 = Array($0.prefix($0.count - 5)) }
        try file.assert("assertion-broken-cbor", &phone, garbage, expect: .reject(.malformed))
        var extraKey = AppAssertionOptions()
        extraKey.object = {
            $0[0] = 0xa3; $0 += [0x63, 0x66, 0x6f, 0x6f, 0x00]
        }  // "foo": 0
        try file.assert("assertion-extra-member", &phone, extraKey, expect: .reject(.malformed))
        file.assertion(
            "assertion-authdata-short", keyId: phone.keyId, clientData: Array("short".utf8),
            object: CBOREncoder.encode(
                CBORItem.map([
                    (.text("signature"), .bytes([0x30, 0x00])),
                    (.text("authenticatorData"), .bytes([UInt8](repeating: 1, count: 36))),
                ])),
            expect: .reject(.malformed))
        files.append(file)

        // attestation
        file = AppAttestFixtureFile(
            "app-attest/attestation.json",
            "App Attest: attestations whose statement does not verify (nonce, key id, AAGUID, counter, credential id, fmt, x5c)",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("attestation phone")
        var nonce = AppAttestationOptions()
        nonce.nonce = { $0[0] ^= 0x01 }
        try file.attest("nonce-differs", phone, nonce, expect: .reject(.attestation))
        let other = try device("another phone")
        file.attestation(
            "key-id-of-another-key", keyId: other.keyId, challenge: file.challenge("key-id-of-another-key"),
            object: try phone.attest(challenge: file.challenge("key-id-of-another-key")), expect: .reject(.attestation))
        var certified = AppAttestationOptions()
        certified.certifiedKey = other.privateKey
        try file.attest("credcert-certifies-another-key", phone, certified, expect: .reject(.attestation))
        var development = AppAttestationOptions()
        development.aaguid = AppAttestEnvironment.development.aaguid
        try file.attest("aaguid-development-in-production", phone, development, expect: .reject(.attestation))
        var unknownAAGUID = AppAttestationOptions()
        unknownAAGUID.aaguid = Array("appattestxxxxxxx".utf8)
        try file.attest("aaguid-unknown", phone, unknownAAGUID, expect: .reject(.attestation))
        var counter = AppAttestationOptions()
        counter.signCount = 1
        try file.attest("counter-not-zero", phone, counter, expect: .reject(.attestation))
        var credentialId = AppAttestationOptions()
        credentialId.credentialId = other.keyId
        try file.attest("credential-id-differs", phone, credentialId, expect: .reject(.attestation))
        var noAttestedData = AppAttestationOptions()
        noAttestedData.omitAttestedCredentialData = true
        try file.attest("authdata-without-attested-credential-data", phone, noAttestedData, expect: .reject(.attestation))
        var format = AppAttestationOptions()
        format.format = "apple"
        try file.attest("fmt-apple", phone, format, expect: .reject(.attestation))
        var leafOnly = AppAttestationOptions()
        leafOnly.x5c = { $0 = [$0[0]] }
        try file.attest("x5c-without-intermediate", phone, leafOnly, expect: .reject(.attestation))
        var noReceipt = AppAttestationOptions()
        noReceipt.statement = { $0.removeAll { $0.0.text == "receipt" } }
        try file.attest("receipt-missing", phone, noReceipt, expect: .reject(.attestation))
        var noExtension = AppAttestationOptions()
        noExtension.certificate = { $0.extraExtensions = [] }
        try file.attest("nonce-extension-missing", phone, noExtension, expect: .reject(.attestation))
        var looseExtension = AppAttestationOptions()
        looseExtension.certificate = { builder in
            builder.extraExtensions = [
                CertificateExtension(
                    oid: AttestationOID.appleNonce, isCritical: false,
                    value: DEREncoder.sequence([DEREncoder.octetString([UInt8](repeating: 7, count: 32))]))
            ]
        }
        try file.attest("nonce-extension-without-explicit-tag", phone, looseExtension, expect: .reject(.attestation))
        try file.attest("attest", phone)
        files.append(file)

        // trust
        file = AppAttestFixtureFile(
            "app-attest/trust.json",
            "App Attest: x5c chains that do not end in the configured root",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("trust phone")
        var rogueChain = AppAttestationOptions()
        rogueChain.authority = rogue
        try file.attest("issued-under-another-root", phone, rogueChain, expect: .reject(.trust))
        var swapped = AppAttestationOptions()
        swapped.x5c = { $0[1] = rogue.intermediate.derBytes }
        try file.attest("intermediate-of-another-root", phone, swapped, expect: .reject(.trust))
        try file.attest("attest", phone)
        files.append(file)

        file = AppAttestFixtureFile(
            "app-attest/trust-default-root.json",
            "App Attest: without policy.trustAnchors only Apple's App Attestation Root CA is trusted",
            environment: .production, anchors: nil)
        phone = try device("default root phone")
        try file.attest("test-root-not-trusted", phone, expect: .reject(.trust))
        files.append(file)

        // rpIdHash
        file = AppAttestFixtureFile(
            "app-attest/rpIdHash.json",
            "App Attest: rpIdHash that is not SHA-256 of teamId.bundleId",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("rpIdHash phone")
        var otherApp = AppAttestationOptions()
        otherApp.appId = "0352187391.com.example.other"
        try file.attest("attestation-other-app", phone, otherApp, expect: .reject(.rpIdHash))
        var bundleOnly = AppAttestationOptions()
        bundleOnly.appId = app.bundleId
        try file.attest("attestation-bundle-id-without-team", phone, bundleOnly, expect: .reject(.rpIdHash))
        try file.attest("attest", phone)
        var otherAppAssertion = AppAssertionOptions()
        otherAppAssertion.appId = "0352187391.com.example.other"
        try file.assert("assertion-other-app", &phone, otherAppAssertion, expect: .reject(.rpIdHash))
        files.append(file)

        // signature
        file = AppAttestFixtureFile(
            "app-attest/signature.json",
            "App Attest: assertions whose signature does not verify over the nonce with the attested key",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("signature phone")
        try file.attest("attest", phone)
        var otherClientData = AppAssertionOptions()
        otherClientData.signedClientData = Array("a different request".utf8)
        try file.assert("signed-other-client-data", &phone, otherClientData, expect: .reject(.signature))
        var otherKey = AppAssertionOptions()
        otherKey.signingKey = other.privateKey
        try file.assert("signed-by-another-key", &phone, otherKey, expect: .reject(.signature))
        var flipped = AppAssertionOptions()
        flipped.signature = { $0[$0.count - 1] ^= 0x01 }
        try file.assert("signature-bit-flipped", &phone, flipped, expect: .reject(.signature))
        var notDER = AppAssertionOptions()
        notDER.signature = { $0 = Array($0.dropFirst(2)) }
        try file.assert("signature-not-der", &phone, notDER, expect: .reject(.signature))
        try file.assert("assert", &phone)
        files.append(file)

        // signCount
        file = AppAttestFixtureFile(
            "app-attest/signCount.json",
            "App Attest: assertions whose counter is not greater than the stored one",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("signCount phone")
        try file.attest("attest", phone)
        var zero = AppAssertionOptions()
        zero.signCount = 0
        try file.assert("counter-zero-after-attestation", &phone, zero, expect: .reject(.signCount))
        try file.assert("assert-1", &phone)
        var same = AppAssertionOptions()
        same.signCount = 1
        try file.assert("counter-repeated", &phone, same, expect: .reject(.signCount))
        try file.assert("assert-2", &phone)
        var regression = AppAssertionOptions()
        regression.signCount = 1
        try file.assert("counter-regressed", &phone, regression, expect: .reject(.signCount))
        files.append(file)

        // unknownCredential
        file = AppAttestFixtureFile(
            "app-attest/unknownCredential.json",
            "App Attest: assertions for key ids that were never attested",
            environment: .production, anchors: [authority.root.certificate])
        phone = try device("known phone")
        try file.attest("attest", phone)
        var stranger = try device("stranger phone")
        try file.assert("never-attested", &stranger, expect: .reject(.unknownCredential))
        var rejected = try device("rejected phone")
        var badNonce = AppAttestationOptions()
        badNonce.nonce = { $0[31] ^= 0x80 }
        try file.attest("attestation-rejected", rejected, badNonce, expect: .reject(.attestation))
        try file.assert("after-rejected-attestation", &rejected, expect: .reject(.unknownCredential))
        files.append(file)
        files.append(try challengeFile(authority: authority))
        return files
    }

    /// Challenges the server issues and consumes (`issue`, `issuedAt`, `receivedAt`,
    /// `policy.challengeLifetime`, an assertion's `challenge`), on a clock with a fraction of a
    /// second: each challenge answers one ceremony, within its lifetime, after it was issued.
    static func challengeFile(authority: TestAppAttestDevice.Authority) throws -> AppAttestFixtureFile {
        func device(_ seed: String) throws -> TestAppAttestDevice {
            try TestAppAttestDevice(seed: seed, app: app, environment: .production, authority: authority)
        }
        var file = AppAttestFixtureFile(
            "app-attest/challenges.json",
            "App Attest with challenges the server issued (issue, issuedAt, receivedAt, "
                + "policy.challengeLifetime 60, policy.verificationTime with a fraction of a second): "
                + "each is good for one ceremony within 60 s of issue; a used, unissued, late or "
                + "not yet issued challenge is challenge, as is client data that does not begin with "
                + "the assertion's challenge",
            environment: .production, anchors: [authority.root.certificate])
        file.clock = "2025-06-01T00:00:00.250Z"
        file.policyMembers = [("challengeLifetime", .int(60))]
        let t = "2025-06-01T00:00:00.250Z"

        // Attestations. The fraction of verificationTime counts: 60 s before it is in time, 60.001 s late.
        var phone = try device("challenges phone")
        try file.attest("attest-issued-60s-before-accepted", phone)
        file.stamp(issuedAt: "2025-05-31T23:59:00.250Z")
        let used = file.challenge("attest-issued-60s-before-accepted")
        let again = try device("challenges second phone")
        file.attestation(
            "attest-challenge-used-again", keyId: again.keyId, challenge: used,
            object: try again.attest(challenge: used), expect: .reject(.challenge))
        file.stamp(issue: false)
        try file.attest("attest-challenge-never-issued", again, expect: .reject(.challenge))
        file.stamp(issue: false)
        try file.attest("attest-issued-60.001s-before", again, expect: .reject(.challenge))
        file.stamp(issuedAt: "2025-05-31T23:59:00.249Z")
        try file.attest("attest-received-before-issued", again, expect: .reject(.challenge))
        file.stamp(issuedAt: "2025-06-01T00:00:10Z", receivedAt: t)
        try file.attest("attest-issued-and-received-later-accepted", again)
        file.stamp(issuedAt: "2025-06-01T00:10:00Z", receivedAt: "2025-06-01T00:11:00Z")

        // Assertions: clientData is the challenge followed by the request.
        try file.assert("assert-issued-accepted", &phone, challenge: true)
        file.stamp(issue: true)
        let first = file.challenge("assert-issued-accepted")
        let replayed = first + Array("POST /v1/orders {\"item\":43}".utf8)
        file.assertion(
            "assert-challenge-used-again", keyId: phone.keyId, clientData: replayed,
            object: try phone.assert(clientData: replayed), expect: .reject(.challenge), challenge: first)
        file.stamp(issue: false)
        try file.assert("assert-challenge-never-issued", &phone, challenge: true, expect: .reject(.challenge))
        file.stamp(issue: false)
        try file.assert("assert-late", &phone, challenge: true, expect: .reject(.challenge))
        file.stamp(issuedAt: "2025-06-01T00:00:00Z", receivedAt: "2025-06-01T00:01:00.001Z")
        // Issued, in time, but the app signed a request that does not begin with it: Apple's step 6.
        let name = "assert-client-data-without-the-challenge"
        let other = Array("POST /v1/orders {\"item\":44}".utf8) + file.challenge(name)
        file.assertion(
            name, keyId: phone.keyId, clientData: other, object: try phone.assert(clientData: other),
            expect: .reject(.challenge), challenge: file.challenge(name))
        file.stamp(issue: true)
        try file.assert("assert-at-the-limit-accepted", &phone, challenge: true)
        file.stamp(issuedAt: "2025-06-01T00:00:00Z", receivedAt: "2025-06-01T00:01:00Z")
        // Without issue or issuedAt the challenge is not tracked; given, it is still step 6's.
        try file.assert("assert-untracked-challenge-accepted", &phone, challenge: true)
        return file
    }
}

typealias AppAttestationOptions = TestAppAttestDevice.AttestationOptions
typealias AppAssertionOptions = TestAppAttestDevice.AssertionOptions

/// One App Attest fixture file being built.
struct AppAttestFixtureFile {
    enum Expect {
        case accept
        case reject(WebAuthnError.Category)
    }

    let path: String
    let description: String
    let environment: AppAttestEnvironment
    /// nil: no `policy.trustAnchors` (Apple's root).
    let anchors: [Certificate]?
    var appKeys: [FixtureValue] = []
    /// `policy.verificationTime`.
    var clock = FixtureFile.verificationTime
    /// More `policy` members (for example `challengeLifetime`).
    var policyMembers: [(String, FixtureValue)] = []
    private(set) var ceremonies: [FixtureValue] = []

    /// Adds `issue`, `issuedAt` and `receivedAt` to the ceremony recorded last, before its `expect`.
    mutating func stamp(issue: Bool? = nil, issuedAt: String? = nil, receivedAt: String? = nil) {
        var added: [(String, FixtureValue)] = []
        if let issue { added.append(("issue", .bool(issue))) }
        if let issuedAt { added.append(("issuedAt", .string(issuedAt))) }
        if let receivedAt { added.append(("receivedAt", .string(receivedAt))) }
        guard case .object(var members) = ceremonies.last else { return }
        members.insert(contentsOf: added, at: members.firstIndex { $0.0 == "expect" } ?? members.count)
        ceremonies[ceremonies.count - 1] = .object(members)
    }

    init(_ path: String, _ description: String, environment: AppAttestEnvironment, anchors: [Certificate]?) {
        self.path = path
        self.description = description
        self.environment = environment
        self.anchors = anchors
    }

    func challenge(_ name: String) -> [UInt8] { Digest.sha256.hash(Array("app attest challenge \(path) \(name)".utf8)) }

    /// The request an app signs: the server's challenge, then the request line and body.
    func clientData(_ name: String) -> [UInt8] {
        challenge(name) + Array("POST /v1/orders {\"item\":42,\"ceremony\":\"\(name)\"}".utf8)
    }

    mutating func attest(
        _ name: String, _ device: TestAppAttestDevice,
        _ options: AppAttestationOptions = AppAttestationOptions(), expect: Expect = .accept
    ) throws {
        let challenge = self.challenge(name)
        attestation(
            name, keyId: device.keyId, challenge: challenge, object: try device.attest(challenge: challenge, options),
            expect: expect)
    }

    mutating func attestation(_ name: String, keyId: [UInt8], challenge: [UInt8], object: [UInt8], expect: Expect) {
        let verdict: FixtureValue
        switch expect {
        case .accept:
            verdict = .object([
                ("outcome", .string("accept")), ("environment", .string(environment.rawValue)),
                ("trusted", .bool(true)), ("signCount", .int(0)),
            ])
        case .reject(let category):
            verdict = .object([("outcome", .string("reject")), ("error", .string(category.rawValue))])
        }
        ceremonies.append(
            .object([
                ("name", .string(name)), ("kind", .string("appAttestation")), ("keyId", .bytes(keyId)),
                ("challenge", .bytes(challenge)), ("attestation", .bytes(object)), ("expect", verdict),
            ]))
    }

    /// Records an assertion; with `challenge`, the ceremony names the challenge its client data begins with.
    mutating func assert(
        _ name: String, _ device: inout TestAppAttestDevice,
        _ options: AppAssertionOptions = AppAssertionOptions(), challenge: Bool = false,
        expect: Expect = .accept
    ) throws {
        let clientData = self.clientData(name)
        let object = try device.assert(clientData: clientData, options)
        assertion(
            name, keyId: device.keyId, clientData: clientData, object: object, expect: expect,
            signCount: device.signCount, challenge: challenge ? self.challenge(name) : nil)
    }

    mutating func assertion(
        _ name: String, keyId: [UInt8], clientData: [UInt8], object: [UInt8], expect: Expect,
        signCount: UInt32 = 0, challenge: [UInt8]? = nil
    ) {
        let verdict: FixtureValue
        switch expect {
        case .accept:
            verdict = .object([("outcome", .string("accept")), ("signCount", .int(Int(signCount)))])
        case .reject(let category):
            verdict = .object([("outcome", .string("reject")), ("error", .string(category.rawValue))])
        }
        var members: [(String, FixtureValue)] = [("name", .string(name)), ("kind", .string("appAssertion")), ("keyId", .bytes(keyId))]
        if let challenge { members.append(("challenge", .bytes(challenge))) }
        members += [("clientData", .bytes(clientData)), ("assertion", .bytes(object)), ("expect", verdict)]
        ceremonies.append(.object(members))
    }

    var document: FixtureValue {
        var policy: [(String, FixtureValue)] = [("verificationTime", .string(clock))]
        if let anchors { policy.append(("trustAnchors", .array(anchors.map { .bytes($0.derBytes) }))) }
        policy += policyMembers
        let source =
            "Generated by Sources/WebAuthnTestSupport/FixtureGeneration/FixtureCorpus+AppAttest.swift "
            + "(TestAppAttestDevice under a test App Attestation root); regenerate with swift run webauthn-fixtures"
        let app: FixtureValue = .object([
            ("teamId", .string(AppAttestFixtureCorpus.app.teamId)),
            ("bundleId", .string(AppAttestFixtureCorpus.app.bundleId)),
            ("environment", .string(environment.rawValue)),
        ])
        return FixtureFile.ceremoniesDocument(
            description: description, source: source, [("app", app), ("policy", .object(policy))],
            keysMember: "appKeys", keys: appKeys, ceremonies: ceremonies)
    }
}
