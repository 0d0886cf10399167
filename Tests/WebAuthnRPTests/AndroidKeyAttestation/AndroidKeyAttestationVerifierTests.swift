import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Android key attestation of an app key, check by check: a chain from the test device under a
/// test root is accepted with its facts, and every check refuses the one field made wrong, with
/// its category and its step.
@Suite("Android key attestation verifier")
struct AndroidKeyAttestationVerifierTests {
    static let now = TestCertificates.now
    static let challenge = Digest.sha256.hash(Array("the server's challenge".utf8))

    static func device(_ seed: String = "phone") throws -> TestAndroidDevice { try TestAndroidDevice(seed: seed) }

    static func verifier(
        _ device: TestAndroidDevice, policy: AndroidKeyAttestationPolicy = AndroidKeyAttestationPolicy(),
        statusList: AndroidAttestationStatusList = .snapshot, apps: [AndroidApp]? = nil
    ) throws -> AndroidKeyAttestationVerifier {
        AndroidKeyAttestationVerifier(
            apps: try apps ?? [device.app], policy: policy, trustAnchors: [device.root.certificate], statusList: statusList)
    }

    static func verify(
        _ chain: [[UInt8]], _ verifier: AndroidKeyAttestationVerifier, at time: Date = now
    ) throws(WebAuthnError) -> VerifiedAndroidKeyAttestation {
        var trace = CeremonyTrace()
        return try verifier.verifyAttestation(chain: chain, challenge: challenge, at: time, trace: &trace)
    }

