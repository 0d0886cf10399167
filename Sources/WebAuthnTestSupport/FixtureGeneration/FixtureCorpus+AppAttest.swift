import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// The `Fixtures/app-attest/` group: Apple App Attest attestations and assertions from
/// ``TestAppAttestDevice`` under a test App Attestation root, one file per rejection category
/// of the fixture specification's "Apple App Attest ceremonies" plus accepted ceremonies in
/// both environments.
enum AppAttestFixtureCorpus {
    static let app = AppleApp(teamId: "0352187391", bundleId: "com.example.app")

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
        func device(_ seed: String, _ environment: AppAttestEnvironment = .production) throws -> TestAppAttestDevice {
            try TestAppAttestDevice(seed: seed, app: app, environment: environment, authority: authority)
        }
        var files: [AppAttestFixtureFile] = []
        /// Adds a file whose ceremonies `ceremonies` records with the device `seed`; trust anchor
        /// the test root unless `testRoot` is false (then Apple's root).
        func add(
            _ path: String, _ description: String, _ environment: AppAttestEnvironment = .production, testRoot: Bool = true,
            device seed: String, _ ceremonies: (inout AppAttestFixtureFile, inout TestAppAttestDevice) throws -> Void
        ) throws {
            var file = AppAttestFixtureFile(
                path, description, environment: environment, anchors: testRoot ? [authority.root.certificate] : nil)
            var phone = try device(seed, environment)
            try ceremonies(&file, &phone)
            files.append(file)
        }
        let other = try device("another phone")

        // Accepted in both environments: a key attestation, then assertions with rising counters.
        for (environment, description, assertions) in [
            (AppAttestEnvironment.production, "App Attest, production: a key attestation, then two assertions with rising counters", 2),
            (.development, "App Attest, development (AAGUID appattestdevelop): a key attestation, then an assertion", 1),
        ] {
            let name = environment.rawValue
            try add("app-attest/\(name).json", description, environment, device: "\(name) phone") { file, phone in
                try file.attest("attest", phone)
                for count in 1...assertions { try file.assert("assert-\(count)", &phone) }
            }
        }

        // Accepted: the map recent devices append to the attestation's authData with ED clear
        // (Apple's published sample, iOS 27, has {apple_bundle_version_01, apple_validation_category_01});
        // any other tail is still malformed.
        try add(
            "app-attest/device-extensions.json",
            "App Attest: authData ending in the map recent devices append with the ED flag clear (accepted), or in bytes that are not one CBOR map (malformed)",
            device: "device extensions phone"
        ) { file, phone in
            let deviceMap = AppAttestationOptions.deviceAuthDataExtensions
            for (name, tail) in [
                ("authdata-tail-not-a-map", [0x61, 0x78] as [UInt8]), ("authdata-tail-map-then-a-byte", deviceMap + [0x00]),
                ("authdata-tail-two-maps", deviceMap + deviceMap),
            ] {
                try file.attest(name, phone, expect: .reject(.malformed)) { $0.unannouncedAuthDataTail = tail }
            }
            try file.attest("attest", phone) { $0.unannouncedAuthDataTail = deviceMap }
            try file.assert("assert-1", &phone)
        }

        // Keys known before replay (appKeys).
        try add(
            "app-attest/preloaded-keys.json", "App Attest: assertions against a key listed in appKeys with counter 5",
            device: "preloaded phone"
        ) { file, phone in
            phone.signCount = 5
            file.appKeys.append(
                .object([
                    ("keyId", .bytes(phone.keyId)), ("publicKey", .bytes(phone.publicPoint)),
                    ("signCount", .int(5)),
                ]))
            try file.assert("assert-6", &phone)
            try file.assert("assert-7", &phone)
        }

        try add(
            "app-attest/malformed.json",
            "App Attest: attestations and assertions that do not parse (CBOR, members, authenticator data)",
            device: "malformed phone"
        ) { file, phone in
            file.attestation(
                "attestation-not-cbor", keyId: phone.keyId, challenge: file.challenge("not-cbor"),
                object: Array("not cbor".utf8), expect: .reject(.malformed))
            try file.attest("attestation-trailing-byte", phone, expect: .reject(.malformed)) { $0.object = { $0.append(0x00) } }
            try file.attest("attestation-certificate-truncated", phone, expect: .reject(.malformed)) {
                $0.x5c = { $0[0] = Array($0[0].prefix(40)) }
            }
            try file.attest("attest", phone)
            try file.assert("assertion-broken-cbor", &phone, expect: .reject(.malformed)) {
                $0.object = { $0 = Array($0.prefix($0.count - 5)) }
            }
            // A third member, "foo": 0.
            try file.assert("assertion-extra-member", &phone, expect: .reject(.malformed)) {
                $0.object = {
                    $0[0] = 0xa3; $0 += [0x63, 0x66, 0x6f, 0x6f, 0x00]
                }
            }
            file.assertion(
                "assertion-authdata-short", keyId: phone.keyId, clientData: Array("short".utf8),
                object: CBOREncoder.encode(
                    CBORItem.map([
                        (.text("signature"), .bytes([0x30, 0x00])),
                        (.text("authenticatorData"), .bytes([UInt8](repeating: 1, count: 36))),
                    ])),
                expect: .reject(.malformed))
        }

