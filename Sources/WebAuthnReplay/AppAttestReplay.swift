import Foundation
import WebAuthnRP
import WebAuthnCoding
import WebAuthnCrypto

/// Replays the Apple App Attest ceremonies of a `webauthn-ceremonies/1` file (kinds
/// `appAttestation` and `appAssertion`, the top-level `app` and `appKeys` members; see the
/// fixture specification's "Apple App Attest ceremonies").
enum AppAttestReplay {
    /// Whether a document is an App Attest file: it has an `app` member, or a ceremony of an
    /// App Attest kind. Anything else (including what does not decode) is left to the WebAuthn path.
    static func isAppAttestDocument(_ data: Data) -> Bool {
        guard let probe = try? JSONDecoder().decode(Probe.self, from: data) else { return false }
        return probe.hasApp || probe.kinds.contains { AppCeremony.Kind(rawValue: $0) != nil }
    }

    /// Replays an App Attest file.
    /// - Throws: ``FixtureError`` when the file cannot be replayed.
    static func replay(_ data: Data, file: String) async throws -> [CeremonyResult] {
        let fixture = try Replayer.decodeDocument(AppAttestFixture.self, data, file: file, format: \.format,
                                                  names: { $0.ceremonies.map(\.name) })
        let setup = try Setup(fixture: fixture, file: file)
        let service = AppAttestService(app: setup.app, environment: setup.environment, trustAnchors: setup.trustAnchors,
                                       keys: InMemoryAppAttestKeyStore(keys: setup.keys))
        var results: [CeremonyResult] = []
        for ceremony in fixture.ceremonies {
            results.append(try await run(ceremony, file: file, service: service, now: setup.now))
        }
        return results
    }

    private enum Outcome {
        case attested(VerifiedAppAttestation)
        case asserted(VerifiedAppAssertion)
        case rejected(WebAuthnError)
    }

    private static func run(_ ceremony: AppCeremony, file: String, service: AppAttestService,
                            now: Date) async throws -> CeremonyResult {
        var outcome: Outcome
        var trace = CeremonyTrace()
        switch ceremony.payload {
        case .undecodable(let member, let reason):
            outcome = .rejected(WebAuthnError(.malformed, "\(member): \(reason)"))
        case .attestation(let keyId, let challenge, let attestation):
            let report = try await service.attestReport(keyId: keyId, attestation: attestation, challenge: challenge, now: now)
            trace = report.trace
            switch report.result {
            case .success(let verified): outcome = .attested(verified)
            case .failure(let error): outcome = .rejected(error)
            }
        case .assertion(let keyId, let clientData, let assertion):
            let report = try await service.assertReport(keyId: keyId, assertion: assertion, clientData: clientData)
            trace = report.trace
            switch report.result {
            case .success(let verified): outcome = .asserted(verified)
            case .failure(let error): outcome = .rejected(error)
            }
        }
        let expect = ceremony.expect
        var mismatches: [String] = []
        func compare<T: Equatable>(_ name: String, _ expected: T?, _ actual: T) {
            if let expected, expected != actual { mismatches.append("\(name): expected \(expected), got \(actual)") }
        }
        let actual: String
        var error: WebAuthnError?
        switch outcome {
        case .rejected(let rejection):
            actual = "reject(\(rejection.category.rawValue))"
            error = rejection
            if expect.outcome == .accept { mismatches.append("expected accept, got \(rejection)") }
            else { compare("error", expect.error, rejection.category) }
        case .attested(let verified):
            actual = "accept"
            if expect.outcome == .reject { mismatches.append("expected \(expect.summary), got accept") }
            compare("environment", expect.environment, verified.environment)
            compare("trusted", expect.trusted, true)  // an accepted attestation always chains to an anchor
            compare("signCount", expect.signCount, verified.authenticatorData.signCount)
        case .asserted(let verified):
            actual = "accept"
            if expect.outcome == .reject { mismatches.append("expected \(expect.summary), got accept") }
            compare("environment", expect.environment, verified.updatedKey.environment)
            compare("signCount", expect.signCount, verified.signCount)
        }
        return CeremonyResult(file: file, name: ceremony.name, expected: expect.summary, actual: actual,
                              passed: mismatches.isEmpty, mismatches: mismatches, error: error, trace: trace)
    }

    /// The app, environment, anchors, clock and starting keys a file describes.
    struct Setup {
        let app: AppAttestApp
        let environment: AppAttestEnvironment
        let trustAnchors: [Certificate]
        let keys: [AttestedAppKey]
        let now: Date

