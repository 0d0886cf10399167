import Crypto
import Foundation
import Logging
import WebAuthnCrypto
import WebAuthnRP

/// App Attest settings (`APP_ATTEST`, `APP_ATTEST_TEAM_ID`, `APP_ATTEST_BUNDLE_ID`,
/// `APP_ATTEST_ENVIRONMENT`, `APP_ATTEST_ROOT_PEM`): whether requests from the app must carry an
/// App Attest assertion, which app's keys count, which environment they must come from, and
/// which root their attestations must chain to (Apple's unless a PEM file says otherwise).
struct AppAttestSettings: Sendable {
    enum Mode: String, Sendable, CaseIterable {
        /// No App Attest routes, no assertion checks.
        case off
        /// Requests without the App Attest headers pass; requests with them must verify.
        case optional
        /// Token refresh and an app's new passkey need a verified assertion.
        case required
    }

    var mode: Mode = .off
    /// The app's Team ID and bundle ID; its App ID's hash is every attestation's `rpIdHash`.
    var app: AppleApp?
    /// Distributed builds attest in `production`, builds with the development entitlement in `development`.
    var environment: AppAttestEnvironment = .production
    /// A PEM file of the roots to trust instead of Apple's App Attestation Root CA (tests use their own).
    var rootPEMPath: String?

    static func fromEnvironment(_ env: [String: String], appleApps: [AppleApp]) throws -> AppAttestSettings {
        var settings = AppAttestSettings()
        if let text = env["APP_ATTEST"], !text.isEmpty {
            guard let mode = Mode(rawValue: text) else { throw ConfigError("APP_ATTEST is off, optional or required, not \(text)") }
            settings.mode = mode
        }
        if let text = env["APP_ATTEST_ENVIRONMENT"], !text.isEmpty {
            guard let environment = AppAttestEnvironment(rawValue: text) else {
                throw ConfigError("APP_ATTEST_ENVIRONMENT is production or development, not \(text)")
            }
            settings.environment = environment
        }
        settings.rootPEMPath = env["APP_ATTEST_ROOT_PEM"].flatMap { $0.isEmpty ? nil : $0 }
        let team = env["APP_ATTEST_TEAM_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? appleApps.first?.teamId
        let bundle = env["APP_ATTEST_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? appleApps.first?.bundleId
        if let team, let bundle { settings.app = AppleApp(teamId: team, bundleId: bundle) }
        guard settings.mode == .off || settings.app != nil else {
            throw ConfigError(
                "APP_ATTEST=\(settings.mode.rawValue) needs the app: APP_ATTEST_TEAM_ID and APP_ATTEST_BUNDLE_ID (or APPLE_TEAM_ID and APPLE_BUNDLE_IDS)"
            )
        }
        return settings
    }

    /// The trust anchors: the PEM file's certificates, or Apple's root.
    func trustAnchors() throws -> [Certificate] {
        guard let path = rootPEMPath else {
            guard let root = KnownAttestationRoots.appleAppAttestationRootCA else {
                throw ConfigError("Apple's App Attestation root did not load")
            }
            return [root]
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError("APP_ATTEST_ROOT_PEM \(path) cannot be read")
        }
        let anchors = try Self.certificates(pem: text)
        guard !anchors.isEmpty else { throw ConfigError("APP_ATTEST_ROOT_PEM \(path) holds no certificate") }
        return anchors
    }

    /// Every `CERTIFICATE` block of a PEM text.
    static func certificates(pem text: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                guard let base64 = body, let der = Data(base64Encoded: base64),
                    let certificate = try? Certificate(derEncoded: Array(der))
                else {
                    throw ConfigError("APP_ATTEST_ROOT_PEM: a CERTIFICATE block does not parse")
                }
                certificates.append(certificate)
                body = nil
            } else if body != nil {
                body? += line
            }
        }
        return certificates
    }
}

/// What an app's assertion signs for one request: the App Attest client data is this canonical
/// text, UTF-8, which the app hashes (SHA-256) for `generateAssertion` and the server rebuilds
/// from the request it received, so the app never sends it.
///
///     app-attest-request/1
///     POST
///     /oauth/token
///     <lowercase hex SHA-256 of the body>
///     challenge=<the challenge from POST /appattest/challenge>   (or jti=<the access token's jti>)
enum AppAttestRequest {
    static func clientData(method: String, path: String, body: some Sequence<UInt8>, binding: String) -> [UInt8] {
        let hash = SHA256.hash(data: Array(body)).map { String(format: "%02x", $0) }.joined()
        return Array("app-attest-request/1\n\(method)\n\(path)\n\(hash)\n\(binding)".utf8)
    }
}

/// App Attest for the server: the library's service over the key repository, issuing and
/// consuming its challenges on the server's challenge transport (`CHALLENGE_MODE`): a row in the
/// challenge store, or sealed with the fleet's key and marked used in the replay store, as the
/// passkey ceremonies carry theirs, and never answering one of theirs.
struct AppAttest: Sendable {
    let settings: AppAttestSettings
    let service: AppAttestService
    /// Seconds a challenge stays answerable.
    static let challengeLifetime: TimeInterval = 300

    /// Nil when App Attest is off.
    static func make(
        _ settings: AppAttestSettings, database: Database?, challenges: ChallengeTransport, logger: Logger
    ) throws -> AppAttest? {
        guard settings.mode != .off, let app = settings.app else { return nil }
        let keys: any AppAttestKeyStore = database.map { PostgresAppAttestKeyStore(database: $0) } ?? InMemoryAppAttestKeyStore()
        let anchors = try settings.trustAnchors()
        logger.info(
            "App Attest \(settings.mode.rawValue) for \(app.appID), \(settings.environment.rawValue), roots: \(settings.rootPEMPath ?? "Apple's")"
        )
        return AppAttest(
            settings: settings,
            service: AppAttestService(
                app: app, environment: settings.environment, trustAnchors: anchors, challenges: challenges,
                challengeLifetime: challengeLifetime, keys: keys))
    }
}
