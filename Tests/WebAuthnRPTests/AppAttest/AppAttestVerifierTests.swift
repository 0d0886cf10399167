import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// App Attest verification, one test per Apple step: each rejection is produced by the test
/// device with exactly one thing wrong, so it fails only when that step's check is missing.
@Suite("App Attest verifier")
struct AppAttestVerifierTests {
    static let app = AppleApp(teamId: "0352187391", bundleId: "com.example.app")
    static let now = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01
    static let authority = try! TestAppAttestDevice.Authority.make(seed: "unit app attest root")
    static let rogue = try! TestAppAttestDevice.Authority.make(name: "Rogue", seed: "unit rogue root")
    static let challenge = Array("server challenge 1".utf8)

    static func device(_ seed: String = "unit phone", _ environment: AppAttestEnvironment = .production) throws -> TestAppAttestDevice {
        try TestAppAttestDevice(seed: seed, app: app, environment: environment, authority: authority)
    }

    static func verifier(_ environment: AppAttestEnvironment = .production) -> AppAttestVerifier {
        AppAttestVerifier(app: app, environment: environment, trustAnchors: [authority.root.certificate])
    }

    /// Verifies an attestation built with `edit`, returning the error's category and step.
    static func attestationFailure(
        _ environment: AppAttestEnvironment = .production, keyId: [UInt8]? = nil,
        verifier: AppAttestVerifier? = nil, at time: Date = now,
        _ edit: (inout TestAppAttestDevice.AttestationOptions) -> Void
    ) throws -> WebAuthnError? {
        let phone = try device("unit phone", environment)
        var options = TestAppAttestDevice.AttestationOptions()
        edit(&options)
        let object = try phone.attest(challenge: challenge, options)
        do {
            _ = try (verifier ?? Self.verifier(environment)).verifyAttestation(
                object, keyId: keyId ?? phone.keyId,
                challenge: challenge, at: time)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Attestation accepted

    @Test("a production attestation verifies: key id, uncompressed point, counter 0, receipt, environment, chain")
    func acceptsProduction() throws {
        let phone = try Self.device()
        let object = try phone.attest(challenge: Self.challenge)
        var trace = CeremonyTrace()
        let verified = try Self.verifier().verifyAttestation(
            object, keyId: phone.keyId,
            clientDataHash: Digest.sha256.hash(Self.challenge), at: Self.now, trace: &trace)
        #expect(verified.key.keyId == phone.keyId)
        #expect(verified.key.publicKey == phone.publicPoint && verified.key.publicKey.count == 65)
        #expect(verified.key.signCount == 0)
        #expect(verified.key.environment == .production)
        #expect(!verified.key.receipt.isEmpty)
        #expect(verified.certificateChain.count == 3)
        #expect(verified.certificateChain.last?.derBytes == Self.authority.root.certificate.derBytes)
        let steps = trace.steps.map(\.step)
        #expect(steps == ["App Attest attestation object"] + (1...9).map { "App Attest attestation step \($0)" })
    }

    @Test("a development attestation verifies under the development environment only")
    func acceptsDevelopment() throws {
        let phone = try Self.device("dev phone", .development)
        let object = try phone.attest(challenge: Self.challenge)
        let verified = try Self.verifier(.development).verifyAttestation(
            object, keyId: phone.keyId, challenge: Self.challenge, at: Self.now)
        #expect(verified.key.environment == .development)
        #expect(throws: WebAuthnError(.attestation, "")) {
            try Self.verifier(.production).verifyAttestation(object, keyId: phone.keyId, challenge: Self.challenge, at: Self.now)
        }
    }

    @Test("an app's own clientDataHash verifies through the clientDataHash entry point only")
    func acceptsAppsOwnClientDataHash() throws {
        // Apple's published sample passes its challenge to attestKey unhashed; an app may as well
        // pass a hash of a whole request. The nonce then commits to exactly those bytes.
        let phone = try Self.device()
        let unhashed = Array("example_server_challenge".utf8)
        let object = try phone.attest(clientDataHash: unhashed)
        let verified = try Self.verifier().verifyAttestation(object, keyId: phone.keyId, clientDataHash: unhashed, at: Self.now)
        #expect(verified.key.keyId == phone.keyId)
        for wrong in [Digest.sha256.hash(unhashed), Array(unhashed.dropLast())] {
            #expect(throws: WebAuthnError(.attestation, "")) {
                try Self.verifier().verifyAttestation(object, keyId: phone.keyId, clientDataHash: wrong, at: Self.now)
            }
        }
        // the challenge entry point hashes what it is given, so the same bytes fail there (step 4)
        let asChallenge = #expect(throws: WebAuthnError.self) {
            try Self.verifier().verifyAttestation(object, keyId: phone.keyId, challenge: unhashed, at: Self.now)
        }
        #expect(
            asChallenge?.category == .attestation && asChallenge?.message.contains("nonce") == true,
            "\(String(describing: asChallenge))")
    }

    // MARK: Attestation steps

    @Test("step 1: a chain to another root, the default Apple root, or an expired time is trust")
    func step1Chain() throws {
        let rogue = try Self.attestationFailure { $0.authority = Self.rogue }
        #expect(rogue?.category == .trust && rogue?.step == "App Attest attestation step 1")
        let apple = try Self.attestationFailure(verifier: AppAttestService(app: Self.app, environment: .production).verifier) { _ in }
        #expect(apple?.category == .trust)
        let late = try Self.attestationFailure(at: Self.now.addingTimeInterval(86_400 * 365 * 20)) { _ in }
        #expect(late?.category == .trust)
        let swapped = try Self.attestationFailure { $0.x5c = { $0[1] = Self.rogue.intermediate.derBytes } }
        #expect(swapped?.category == .trust)
    }

    @Test("step 1: x5c needs credCert and the intermediate")
    func step1Shape() throws {
        let leafOnly = try Self.attestationFailure { $0.x5c = { $0 = [$0[0]] } }
        #expect(leafOnly?.category == .attestation)
        let notBytes = try Self.attestationFailure { $0.statement = { $0[0].1 = .array([.int(1), .int(2)]) } }
        #expect(notBytes?.category == .attestation)
        let truncated = try Self.attestationFailure { $0.x5c = { $0[0] = Array($0[0].prefix(30)) } }
        #expect(truncated?.category == .malformed)
    }

    @Test("step 1: x5c may hold at most 16 certificates (a bound of this library, not Apple's)")
    func step1ChainLength() throws {
        // Repeating the intermediate leaves the chain valid, so only the count decides.
        #expect(try Self.attestationFailure { $0.x5c = { $0 += Array(repeating: $0[1], count: 14) } } == nil)
        let long = try Self.attestationFailure { $0.x5c = { $0 += Array(repeating: $0[1], count: 15) } }
        #expect(long?.category == .attestation)
        #expect(long?.message.contains("17 certificates, more than 16") == true, "\(String(describing: long))")
    }

    @Test("step 4: the nonce must equal SHA-256(authData ‖ SHA-256(challenge))")
    func step4Nonce() throws {
        let wrong = try Self.attestationFailure { $0.nonce = { $0[5] ^= 0x20 } }
        #expect(wrong?.category == .attestation && wrong?.step == "App Attest attestation step 4")
        // the challenge is hashed: passing the hash itself as the challenge fails
        let phone = try Self.device()
        let object = try phone.attest(challenge: Self.challenge)
        #expect(throws: WebAuthnError(.attestation, "")) {
            try Self.verifier().verifyAttestation(object, keyId: phone.keyId, challenge: Digest.sha256.hash(Self.challenge), at: Self.now)
        }
    }

    @Test("step 4: the extension is strictly SEQUENCE { [1] EXPLICIT OCTET STRING (32) }")
    func step4ExtensionShape() throws {
        func with(_ value: [UInt8]) throws -> WebAuthnError? {
            try Self.attestationFailure { options in
                options.certificate = {
                    $0.extraExtensions = [CertificateExtension(oid: "1.2.840.113635.100.8.2", isCritical: false, value: value)]
                }
            }
        }
        let nonce = [UInt8](repeating: 9, count: 32)
        #expect(try Self.attestationFailure { $0.certificate = { $0.extraExtensions = [] } }?.category == .attestation)
        #expect(try with(DEREncoder.sequence([DEREncoder.octetString(nonce)]))?.category == .attestation)
        #expect(try with(DEREncoder.sequence([DEREncoder.explicit(2, DEREncoder.octetString(nonce))]))?.category == .attestation)
        #expect(
            try with(DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(Array(nonce.prefix(31))))]))?.category
                == .attestation)
        #expect(
            try with(DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce)), DEREncoder.integer(1)]))?.category
                == .attestation)
        #expect(try with(DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce))]) + [0])?.category == .attestation)
    }

    @Test("step 5: SHA-256 of credCert's key must be the key id")
    func step5KeyId() throws {
        let other = try Self.device("other phone")
        let wrongId = try Self.attestationFailure(keyId: other.keyId) { _ in }
        #expect(wrongId?.category == .attestation && wrongId?.step == "App Attest attestation step 5")
        let wrongKey = try Self.attestationFailure { $0.certifiedKey = other.privateKey }
        #expect(wrongKey?.step == "App Attest attestation step 5")
    }

    @Test("step 6: rpIdHash must be SHA-256 of teamId.bundleId")
    func step6RpIdHash() throws {
        for appId in ["0352187391.com.example.other", "com.example.app", "0352187391com.example.app"] {
            let failure = try Self.attestationFailure { $0.appId = appId }
            #expect(failure?.category == .rpIdHash && failure?.step == "App Attest attestation step 6", "\(appId)")
        }
        #expect(Self.app.rpIdHash == Digest.sha256.hash(Array("0352187391.com.example.app".utf8)))
    }

    @Test("step 7: the counter must be 0")
    func step7Counter() throws {
        let failure = try Self.attestationFailure { $0.signCount = 1 }
        #expect(failure?.category == .attestation && failure?.step == "App Attest attestation step 7")
    }

    @Test("step 8: the AAGUID must be the configured environment's")
    func step8AAGUID() throws {
        let dev = try Self.attestationFailure { $0.aaguid = AppAttestEnvironment.development.aaguid }
        #expect(dev?.category == .attestation && dev?.step == "App Attest attestation step 8")
        let prod = try Self.attestationFailure(.development) { $0.aaguid = AppAttestEnvironment.production.aaguid }
        #expect(prod?.step == "App Attest attestation step 8")
        let zero = try Self.attestationFailure { $0.aaguid = [UInt8](repeating: 0, count: 16) }
        #expect(zero?.step == "App Attest attestation step 8")
        #expect(AppAttestEnvironment.production.aaguid == Array("appattest".utf8) + [0, 0, 0, 0, 0, 0, 0])
        #expect(AppAttestEnvironment.development.aaguid == Array("appattestdevelop".utf8))
    }

    @Test("steps 8-9: authData without attested credential data has no AAGUID or credential id: attestation")
    func step8NoAttestedData() throws {
        let failure = try Self.attestationFailure { $0.omitAttestedCredentialData = true }
        #expect(failure?.category == .attestation && failure?.step == "App Attest attestation step 8")
    }

    @Test("step 9: the credential id must be the key id")
    func step9CredentialId() throws {
        let failure = try Self.attestationFailure { $0.credentialId = Array($0.credentialId ?? []) + [UInt8](repeating: 1, count: 32) }
        #expect(failure?.category == .attestation && failure?.step == "App Attest attestation step 9")
    }

    @Test("the object: fmt apple-appattest, a receipt, parseable CBOR and attested credential data")
    func attestationObjectShape() throws {
        #expect(try Self.attestationFailure { $0.format = "apple" }?.category == .attestation)
        #expect(try Self.attestationFailure { $0.statement = { $0.removeAll { $0.0.text == "receipt" } } }?.category == .attestation)
        #expect(try Self.attestationFailure { $0.object = { $0.append(0) } }?.category == .malformed)
        #expect(try Self.attestationFailure { $0.object = { $0 = Array($0.prefix(100)) } }?.category == .malformed)
        // The receipt is kept with the key unverified, so it is bounded: 64 KiB passes, one byte more does not.
        func receipt(_ count: Int) -> (inout [(CBORItem, CBORItem)]) -> Void {
            { entries in
                entries.removeAll { $0.0.text == "receipt" }
                entries.append((.text("receipt"), .bytes([UInt8](repeating: 0x30, count: count)[...])))
            }
        }
        #expect(try Self.attestationFailure { $0.statement = receipt(65_536) } == nil)
        let large = try Self.attestationFailure { $0.statement = receipt(65_537) }
        #expect(large?.category == .attestation && large?.message.contains("more than 65536") == true)
        // a statement with alg/sig members still verifies: App Attest has none, extra members are ignored
        #expect(try Self.attestationFailure { $0.statement = { $0.append((.text("alg"), .int(-7))) } } == nil)
    }

    @Test("a recent device's attestation verifies: a map after the credential key with the ED flag clear")
    func attestationWithDeviceExtensions() throws {
        let phone = try Self.device()
        var options = TestAppAttestDevice.AttestationOptions()
        options.unannouncedAuthDataTail = TestAppAttestDevice.AttestationOptions.deviceAuthDataExtensions
        let object = try phone.attest(challenge: Self.challenge, options)
        let verified = try Self.verifier().verifyAttestation(object, keyId: phone.keyId, challenge: Self.challenge, at: Self.now)
        #expect(verified.key.keyId == phone.keyId)
        #expect(!verified.authenticatorData.flags.contains(.extensionData))
        let map = try #require(verified.authenticatorData.extensions?.mapEntries)
        #expect(map.compactMap(\.key.text) == ["apple_bundle_version_01", "apple_validation_category_01"])
    }

    @Test("after the credential key only one CBOR map may follow: other bytes, or a map and more, are malformed")
    func attestationTailOtherThanOneMap() throws {
        let map = TestAppAttestDevice.AttestationOptions.deviceAuthDataExtensions
        for tail: [UInt8] in [[0x00], [0x61, 0x78], map + [0x00], map + map, Array(map.dropLast())] {
            let failure = try Self.attestationFailure { $0.unannouncedAuthDataTail = tail }
            #expect(failure?.category == .malformed, "tail \(tail.count) bytes: \(String(describing: failure))")
        }
        // WebAuthn authenticator data still refuses the same map when ED is clear.
        let phone = try Self.device()
        let authData =
            TestAuthData(rpId: Self.app.appID, flags: [], credentialKey: try phone.privateKey.coseKey(algorithm: .es256)).bytes + map
        #expect(throws: WebAuthnError(.malformed, "")) { try AuthenticatorData(bytes: authData) }
        #expect(try AuthenticatorData(bytes: authData[...], unannouncedExtensions: .acceptedAsOneMap).extensions != nil)
    }

    // MARK: Assertion

    static func attested(_ seed: String = "assert phone") throws -> (TestAppAttestDevice, AttestedAppKey) {
        let phone = try device(seed)
        let verified = try verifier().verifyAttestation(
            try phone.attest(challenge: challenge), keyId: phone.keyId,
            challenge: challenge, at: now)
        return (phone, verified.key)
    }

    static func assertionFailure(_ edit: (inout TestAppAttestDevice.AssertionOptions) -> Void) throws -> WebAuthnError? {
        var (phone, key) = try attested()
        var options = TestAppAttestDevice.AssertionOptions()
        edit(&options)
        let clientData = Array("request".utf8)
        let assertion = try phone.assert(clientData: clientData, options)
        do {
            _ = try verifier().verifyAssertion(assertion, clientData: clientData, key: key)
            return nil
        } catch {
            return error
        }
    }

    @Test("an assertion verifies and reports the new counter")
    func acceptsAssertion() throws {
        var (phone, key) = try Self.attested()
        var trace = CeremonyTrace()
        let verified = try Self.verifier().verifyAssertion(
            try phone.assert(clientData: [1, 2, 3]), clientData: [1, 2, 3],
            key: key, trace: &trace)
        #expect(verified.updatedKey.signCount == 1)
        #expect(
            trace.steps.map(\.step) == ["App Attest assertion object", "App Attest key"]
                + (1...5).map { "App Attest assertion step \($0)" })
    }

    @Test("a stored key of the other environment is refused before its signature counts")
    func assertionKeyEnvironment() throws {
        let attested = try Self.attested()
        var phone = attested.0
        let key = attested.1
        let assertion = try phone.assert(clientData: [5])
        let development = AttestedAppKey(
            keyId: key.keyId, publicKey: key.publicKey, signCount: key.signCount,
            receipt: key.receipt, environment: .development)
        do {
            _ = try Self.verifier().verifyAssertion(assertion, clientData: [5], key: development)
            Issue.record("a development key verified under the production verifier")
        } catch {
            #expect(error.category == .attestation && error.step == "App Attest key")
        }
        // The same key and assertion pass where the environments agree.
        let developmentVerifier = Self.verifier(.development)
        #expect(try developmentVerifier.verifyAssertion(assertion, clientData: [5], key: development).updatedKey.signCount == 1)
        #expect(try Self.verifier().verifyAssertion(assertion, clientData: [5], key: key).updatedKey.signCount == 1)
    }

    @Test("step 3: the signature must verify over the nonce with the stored key")
    func assertionStep3() throws {
        let otherData = try Self.assertionFailure { $0.signedClientData = Array("other".utf8) }
        #expect(otherData?.category == .signature && otherData?.step == "App Attest assertion step 3")
        let otherKey = try Self.assertionFailure { $0.signingKey = try? PrivateKey.derive(.p256, seed: "intruder") }
        #expect(otherKey?.category == .signature)
        let notDER = try Self.assertionFailure { $0.signature = { $0 = Array($0.dropLast()) } }
        #expect(notDER?.category == .signature)
    }

    @Test("step 4: rpIdHash must be the App ID's")
    func assertionStep4() throws {
        let failure = try Self.assertionFailure { $0.appId = "0352187391.com.example.other" }
        #expect(failure?.category == .rpIdHash && failure?.step == "App Attest assertion step 4")
    }

    @Test("step 5: the counter must be greater than the stored one")
    func assertionStep5() throws {
        let zero = try Self.assertionFailure { $0.signCount = 0 }
        #expect(zero?.category == .signCount && zero?.step == "App Attest assertion step 5")
        var (phone, key) = try Self.attested()
        key.signCount = 9
        var options = TestAppAttestDevice.AssertionOptions()
        options.signCount = 9
        #expect(throws: WebAuthnError(.signCount, "")) {
            try Self.verifier().verifyAssertion(try phone.assert(clientData: [7], options), clientData: [7], key: key)
        }
    }

    @Test("the assertion object: exactly {signature, authenticatorData}, at least 37 bytes of authenticator data")
    func assertionShape() throws {
        #expect(
            try Self.assertionFailure {
                $0.object = {
                    $0[0] = 0xa3; $0 += [0x61, 0x78, 0x00]
                }
            }?.category == .malformed)
        #expect(try Self.assertionFailure { $0.object = { $0 = Array($0.dropLast()) } }?.category == .malformed)
        #expect(try Self.assertionFailure { $0.object = { $0 = [0xa0] } }?.category == .malformed)
        let (_, key) = try Self.attested()
        let short = CBOREncoder.encode(
            CBORItem.map([
                (.text("signature"), .bytes([0x30, 0])),
                (.text("authenticatorData"), .bytes([UInt8](repeating: 0, count: 36))),
            ]))
        #expect(throws: WebAuthnError(.malformed, "")) { try Self.verifier().verifyAssertion(short, clientData: [], key: key) }
    }

    @Test("a device's assertion shape verifies: AT flag set without attested data, then an extensions map")
    func assertionWithDeviceFlags() throws {
        let (phone, key) = try Self.attested()
        let extensions = CBOREncoder.encode(CBORItem.map([(.text("apple_bundle_version_01"), .text("1314"))]))
        let authData = Self.app.rpIdHash + [0xC0, 0, 0, 0, 1] + extensions
        let clientData = Array("ABCDE".utf8)
        let signature = try phone.privateKey.sign(Digest.sha256.hash(authData + Digest.sha256.hash(clientData)), algorithm: .es256)
        let assertion = CBOREncoder.encode(
            CBORItem.map([(.text("signature"), .bytes(signature)), (.text("authenticatorData"), .bytes(authData))]))
        let verified = try Self.verifier().verifyAssertion(assertion, clientData: clientData, key: key)
        #expect(verified.updatedKey.signCount == 1)
        #expect(verified.authenticatorData.flags.rawValue == 0xC0)
    }

    // MARK: Caches

    @Test("through a cache: the verdicts of the uncached verifier, a known key built once, and a key never served for another point")
    func cachedVerifierAgrees() throws {
        let cache = VerificationCache()
        let cached = AppAttestVerifier(
            app: Self.app, environment: .production, trustAnchors: [Self.authority.root.certificate],
            cache: cache)
        // Attestations: two phones share the intermediate, parsed once; the verdicts are the uncached ones.
        var phone = try Self.device("cache phone")
        let other = try Self.device("other cache phone")
        var keys: [AttestedAppKey] = []
        for device in [phone, other] {
            let object = try device.attest(challenge: Self.challenge)
            let plain = try Self.verifier().verifyAttestation(object, keyId: device.keyId, challenge: Self.challenge, at: Self.now)
            let viaCache = try cached.verifyAttestation(object, keyId: device.keyId, challenge: Self.challenge, at: Self.now)
            #expect(viaCache.key == plain.key && viaCache.certificateChain.map(\.derBytes) == plain.certificateChain.map(\.derBytes))
            keys.append(viaCache.key)
        }
        #expect(throws: WebAuthnError(.trust, "")) {
            var options = TestAppAttestDevice.AttestationOptions()
            options.authority = Self.rogue
            _ = try cached.verifyAttestation(
                try phone.attest(challenge: Self.challenge, options), keyId: phone.keyId,
                challenge: Self.challenge, at: Self.now)
        }
        // Assertions: the key is built on the first and found on the next.
        var key = keys[0]
        #expect(cache.keys.key(forPoint: key.publicKey) == nil)
        for n in 1...3 {
            let clientData = Array("order \(n)".utf8)
            let assertion = try phone.assert(clientData: clientData)
            let plain = try Self.verifier().verifyAssertion(assertion, clientData: clientData, key: key)
            let viaCache = try cached.verifyAssertion(assertion, clientData: clientData, key: key)
            #expect(viaCache.updatedKey == plain.updatedKey)
            #expect(cache.keys.key(forPoint: key.publicKey) != nil)
            key = viaCache.updatedKey
        }
        // The cache holds phone's key; an assertion of phone's checked against the other key's
        // point is still refused (the cache is keyed by the point, so it cannot serve phone's key).
        let stray = try phone.assert(clientData: [9])
        let mislabelled = AttestedAppKey(keyId: key.keyId, publicKey: keys[1].publicKey, signCount: key.signCount, environment: .production)
        for verifier in [Self.verifier(), cached] {
            #expect(throws: WebAuthnError(.signature, "")) { try verifier.verifyAssertion(stray, clientData: [9], key: mislabelled) }
        }
        // A stored point that is not one is malformed, cached or not.
        let broken = AttestedAppKey(
            keyId: key.keyId, publicKey: Array(key.publicKey.dropLast()), signCount: key.signCount, environment: .production)
        for verifier in [Self.verifier(), cached] {
            #expect(throws: WebAuthnError(.malformed, "")) { try verifier.verifyAssertion(stray, clientData: [9], key: broken) }
        }
    }

    // MARK: Root

    @Test("Apple's App Attestation Root CA is embedded, parses and has the published fingerprint")
    func appleRoot() throws {
        let root = try #require(KnownAttestationRoots.appleAppAttestationRootCA)
        let hex = Digest.sha256.hash(root.derBytes).map { String(format: "%02x", $0) }.joined()
        // As published with https://www.apple.com/certificateauthority/Apple_App_Attestation_Root_CA.pem.
        #expect(hex == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
        #expect(root.subject.description.contains("Apple App Attestation Root CA"))
        #expect(AppAttestService(app: Self.app, environment: .production).verifier.trustAnchors.map(\.derBytes) == [root.derBytes])
    }
}

/// The verifier's calls as the tests make them: without a trace, or from the challenge itself.
extension AppAttestVerifier {
    func verifyAttestation(
        _ attestation: [UInt8], keyId: [UInt8], challenge: [UInt8],
        at time: Date
    ) throws(WebAuthnError) -> VerifiedAppAttestation {
        try verifyAttestation(attestation, keyId: keyId, clientDataHash: Digest.sha256.hash(challenge), at: time)
    }

    func verifyAttestation(
        _ attestation: [UInt8], keyId: [UInt8], clientDataHash: [UInt8],
        at time: Date
    ) throws(WebAuthnError) -> VerifiedAppAttestation {
        var trace = CeremonyTrace(recording: false)
        return try verifyAttestation(attestation, keyId: keyId, clientDataHash: clientDataHash, at: time, trace: &trace)
    }

    func verifyAssertion(_ assertion: [UInt8], clientData: [UInt8], key: AttestedAppKey) throws(WebAuthnError) -> VerifiedAppAssertion {
        var trace = CeremonyTrace(recording: false)
        return try verifyAssertion(assertion, clientData: clientData, key: key, trace: &trace)
    }
}
