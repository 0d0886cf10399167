import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Replays the Android key attestation ceremonies of a `webauthn-ceremonies/1` file (kinds
/// `androidKeyAttestation` and `androidKeyAssertion`, the top-level `androidApps` and
/// `androidKeys` members; see `Fixtures/README.md`, "Android key attestation ceremonies").
enum AndroidKeyReplay {
    /// Whether a document is an Android key attestation file: it has an `androidApps` member, or
    /// a ceremony of an Android kind.
    static func isAndroidDocument(_ data: Data) -> Bool {
        guard let probe = DocumentProbe.of(data) else { return false }
        return probe.members.contains("androidApps") || probe.kinds.contains { AndroidCeremony.Kind(rawValue: $0) != nil }
    }

    /// Replays an Android key attestation file.
    /// - Throws: ``FixtureError`` when the file cannot be replayed.
    static func replay(_ data: Data, file: String) async throws -> [CeremonyResult] {
        let fixture = try Replayer.decodeDocument(
            AndroidKeyFixture.self, data, file: file, format: \.format, names: { $0.ceremonies.map(\.name) })
        let setup = try AndroidSetup(fixture: fixture, file: file)
        let service = AndroidKeyAttestationService(
            apps: setup.apps, policy: setup.policy, trustAnchors: setup.trustAnchors, statusList: setup.statusList,
            keys: InMemoryAndroidAppKeyStore(keys: setup.keys))
        var results: [CeremonyResult] = []
        for ceremony in fixture.ceremonies {
            results.append(try await run(ceremony, file: file, service: service, now: setup.now))
        }
        return results
    }

    private static func run(
        _ ceremony: AndroidCeremony, file: String, service: AndroidKeyAttestationService, now: Date
    ) async throws -> CeremonyResult {
        let receivedAt = ceremony.receivedAt ?? now
        let expect = ceremony.expect
        var mismatches: [String] = []
        func compare<T: Equatable>(_ name: String, _ expected: T?, _ actual: T?) {
            if let mismatch = AndroidExpectation.mismatch(name, expected, actual) { mismatches.append(mismatch) }
        }
        var trace = CeremonyTrace()
        var rejection: WebAuthnError?
        switch ceremony.payload {
        case .undecodable(let member, let reason):
            rejection = WebAuthnError(.malformed, "\(member): \(reason)")
        case .attestation(let chain, let challenge):
            // A recorded chain carries its own challenge: bound through attestationChallenge only.
            let report = try await service.attestationReport(
                certificateChain: chain, challenge: nil, attestationChallenge: challenge, now: receivedAt)
            trace = report.trace
            switch report.result {
            case .failure(let error): rejection = error
            case .success(let verified):
                compare("securityLevel", expect.securityLevel, verified.securityLevel)
                compare("keystoreSecurityLevel", expect.keystoreSecurityLevel, verified.keystoreSecurityLevel)
                compare("verifiedBootState", expect.verifiedBootState, verified.verifiedBootState)
                compare("deviceLocked", expect.deviceLocked, verified.deviceLocked)
                compare("packageName", expect.packageName, verified.key.packageName)
                compare("attestationVersion", expect.attestationVersion, verified.attestationVersion)
                compare("osVersion", expect.osVersion, verified.osVersion)
                compare("osPatchLevel", expect.osPatchLevel, verified.osPatchLevel)
                compare("keyId", expect.keyId, Base64URL.encode(verified.key.keyId))
            }
        case .assertion(let keyId, let counter, let signature, let signed):
            let report = try await service.assertionReport(
                keyId: keyId, counter: counter, signature: signature, challenge: nil, signedBytes: signed, now: receivedAt)
            trace = report.trace
            switch report.result {
            case .failure(let error): rejection = error
            case .success(let key): compare("counter", expect.counter, key.counter)
            }
        }
        return expect.result(file: file, name: ceremony.name, rejection: rejection, factMismatches: mismatches, trace: trace)
    }
}

/// The apps, policy, anchors, status list, clock and starting keys a file describes.
struct AndroidSetup {
    let apps: [AndroidApp]
    let policy: AndroidKeyAttestationPolicy
    let trustAnchors: [Certificate]
    let statusList: AndroidAttestationStatusList
    let keys: [AttestedAndroidKey]
    let now: Date

    init(fixture: AndroidKeyFixture, file: String) throws(FixtureError) {
        var apps: [AndroidApp] = []
        for (index, app) in fixture.androidApps.enumerated() {
            do {
                apps.append(try AndroidApp(packageName: app.packageName, sha256Fingerprint: app.sha256Fingerprint))
            } catch {
                throw FixtureError(file: file, member: "androidApps[\(index)].sha256Fingerprint", reason: error.message)
            }
        }
        self.apps = apps
        now = try FixtureTime.verificationTime(fixture.policy?.verificationTime, file: file)
        let spec = fixture.policy
        var levels: Set<AndroidSecurityLevel> = [.trustedEnvironment, .strongBox]
        if let names = spec?.securityLevels {
            levels = []
            for (index, name) in names.enumerated() {
                guard let level = AndroidSecurityLevel(rawValue: name) else {
                    throw FixtureError(
                        file: file, member: "policy.securityLevels[\(index)]",
                        reason: "must be \"software\", \"trustedEnvironment\" or \"strongBox\", is \"\(name)\"")
                }
                levels.insert(level)
            }
        }
        policy = AndroidKeyAttestationPolicy(
            securityLevels: levels, requireVerifiedBoot: spec?.requireVerifiedBoot ?? true,
            requireLockedBootloader: spec?.requireLockedBootloader ?? true, minimumOSVersion: spec?.minimumOSVersion,
            minimumPatchLevel: spec?.minimumPatchLevel)
        if let anchors = spec?.trustAnchors {
            trustAnchors = try FixtureError.trustAnchors(anchors, file: file)
        } else {
            trustAnchors = KnownAttestationRoots.googleHardwareAttestationRoots
        }
        if let list = spec?.statusList {
            do {
                statusList = try AndroidAttestationStatusList(jsonData: Data(list.utf8))
            } catch {
                throw FixtureError(file: file, member: "policy.statusList", reason: error.message)
            }
        } else {
            statusList = .snapshot
        }
        var keys: [AttestedAndroidKey] = []
        for (index, key) in (fixture.androidKeys ?? []).enumerated() {
            func bytes(_ text: String, _ name: String) throws(FixtureError) -> [UInt8] {
                try FixtureError.base64URL(text, file: file, member: "androidKeys[\(index)].\(name)")
            }
            keys.append(
                AttestedAndroidKey(
                    keyId: try bytes(key.keyId, "keyId"), publicKey: try bytes(key.publicKey, "publicKey"), counter: key.counter,
                    packageName: key.packageName))
        }
        self.keys = keys
    }
}

/// A `webauthn-ceremonies/1` document holding Android key attestation ceremonies.
struct AndroidKeyFixture: Decodable {
    struct AppSpec: Decodable {
        var packageName: String
        var sha256Fingerprint: String
    }

    struct PolicySpec: Decodable {
        var verificationTime: String?
        var trustAnchors: [String]?
        var securityLevels: [String]?
        var requireVerifiedBoot: Bool?
        var requireLockedBootloader: Bool?
        var minimumOSVersion: Int?
        var minimumPatchLevel: Int?
        /// A status list document, as Google serves it, in place of the shipped snapshot.
        var statusList: String?
    }

    struct KeySpec: Decodable {
        var keyId: String
        var publicKey: String
        var counter: UInt32
        var packageName: String
    }

    var format: String
    var description: String?
    var androidApps: [AppSpec]
    var policy: PolicySpec?
    var androidKeys: [KeySpec]?
    var ceremonies: [AndroidCeremony]
}

/// One `androidKeyAttestation` or `androidKeyAssertion` ceremony.
struct AndroidCeremony: Decodable {
    enum Kind: String { case androidKeyAttestation, androidKeyAssertion }

    enum Payload {
        /// The chain (DER, the key's certificate first) and the bytes `attestationChallenge` must hold.
        case attestation(chain: [[UInt8]], challenge: [UInt8])
        /// The key id, counter, signature and the signed layout rebuilt from the request.
        case assertion(keyId: [UInt8], counter: UInt32, signature: [UInt8], signed: [UInt8])
        /// A member that is not base64url: a `malformed` verdict, not a broken file.
        case undecodable(member: String, reason: String)
    }

    var name: String
    var kind: Kind
    var payload: Payload
    var expect: AndroidExpectation
    /// When the ceremony is verified (nil: `policy.verificationTime`).
    var receivedAt: Date?

    private enum CodingKeys: String, CodingKey {
        case name, kind, certificateChain, challenge, keyId, counter, signature, binding, method, path, body, expect, receivedAt
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let kindText = try container.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: kindText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "must be \"androidKeyAttestation\" or \"androidKeyAssertion\" in an Android file, is \"\(kindText)\"")
        }
        self.kind = kind
        expect = try container.decode(AndroidExpectation.self, forKey: .expect)
        receivedAt = try FixtureTime.decodeIfPresent(container, forKey: .receivedAt)
        func bytes(_ key: CodingKeys, _ text: String) -> Result<[UInt8], AndroidCeremony.Undecodable> {
            (try? Base64URL.decode(text)).map { .success($0) } ?? .failure(Undecodable(member: key.stringValue))
        }
        do {
            switch kind {
            case .androidKeyAttestation:
                let texts = try container.decode([String].self, forKey: .certificateChain)
                let chain = try texts.enumerated().map { try bytes(.certificateChain, $0.element).get() }
                payload = .attestation(
                    chain: chain, challenge: try bytes(.challenge, try container.decode(String.self, forKey: .challenge)).get())
            case .androidKeyAssertion:
                let counter = try container.decode(UInt32.self, forKey: .counter)
                let body = try bytes(.body, try container.decodeIfPresent(String.self, forKey: .body) ?? "").get()
                payload = .assertion(
                    keyId: try bytes(.keyId, try container.decode(String.self, forKey: .keyId)).get(), counter: counter,
                    signature: try bytes(.signature, try container.decode(String.self, forKey: .signature)).get(),
                    signed: AndroidKeyAssertion.signedBytes(
                        counter: counter, binding: try container.decode(String.self, forKey: .binding),
                        method: try container.decode(String.self, forKey: .method), path: try container.decode(String.self, forKey: .path),
                        body: body))
            }
        } catch let undecodable as Undecodable {
            payload = .undecodable(member: undecodable.member, reason: "is not base64url")
        }
    }

    private struct Undecodable: Error { var member: String }
}

/// The verdict an Android ceremony is held to, with the facts an accepted attestation must establish.
struct AndroidExpectation: Decodable, VerdictExpectation {
    var outcome: Expectation.Outcome
    var error: WebAuthnError.Category?
    var securityLevel: AndroidSecurityLevel?
    var keystoreSecurityLevel: AndroidSecurityLevel?
    var verifiedBootState: AndroidVerifiedBootState?
    var deviceLocked: Bool?
    var packageName: String?
    var attestationVersion: Int?
    var osVersion: Int?
    var osPatchLevel: Int?
    var keyId: String?
    var counter: UInt32?
}