        try add(
            "app-attest/attestation.json",
            "App Attest: attestations whose statement does not verify (nonce, key id, AAGUID, counter, credential id, fmt, x5c)",
            device: "attestation phone"
        ) { file, phone in
            try file.attest("nonce-differs", phone, expect: .reject(.attestation)) { $0.nonce = { $0[0] ^= 0x01 } }
            file.attestation(
                "key-id-of-another-key", keyId: other.keyId, challenge: file.challenge("key-id-of-another-key"),
                object: try phone.attest(challenge: file.challenge("key-id-of-another-key")), expect: .reject(.attestation))
            let looseNonce = CertificateExtension(
                oid: AttestationOID.appleNonce, isCritical: false,
                value: DEREncoder.sequence([DEREncoder.octetString([UInt8](repeating: 7, count: 32))]))
            let edits: [(String, (inout AppAttestationOptions) -> Void)] = [
                ("credcert-certifies-another-key", { $0.certifiedKey = other.privateKey }),
                ("aaguid-development-in-production", { $0.aaguid = AppAttestEnvironment.development.aaguid }),
                ("aaguid-unknown", { $0.aaguid = Array("appattestxxxxxxx".utf8) }),
                ("counter-not-zero", { $0.signCount = 1 }),
                ("credential-id-differs", { $0.credentialId = other.keyId }),
                ("authdata-without-attested-credential-data", { $0.omitAttestedCredentialData = true }),
                ("fmt-apple", { $0.format = "apple" }),
                ("x5c-without-intermediate", { $0.x5c = { $0 = [$0[0]] } }),
                ("receipt-missing", { $0.statement = { $0.removeAll { $0.0.text == "receipt" } } }),
                ("nonce-extension-missing", { $0.certificate = { $0.extraExtensions = [] } }),
                ("nonce-extension-without-explicit-tag", { $0.certificate = { $0.extraExtensions = [looseNonce] } }),
            ]
            for (name, edit) in edits { try file.attest(name, phone, expect: .reject(.attestation), edit) }
            try file.attest("attest", phone)
        }

        try add("app-attest/trust.json", "App Attest: x5c chains that do not end in the configured root", device: "trust phone") {
            file, phone in
            try file.attest("issued-under-another-root", phone, expect: .reject(.trust)) { $0.authority = rogue }
            try file.attest("intermediate-of-another-root", phone, expect: .reject(.trust)) {
                $0.x5c = { $0[1] = rogue.intermediate.derBytes }
            }
            try file.attest("attest", phone)
        }

        try add(
            "app-attest/trust-default-root.json",
            "App Attest: without policy.trustAnchors only Apple's App Attestation Root CA is trusted", testRoot: false,
            device: "default root phone"
        ) { file, phone in
            try file.attest("test-root-not-trusted", phone, expect: .reject(.trust))
        }

        try add("app-attest/rpIdHash.json", "App Attest: rpIdHash that is not SHA-256 of teamId.bundleId", device: "rpIdHash phone") {
            file, phone in
            try file.attest("attestation-other-app", phone, expect: .reject(.rpIdHash)) { $0.appId = "0352187391.com.example.other" }
            try file.attest("attestation-bundle-id-without-team", phone, expect: .reject(.rpIdHash)) { $0.appId = app.bundleId }
            try file.attest("attest", phone)
            try file.assert("assertion-other-app", &phone, expect: .reject(.rpIdHash)) { $0.appId = "0352187391.com.example.other" }
        }

        try add(
            "app-attest/signature.json",
            "App Attest: assertions whose signature does not verify over the nonce with the attested key",
            device: "signature phone"
        ) { file, phone in
            try file.attest("attest", phone)
            let edits: [(String, (inout AppAssertionOptions) -> Void)] = [
                ("signed-other-client-data", { $0.signedClientData = Array("a different request".utf8) }),
                ("signed-by-another-key", { $0.signingKey = other.privateKey }),
                ("signature-bit-flipped", { $0.signature = { $0[$0.count - 1] ^= 0x01 } }),
                ("signature-not-der", { $0.signature = { $0 = Array($0.dropFirst(2)) } }),
            ]
            for (name, edit) in edits { try file.assert(name, &phone, expect: .reject(.signature), edit) }
            try file.assert("assert", &phone)
        }

        try add(
            "app-attest/signCount.json", "App Attest: assertions whose counter is not greater than the stored one",
            device: "signCount phone"
        ) { file, phone in
            try file.attest("attest", phone)
            try file.assert("counter-zero-after-attestation", &phone, expect: .reject(.signCount)) { $0.signCount = 0 }
            try file.assert("assert-1", &phone)
            try file.assert("counter-repeated", &phone, expect: .reject(.signCount)) { $0.signCount = 1 }
            try file.assert("assert-2", &phone)
            try file.assert("counter-regressed", &phone, expect: .reject(.signCount)) { $0.signCount = 1 }
        }

        try add(
            "app-attest/unknownCredential.json", "App Attest: assertions for key ids that were never attested",
            device: "known phone"
        ) { file, phone in
            try file.attest("attest", phone)
            var stranger = try device("stranger phone")
            try file.assert("never-attested", &stranger, expect: .reject(.unknownCredential))
            var rejected = try device("rejected phone")
            try file.attest("attestation-rejected", rejected, expect: .reject(.attestation)) { $0.nonce = { $0[31] ^= 0x80 } }
            try file.assert("after-rejected-attestation", &rejected, expect: .reject(.unknownCredential))
        }
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

    /// Records an attestation by `device`, its options changed by `edit`.
    mutating func attest(
        _ name: String, _ device: TestAppAttestDevice, expect: Expect = .accept,
        _ edit: (inout AppAttestationOptions) -> Void = { _ in }
    ) throws {
        var options = AppAttestationOptions()
        edit(&options)
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

    /// Records an assertion by `device`, its options changed by `edit`; with `challenge`, the
    /// ceremony names the challenge its client data begins with.
    mutating func assert(
        _ name: String, _ device: inout TestAppAttestDevice, challenge: Bool = false, expect: Expect = .accept,
        _ edit: (inout AppAssertionOptions) -> Void = { _ in }
    ) throws {
        var options = AppAssertionOptions()
        edit(&options)
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