    /// The refusal of `chain`, required to be of `category` at `step`.
    static func expectRefusal(
        _ chain: [[UInt8]], _ verifier: AndroidKeyAttestationVerifier, _ category: WebAuthnError.Category, at step: String,
        time: Date = now, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try verify(chain, verifier, at: time)
            Issue.record("accepted, expected \(category) at \(step)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.category == category, "\(error)", sourceLocation: sourceLocation)
            #expect(error.step == step, "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// The device's description with the fields of `tag` (in either list) replaced by `fields`.
    static func replacing(
        _ tag: UInt32, with fields: [[UInt8]], in description: TestKeyDescription, software: Bool = false
    ) throws
        -> TestKeyDescription
    {
        var edited = description
        func drop(_ list: [[UInt8]]) throws -> [[UInt8]] { try list.filter { try DER.parse($0).tag.number != tag } }
        edited.softwareEnforced = try drop(edited.softwareEnforced)
        edited.teeEnforced = try drop(edited.teeEnforced)
        if software { edited.softwareEnforced += fields } else { edited.teeEnforced += fields }
        return edited
    }

    @Test("a TEE key of the declared app on a locked, verified device is accepted with what it establishes")
    func accepted() throws {
        let phone = try Self.device()
        let verified = try Self.verify(try phone.chain(phone.keyDescription(challenge: Self.challenge)), try Self.verifier(phone))
        #expect(verified.key.keyId == phone.keyId)
        #expect(verified.key.counter == 0 && verified.key.packageName == "com.example.app")
        #expect(verified.key.publicKey.count == 65 && Digest.sha256.hash(verified.key.publicKey) == phone.keyId)
        #expect(verified.attestationVersion == 300)
        #expect(verified.securityLevel == .trustedEnvironment && verified.keystoreSecurityLevel == .trustedEnvironment)
        #expect(verified.verifiedBootState == .verified && verified.deviceLocked == true)
        #expect(verified.packageVersion == 42 && verified.signatureDigests == [phone.signingDigest])
        #expect(verified.osVersion == 150000 && verified.osPatchLevel == 202_510)
        #expect(verified.vendorPatchLevel == 20_251_005 && verified.bootPatchLevel == 20_251_005)
        #expect(verified.certificateChain.count == 3)
    }

    @Test("every step of an accepted attestation is in the trace, in order")
    func traceOrder() throws {
        let phone = try Self.device()
        var trace = CeremonyTrace()
        _ = try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumOSVersion: 140000, minimumPatchLevel: 202_501))
            .verifyAttestation(
                chain: try phone.chain(phone.keyDescription(challenge: Self.challenge)), challenge: Self.challenge, at: Self.now,
                trace: &trace)
        #expect(
            trace.rows.map(\.step) == [
                AndroidKeyStep.certificates, AndroidKeyStep.validity, AndroidKeyStep.chain, AndroidKeyStep.revocation,
                AndroidKeyStep.description, AndroidKeyStep.challenge, AndroidKeyStep.securityLevel, AndroidKeyStep.rootOfTrust,
                AndroidKeyStep.app, AndroidKeyStep.key, AndroidKeyStep.osVersion, AndroidKeyStep.patchLevel, AndroidKeyStep.established,
            ])
        #expect(trace.rows.allSatisfy { $0.outcome == "passed" })
    }

    @Test("a chain of one certificate, or bytes that are no certificate, is malformed")
    func certificates() throws {
        let phone = try Self.device()
        let chain = try phone.chain(phone.keyDescription(challenge: Self.challenge))
        let verifier = try Self.verifier(phone)
        Self.expectRefusal([chain[0]], verifier, .malformed, at: AndroidKeyStep.certificates)
        Self.expectRefusal([[0x30, 0x00]] + chain.dropFirst(), verifier, .malformed, at: AndroidKeyStep.certificates)
    }

    @Test("a certificate outside its validity period is trust, before the chain is built")
    func validity() throws {
        let phone = try Self.device()
        let chain = try phone.chain(phone.keyDescription(challenge: Self.challenge))
        Self.expectRefusal(
            chain, try Self.verifier(phone), .trust, at: AndroidKeyStep.validity, time: Self.now.addingTimeInterval(86_400 * 400))
        Self.expectRefusal(
            chain, try Self.verifier(phone), .trust, at: AndroidKeyStep.validity, time: Self.now.addingTimeInterval(-86_400 * 2))
    }

    @Test("a chain to another root is trust; Google's roots are the default anchors")
    func chain() throws {
        let phone = try Self.device()
        let rogue = try TestAndroidDevice(seed: "phone", root: TestAuthenticator.CA.make(name: "Rogue Root", seed: "rogue"))
        Self.expectRefusal(
            try rogue.chain(rogue.keyDescription(challenge: Self.challenge)), try Self.verifier(phone), .trust, at: AndroidKeyStep.chain)
        let service = AndroidKeyAttestationService(apps: [try phone.app])
        #expect(service.verifier.trustAnchors.map(\.derBytes) == KnownAttestationRoots.googleHardwareAttestationRoots.map(\.derBytes))
        #expect(service.verifier.trustAnchors.count == 5)
    }

    @Test("a certificate the status list names (revoked or suspended) is trust")
    func revocation() throws {
        let phone = try Self.device()
        let chain = try phone.chain(phone.keyDescription(challenge: Self.challenge))
        for status in ["REVOKED", "SUSPENDED"] {
            // The test batch key's serial is 2001 (hex); the list writes it in lowercase hex, leading zeros dropped.
            let list = try AndroidAttestationStatusList(
                jsonData: Data(#"{"entries": {"02001": {"status": "\#(status)", "reason": "KEY_COMPROMISE"}}}"#.utf8))
            Self.expectRefusal(chain, try Self.verifier(phone, statusList: list), .trust, at: AndroidKeyStep.revocation)
        }
        let other = try AndroidAttestationStatusList(jsonData: Data(#"{"entries": {"2002": {"status": "REVOKED"}}}"#.utf8))
        #expect(throws: Never.self) { try Self.verify(chain, try Self.verifier(phone, statusList: other)) }
    }

    @Test("no key description, one that does not parse, or one above the key's certificate is refused")
    func description() throws {
        let phone = try Self.device()
        let verifier = try Self.verifier(phone)
        let description = phone.keyDescription(challenge: Self.challenge)
        Self.expectRefusal(try phone.chain(description) { $0.extraExtensions = [] }, verifier, .attestation, at: AndroidKeyStep.description)
        let broken = CertificateExtension(oid: AndroidKeyDescription.extensionOID, isCritical: false, value: [0x30, 0x03, 0x02, 0x01])
        Self.expectRefusal(
            try phone.chain(description) { $0.extraExtensions = [broken] }, verifier, .malformed, at: AndroidKeyStep.description)
    }

    @Test("a key description above the key's certificate (a Keystore key used as a CA) is attestation")
    func descriptionAboveLeaf() throws {
        let phone = try Self.device()
        let key = try PrivateKey.derive(.p256, seed: "attested batch")
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Attested key as CA")]), publicKey: key.publicKey,
            notBefore: Self.now.addingTimeInterval(-86_400), notAfter: Self.now.addingTimeInterval(86_400 * 365))
        builder.issued(by: phone.root.certificate)
        builder.serialNumber = [0x30, 0x01]
        builder.basicConstraints = .init(isCA: true, pathLength: 0)
        builder.keyUsage = [.keyCertSign]
        builder.extraExtensions = [
            CertificateExtension(
                oid: AndroidKeyDescription.extensionOID, isCritical: false, value: phone.keyDescription(challenge: Self.challenge).der)
        ]
        let batch = TestAuthenticator.CA(key: key, certificate: try builder.sign(with: phone.root.key))
        let chain = try phone.chain(phone.keyDescription(challenge: Self.challenge), batch: batch)
        Self.expectRefusal(chain, try Self.verifier(phone), .attestation, at: AndroidKeyStep.description)
    }

    @Test("an attestation of another challenge is challenge")
    func challenge() throws {
        let phone = try Self.device()
        var description = phone.keyDescription(challenge: Self.challenge)
        description.challenge[0] ^= 1
        Self.expectRefusal(try phone.chain(description), try Self.verifier(phone), .challenge, at: AndroidKeyStep.challenge)
    }

    @Test("software attestation, a software keystore, an undefined level, or TEE where StrongBox is required is attestation")
    func securityLevel() throws {
        let phone = try Self.device()
        let verifier = try Self.verifier(phone)
        for (attestation, keystore) in [(0, 1), (1, 0), (0, 0), (3, 1), (1, 7)] {
            var description = phone.keyDescription(challenge: Self.challenge)
            description.attestationSecurityLevel = attestation
            description.keymasterSecurityLevel = keystore
            Self.expectRefusal(try phone.chain(description), verifier, .attestation, at: AndroidKeyStep.securityLevel)
        }
        let strongBoxOnly = try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(securityLevels: [.strongBox]))
        Self.expectRefusal(
            try phone.chain(phone.keyDescription(challenge: Self.challenge)), strongBoxOnly, .attestation, at: AndroidKeyStep.securityLevel)
        var strongBox = phone.keyDescription(challenge: Self.challenge)
        strongBox.attestationSecurityLevel = 2
        strongBox.keymasterSecurityLevel = 2
        #expect(try Self.verify(try phone.chain(strongBox), strongBoxOnly).securityLevel == .strongBox)
    }

    @Test("software attestation is accepted only when the policy lists it, its facts read from the software list")
    func softwareAllowed() throws {
        let phone = try Self.device()
        var description = phone.keyDescription(challenge: Self.challenge)
        description.attestationSecurityLevel = 0
        description.keymasterSecurityLevel = 0
        description.softwareEnforced += description.teeEnforced
        description.teeEnforced = []
        let policy = AndroidKeyAttestationPolicy(securityLevels: [.software, .trustedEnvironment])
        let verified = try Self.verify(try phone.chain(description), try Self.verifier(phone, policy: policy))
        #expect(verified.securityLevel == .software && verified.verifiedBootState == .verified)
    }

    @Test(
        "an unverified or failed boot, a self-signed OS, an unlocked bootloader or no root of trust is attestation; a lax policy accepts them"
    )
    func rootOfTrust() throws {
        let phone = try Self.device()
        let verifier = try Self.verifier(phone)
        let base = phone.keyDescription(challenge: Self.challenge)
        let key = [UInt8](repeating: 1, count: 32)
        for (locked, state) in [(true, 1), (true, 2), (true, 3), (false, 0), (false, 2)] {
            let edited = try Self.replacing(
                704, with: [TestKeyDescription.rootOfTrust(bootKey: key, locked: locked, state: state, bootHash: nil)], in: base)
            Self.expectRefusal(try phone.chain(edited), verifier, .attestation, at: AndroidKeyStep.rootOfTrust)
        }
        Self.expectRefusal(
            try phone.chain(try Self.replacing(704, with: [], in: base)), verifier, .attestation, at: AndroidKeyStep.rootOfTrust)
        // A TEE attestation's facts come from the TEE's list: a locked, verified root of trust in
        // softwareEnforced (written by the OS) does not cover an unlocked one in teeEnforced.
        var claimed = try Self.replacing(
            704, with: [TestKeyDescription.rootOfTrust(bootKey: key, locked: false, state: 2, bootHash: nil)], in: base)
        claimed.softwareEnforced.append(TestKeyDescription.rootOfTrust(bootKey: key, locked: true, state: 0, bootHash: nil))
        Self.expectRefusal(try phone.chain(claimed), verifier, .attestation, at: AndroidKeyStep.rootOfTrust)
        // Attestation version 2 ends the root of trust after the state: no boot hash.
        let unlocked = try Self.replacing(
            704, with: [TestKeyDescription.rootOfTrust(bootKey: key, locked: false, state: 2, bootHash: nil)], in: base)
        let lax = try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(requireVerifiedBoot: false, requireLockedBootloader: false))
        let verified = try Self.verify(try phone.chain(unlocked), lax)
        #expect(verified.verifiedBootState == .unverified && verified.deviceLocked == false)
        let onlyLocked = try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(requireVerifiedBoot: false))
        Self.expectRefusal(try phone.chain(unlocked), onlyLocked, .attestation, at: AndroidKeyStep.rootOfTrust)
    }

    @Test("another package, a debug-signed build, a key for all applications or no application id is attestation")
    func app() throws {
        let phone = try Self.device()
        let verifier = try Self.verifier(phone)
        let base = phone.keyDescription(challenge: Self.challenge)
        func withApplication(_ packages: [(name: String, version: Int)], _ digests: [[UInt8]]) throws -> [[UInt8]] {
            try phone.chain(
                try Self.replacing(
                    709, with: [TestKeyDescription.applicationId(packages: packages, digests: digests)], in: base, software: true))
        }
        Self.expectRefusal(
            try withApplication([("com.example.other", 1)], [phone.signingDigest]), verifier, .attestation, at: AndroidKeyStep.app)
        Self.expectRefusal(
            try withApplication([("com.example.app", 1)], [Digest.sha256.hash(Array("debug".utf8))]), verifier, .attestation,
            at: AndroidKeyStep.app)
        Self.expectRefusal(try phone.chain(try Self.replacing(709, with: [], in: base)), verifier, .attestation, at: AndroidKeyStep.app)
        let garbled = TestKeyDescription.field(709, DEREncoder.octetString([0x30, 0x00]))
        Self.expectRefusal(
            try phone.chain(try Self.replacing(709, with: [garbled], in: base, software: true)), verifier, .malformed,
            at: AndroidKeyStep.app)
        var everyone = base
        everyone.teeEnforced.append(TestKeyDescription.allApplications)
        Self.expectRefusal(try phone.chain(everyone), verifier, .attestation, at: AndroidKeyStep.app)
        // A package sharing its user id with the declared app, both signed alike: the declared one is matched.
        let shared = try Self.verify(
            try withApplication([("com.example.helper", 3), ("com.example.app", 9)], [phone.signingDigest]), verifier)
        #expect(shared.key.packageName == "com.example.app" && shared.packageVersion == 9)
    }

    @Test("a key that does not only sign, is not EC P-256, or was imported is attestation")
    func key() throws {
        let phone = try Self.device()
        let verifier = try Self.verifier(phone)
        let base = phone.keyDescription(challenge: Self.challenge)
        for purposes in [[3], [2, 1], [2, 7], []] {
            Self.expectRefusal(
                try phone.chain(try Self.replacing(1, with: [TestKeyDescription.purposes(purposes)], in: base)), verifier, .attestation,
                at: AndroidKeyStep.key)
        }
        Self.expectRefusal(try phone.chain(try Self.replacing(1, with: [], in: base)), verifier, .attestation, at: AndroidKeyStep.key)
        for (tag, value) in [(UInt32(2), 1), (10, 2), (702, 2), (702, 3)] {
            Self.expectRefusal(
                try phone.chain(try Self.replacing(tag, with: [TestKeyDescription.integer(tag, value)], in: base)), verifier, .attestation,
                at: AndroidKeyStep.key)
        }
        Self.expectRefusal(try phone.chain(try Self.replacing(702, with: [], in: base)), verifier, .attestation, at: AndroidKeyStep.key)
        Self.expectRefusal(
            try phone.chain(base, key: try PrivateKey.derive(.p384, seed: "p384")), verifier, .attestation, at: AndroidKeyStep.key)
        // SIGN with VERIFY is what KeyProperties.PURPOSE_SIGN | PURPOSE_VERIFY asks for: accepted.
        #expect(throws: Never.self) {
            try Self.verify(try phone.chain(try Self.replacing(1, with: [TestKeyDescription.purposes([2, 3])], in: base)), verifier)
        }
    }

    @Test("an OS version or patch level below the policy's minimum, or not stated, is attestation")
    func versions() throws {
        let phone = try Self.device()
        let base = phone.keyDescription(challenge: Self.challenge)
        let chain = try phone.chain(base)
        Self.expectRefusal(
            chain, try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumOSVersion: 160000)), .attestation,
            at: AndroidKeyStep.osVersion)
        Self.expectRefusal(
            try phone.chain(try Self.replacing(705, with: [], in: base)),
            try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumOSVersion: 1)),
            .attestation, at: AndroidKeyStep.osVersion)
        Self.expectRefusal(
            chain, try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumPatchLevel: 202_511)), .attestation,
            at: AndroidKeyStep.patchLevel)
        Self.expectRefusal(
            try phone.chain(try Self.replacing(706, with: [], in: base)),
            try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumPatchLevel: 1)), .attestation, at: AndroidKeyStep.patchLevel
        )
        #expect(throws: Never.self) {
            try Self.verify(
                chain, try Self.verifier(phone, policy: AndroidKeyAttestationPolicy(minimumOSVersion: 150000, minimumPatchLevel: 202_510)))
        }
    }
}
