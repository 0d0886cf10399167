import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Replays the Apple App Attest ceremonies of a `webauthn-ceremonies/1` file (kinds
/// `appAttestation` and `appAssertion`, the top-level `app` and `appKeys` members; see the
/// fixture specification's "Apple App Attest ceremonies").
enum AppAttestReplay {
    /// Whether a document is an App Attest file: it has an `app` member, or a ceremony of an
    /// App Attest kind. Anything else (including what does not decode) is left to the WebAuthn path.
    static func isAppAttestDocument(_ data: Data) -> Bool {
        guard let probe = DocumentProbe.of(data) else { return false }
        return probe.members.contains("app") || probe.kinds.contains { AppCeremony.Kind(rawValue: $0) != nil }
    }

    /// Replays an App Attest file.
    /// - Throws: ``FixtureError`` when the file cannot be replayed.
    static func replay(_ data: Data, file: String) async throws -> [CeremonyResult] {
        let fixture = try Replayer.decodeDocument(
            AppAttestFixture.self, data, file: file, format: \.format,
            names: { $0.ceremonies.map(\.name) })
        let setup = try Setup(fixture: fixture, file: file)
        let challenges = InMemoryChallengeStore()
        let service = AppAttestService(
            app: setup.app, environment: setup.environment, trustAnchors: setup.trustAnchors,
            challenges: .stored(challenges), keys: InMemoryAppAttestKeyStore(keys: setup.keys))
        var results: [CeremonyResult] = []
        for ceremony in fixture.ceremonies {
            results.append(try await run(ceremony, file: file, service: service, challenges: challenges, setup: setup))
        }
        return results
    }

    /// The server's one-time challenge of a tracked ceremony (`issue` or `issuedAt` given), issued
    /// when the ceremony says so into the service's challenge store, as the service issues its
    /// own: the file's bytes after the App Attest tag, bound to this app, expiring at issue +
    /// lifetime. The service consumes it (`challenge` text: its stored form) whatever the verdict.
    /// - Returns: the challenge text to hand the service.
    private static func trackedChallenge(
        _ ceremony: AppCeremony, _ challenge: [UInt8], service: AppAttestService,
        challenges: InMemoryChallengeStore, setup: Setup
    ) async throws -> String {
        let stored = AppAttestService.storedChallengeTag + challenge
        if ceremony.issues {
            let issuedAt = ceremony.issuedAt ?? setup.now
            try await challenges.issue(
                service.issuedChallenge(stored, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(setup.challengeLifetime)),
                now: issuedAt)
        }
        return Base64URL.encode(stored)
    }

    private enum Outcome {
        case attested(VerifiedAppAttestation)
        case asserted(VerifiedAppAssertion)
        case rejected(WebAuthnError)
    }

    private static func run(
        _ ceremony: AppCeremony, file: String, service: AppAttestService,
        challenges: InMemoryChallengeStore, setup: Setup
    ) async throws -> CeremonyResult {
        var outcome: Outcome
        var trace = CeremonyTrace()
        // receivedAt is the verifier's clock for this ceremony: certificate validity and the challenge's age.
        let receivedAt = ceremony.receivedAt ?? setup.now
        // nil: the ceremony's challenge is not tracked (bound through the nonce, or step 6, only).
        var tracked: String?
        if ceremony.tracksChallenge, let challenge = ceremony.serverChallenge {
            tracked = try await trackedChallenge(ceremony, challenge, service: service, challenges: challenges, setup: setup)
        }
        switch ceremony.payload {
        case .undecodable(let member, let reason):
            // Every verdict consumes a tracked challenge; a refused one is the verdict.
            if let tracked, let refusal = try await service.consumeChallenge(tracked, now: receivedAt, trace: &trace) {
                outcome = .rejected(refusal)
            } else {
                outcome = .rejected(WebAuthnError(.malformed, "\(member): \(reason)"))
            }
        case .attestation(let keyId, let challenge, let attestation):
            // The file's app passes SHA-256 of the challenge bytes (not of their text) to attestKey.
            let report = try await service.attestationReport(
                keyId: keyId, attestation: attestation, challenge: tracked,
                clientDataHash: Digest.sha256.hash(challenge), now: receivedAt)
            trace = report.trace
            switch report.result {
            case .success(let verified): outcome = .attested(verified)
            case .failure(let error): outcome = .rejected(error)
            }
        case .assertion(let keyId, let clientData, let assertion, let challenge):
            // With the server's challenge given, Apple's step 6 is the library's: clientData begins with it.
            let report = try await service.assertionReport(
                keyId: keyId, assertion: assertion, clientData: clientData, challenge: tracked,
                check: challenge.map { AppAttestClientDataCheck.startsWith(challenge: $0) }, now: receivedAt)
            trace = report.trace
            switch report.result {
            case .success(let verified): outcome = .asserted(verified)
            case .failure(let error): outcome = .rejected(error)
            }
        }
        let expect = ceremony.expect
        var mismatches: [String] = []
        func compare<T: Equatable>(_ name: String, _ expected: T?, _ actual: T) {
            if let mismatch = AppExpectation.mismatch(name, expected, actual) { mismatches.append(mismatch) }
        }
        var rejection: WebAuthnError?
        switch outcome {
        case .rejected(let error):
            rejection = error
        case .attested(let verified):
            compare("environment", expect.environment, verified.key.environment)
            compare("trusted", expect.trusted, true)  // an accepted attestation always chains to an anchor
            compare("signCount", expect.signCount, verified.authenticatorData.signCount)
        case .asserted(let verified):
            compare("environment", expect.environment, verified.updatedKey.environment)
            compare("signCount", expect.signCount, verified.updatedKey.signCount)
        }
        return expect.result(file: file, name: ceremony.name, rejection: rejection, factMismatches: mismatches, trace: trace)
    }

    /// The app, environment, anchors, clock and starting keys a file describes.
    struct Setup {
        let app: AppleApp
        let environment: AppAttestEnvironment
        let trustAnchors: [Certificate]
        let keys: [AttestedAppKey]
        let now: Date
        /// Seconds a tracked challenge stays answerable after its `issuedAt`.
        let challengeLifetime: TimeInterval

        init(fixture: AppAttestFixture, file: String) throws(FixtureError) {
            app = AppleApp(teamId: fixture.app.teamId, bundleId: fixture.app.bundleId)
            if let text = fixture.app.environment {
                guard let parsed = AppAttestEnvironment(rawValue: text) else {
                    throw FixtureError(
                        file: file, member: "app.environment", reason: "must be \"production\" or \"development\", is \"\(text)\"")
                }
                environment = parsed
            } else {
                environment = .production
            }
            now = try FixtureTime.verificationTime(fixture.policy?.verificationTime, file: file)
            let lifetime = fixture.policy?.challengeLifetime ?? VerificationPolicy().challengeLifetime
            guard lifetime.isFinite, lifetime >= 0 else {
                throw FixtureError(
                    file: file, member: "policy.challengeLifetime",
                    reason: "is \(lifetime); it must be a finite number of seconds, 0 or more")
            }
            challengeLifetime = lifetime
            if let anchors = fixture.policy?.trustAnchors {
                trustAnchors = try FixtureError.trustAnchors(anchors, file: file)
            } else {
                trustAnchors = KnownAttestationRoots.appleAppAttestationRootCA.map { [$0] } ?? []
            }
            var keys: [AttestedAppKey] = []
            for (index, spec) in (fixture.appKeys ?? []).enumerated() {
                func bytes(_ text: String, _ name: String) throws(FixtureError) -> [UInt8] {
                    try FixtureError.base64URL(text, file: file, member: "appKeys[\(index)].\(name)")
                }
                let publicKey = try bytes(spec.publicKey, "publicKey")
                guard (try? COSEKey.fromU2FPublicKey(publicKey[...])) != nil else {
                    throw FixtureError(
                        file: file, member: "appKeys[\(index)].publicKey",
                        reason: "is not an uncompressed P-256 point (65 bytes, 04 ‖ x ‖ y)")
                }
                var keyEnvironment = environment
                if let text = spec.environment {
                    guard let parsed = AppAttestEnvironment(rawValue: text) else {
                        throw FixtureError(
                            file: file, member: "appKeys[\(index)].environment",
                            reason: "must be \"production\" or \"development\", is \"\(text)\"")
                    }
                    keyEnvironment = parsed
                }
                keys.append(
                    AttestedAppKey(
                        keyId: try bytes(spec.keyId, "keyId"), publicKey: publicKey,
                        signCount: spec.signCount,
                        receipt: try spec.receipt.map { (t: String) throws(FixtureError) in try bytes(t, "receipt") } ?? [],
                        environment: keyEnvironment))
            }
            self.keys = keys
        }
    }
}

/// A `webauthn-ceremonies/1` document holding App Attest ceremonies.
struct AppAttestFixture: Decodable {
    struct AppSpec: Decodable {
        var teamId: String
        var bundleId: String
        var environment: String?
    }

    struct PolicySpec: Decodable {
        var verificationTime: String?
        var trustAnchors: [String]?
        /// Seconds a tracked challenge stays answerable after `issuedAt` (default 300).
        var challengeLifetime: Double?
    }

    struct AppKeySpec: Decodable {
        var keyId: String
        var publicKey: String
        var signCount: UInt32
        var environment: String?
        var receipt: String?
    }

    var format: String
    var description: String?
    var app: AppSpec
    var policy: PolicySpec?
    var appKeys: [AppKeySpec]?
    var ceremonies: [AppCeremony]
}

/// One `appAttestation` or `appAssertion` ceremony.
struct AppCeremony: Decodable {
    enum Kind: String { case appAttestation, appAssertion }

    enum Payload {
        case attestation(keyId: [UInt8], challenge: [UInt8], attestation: [UInt8])
        /// `challenge`: the server's challenge `clientData` must begin with (Apple's step 6), when given.
        case assertion(keyId: [UInt8], clientData: [UInt8], assertion: [UInt8], challenge: [UInt8]?)
        /// A member that is not base64url: a `malformed` verdict, not a broken file.
        case undecodable(member: String, reason: String)
    }

    var name: String
    var kind: Kind
    var payload: Payload
    var expect: AppExpectation
    /// `issue`: true, the server issues this ceremony's challenge first; false, it does not (to
    /// replay a used challenge, or one never issued). nil: as `issuedAt` says.
    var issue: Bool?
    /// When the challenge was issued (nil: `policy.verificationTime`); given alone, it issues it.
    var issuedAt: Date?
    /// When the ceremony is verified (nil: `policy.verificationTime`).
    var receivedAt: Date?
    /// The challenge, bytes as given, even when another member is not base64url (nil: none or undecodable).
    var serverChallenge: [UInt8]?

    /// Whether the server tracks this ceremony's challenge (issued once, consumed by the ceremony):
    /// `issue` or `issuedAt` is given. Files without them bind the challenge through the nonce only.
    var tracksChallenge: Bool { issue != nil || issuedAt != nil }
    /// Whether the challenge is issued just before this ceremony.
    var issues: Bool { issue ?? (issuedAt != nil) }

    private enum CodingKeys: String, CodingKey {
        case name, kind, keyId, challenge, attestation, clientData, assertion, expect, issue, issuedAt, receivedAt
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let kindText = try container.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: kindText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "must be \"appAttestation\" or \"appAssertion\" in an App Attest file, is \"\(kindText)\"")
        }
        self.kind = kind
        expect = try container.decode(AppExpectation.self, forKey: .expect)
        issue = try container.decodeIfPresent(Bool.self, forKey: .issue)
        issuedAt = try FixtureTime.decodeIfPresent(container, forKey: .issuedAt)
        receivedAt = try FixtureTime.decodeIfPresent(container, forKey: .receivedAt)
        let keyIdText = try container.decode(String.self, forKey: .keyId)
        let (dataKey, objectKey): (CodingKeys, CodingKeys) =
            kind == .appAttestation ? (.challenge, .attestation) : (.clientData, .assertion)
        let dataText = try container.decode(String.self, forKey: dataKey)
        let objectText = try container.decode(String.self, forKey: objectKey)
        // An assertion's challenge is optional: without it the replay does not run Apple's step 6.
        let challengeText = kind == .appAssertion ? try container.decodeIfPresent(String.self, forKey: .challenge) : nil
        if kind == .appAssertion, challengeText == nil, issue != nil || issuedAt != nil {
            throw DecodingError.keyNotFound(
                CodingKeys.challenge,
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "an appAssertion whose challenge is tracked (issue or issuedAt) must name it in challenge"))
        }
        serverChallenge = (kind == .appAttestation ? dataText : challengeText).flatMap { try? Base64URL.decode($0) }
        var decoded: [[UInt8]] = []
        var members = [(CodingKeys.keyId, keyIdText), (dataKey, dataText), (objectKey, objectText)]
        if let challengeText { members.append((.challenge, challengeText)) }
        for (member, text) in members {
            do {
                decoded.append(try Base64URL.decode(text))
            } catch {
                payload = .undecodable(member: member.rawValue, reason: "is not base64url (\(error))")
                return
            }
        }
        payload =
            kind == .appAttestation
            ? .attestation(keyId: decoded[0], challenge: decoded[1], attestation: decoded[2])
            : .assertion(keyId: decoded[0], clientData: decoded[1], assertion: decoded[2], challenge: decoded.count > 3 ? decoded[3] : nil)
    }
}

/// The verdict an App Attest ceremony is held to.
struct AppExpectation: Decodable, VerdictExpectation {
    var outcome: Expectation.Outcome
    var error: WebAuthnError.Category?
    var environment: AppAttestEnvironment?
    var trusted: Bool?
    var signCount: UInt32?
}