        init(fixture: AppAttestFixture, file: String) throws(FixtureError) {
            app = AppAttestApp(teamId: fixture.app.teamId, bundleId: fixture.app.bundleId)
            if let text = fixture.app.environment {
                guard let parsed = AppAttestEnvironment(rawValue: text) else {
                    throw FixtureError(file: file, member: "app.environment", reason: "must be \"production\" or \"development\", is \"\(text)\"")
                }
                environment = parsed
            } else {
                environment = .production
            }
            if let text = fixture.policy?.verificationTime {
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw FixtureError(file: file, member: "policy.verificationTime", reason: "\"\(text)\" is not an ISO 8601 time")
                }
                now = date
            } else {
                now = Date()
            }
            if let anchors = fixture.policy?.trustAnchors {
                var parsed: [Certificate] = []
                for (index, text) in anchors.enumerated() {
                    do {
                        parsed.append(try Certificate(derEncoded: try Base64URL.decode(text)[...]))
                    } catch {
                        throw FixtureError(file: file, member: "policy.trustAnchors[\(index)]",
                                           reason: "is not a base64url DER certificate (\(error))")
                    }
                }
                trustAnchors = parsed
            } else {
                trustAnchors = AppAttestRootCA.trustAnchors
            }
            var keys: [AttestedAppKey] = []
            for (index, spec) in (fixture.appKeys ?? []).enumerated() {
                func bytes(_ text: String, _ name: String) throws(FixtureError) -> [UInt8] {
                    do { return try Base64URL.decode(text) } catch {
                        throw FixtureError(file: file, member: "appKeys[\(index)].\(name)", reason: "is not base64url (\(error))")
                    }
                }
                let publicKey = try bytes(spec.publicKey, "publicKey")
                guard (try? COSEKey.fromU2FPublicKey(publicKey[...])) != nil else {
                    throw FixtureError(file: file, member: "appKeys[\(index)].publicKey",
                                       reason: "is not an uncompressed P-256 point (65 bytes, 04 ‖ x ‖ y)")
                }
                var keyEnvironment = environment
                if let text = spec.environment {
                    guard let parsed = AppAttestEnvironment(rawValue: text) else {
                        throw FixtureError(file: file, member: "appKeys[\(index)].environment",
                                           reason: "must be \"production\" or \"development\", is \"\(text)\"")
                    }
                    keyEnvironment = parsed
                }
                keys.append(AttestedAppKey(keyId: try bytes(spec.keyId, "keyId"), publicKey: publicKey,
                                           signCount: spec.signCount, receipt: try spec.receipt.map { (t: String) throws(FixtureError) in try bytes(t, "receipt") } ?? [],
                                           environment: keyEnvironment))
            }
            self.keys = keys
        }
    }
}

/// Just enough of a document to route it.
private struct Probe: Decodable {
    var hasApp: Bool
    var kinds: [String]

    private struct KindOnly: Decodable { var kind: String? }
    private enum CodingKeys: String, CodingKey { case app, ceremonies }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hasApp = container.contains(.app)
        kinds = ((try? container.decodeIfPresent([KindOnly].self, forKey: .ceremonies)) ?? nil)?.compactMap(\.kind) ?? []
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
        case assertion(keyId: [UInt8], clientData: [UInt8], assertion: [UInt8])
        /// A member that is not base64url: a `malformed` verdict, not a broken file.
        case undecodable(member: String, reason: String)
    }

    var name: String
    var kind: Kind
    var payload: Payload
    var expect: AppExpectation

    private enum CodingKeys: String, CodingKey { case name, kind, keyId, challenge, attestation, clientData, assertion, expect }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let kindText = try container.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: kindText) else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container,
                                                   debugDescription: "must be \"appAttestation\" or \"appAssertion\" in an App Attest file, is \"\(kindText)\"")
        }
        self.kind = kind
        expect = try container.decode(AppExpectation.self, forKey: .expect)
        let keyIdText = try container.decode(String.self, forKey: .keyId)
        let (dataKey, objectKey): (CodingKeys, CodingKeys) = kind == .appAttestation ? (.challenge, .attestation) : (.clientData, .assertion)
        let dataText = try container.decode(String.self, forKey: dataKey)
        let objectText = try container.decode(String.self, forKey: objectKey)
        var decoded: [[UInt8]] = []
        for (member, text) in [(CodingKeys.keyId, keyIdText), (dataKey, dataText), (objectKey, objectText)] {
            do {
                decoded.append(try Base64URL.decode(text))
            } catch {
                payload = .undecodable(member: member.rawValue, reason: "is not base64url (\(error))")
                return
            }
        }
        payload = kind == .appAttestation
            ? .attestation(keyId: decoded[0], challenge: decoded[1], attestation: decoded[2])
            : .assertion(keyId: decoded[0], clientData: decoded[1], assertion: decoded[2])
    }
}

/// The verdict an App Attest ceremony is held to.
struct AppExpectation: Decodable {
    var outcome: Expectation.Outcome
    var error: WebAuthnError.Category?
    var environment: AppAttestEnvironment?
    var trusted: Bool?
    var signCount: UInt32?

    /// `accept` or `reject(<error>)`.
    var summary: String {
        switch outcome {
        case .accept: return "accept"
        case .reject: return error.map { "reject(\($0.rawValue))" } ?? "reject"
        }
    }
}
