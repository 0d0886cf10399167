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

/// The App Attest challenges: single use, five minutes, and verifiable by any node, the way the
/// server's ceremonies carry theirs (`CHALLENGE_MODE`): a row in the challenge store, or sealed
/// with the fleet's key and marked used in the replay store. Their `rpId` is a name no passkey
/// ceremony uses, so a challenge of one kind never answers the other; a stored one also starts
/// with ``tag``, which is checked before the store is asked, so a passkey ceremony's challenge
/// presented as an App Attest one is refused without being used up.
struct AppAttestChallenges: Sendable {
    let marker: String
    let challenges: any ChallengeStore
    let sealing: SealedChallengeKey?
    let replay: any SealedChallengeReplayStore
    static let lifetime: TimeInterval = 300
    /// Longer than any token either mode issues (a sealed token is about 500 characters).
    static let maximumLength = 2_048
    /// The first bytes of a stored App Attest challenge (then 32 random bytes): its kind, known
    /// before the store is touched (passkey challenges are 32 random bytes).
    static let tag = Array("appattst".utf8)

    init(app: AppleApp, challenges: any ChallengeStore, sealing: SealedChallengeKey?, replay: any SealedChallengeReplayStore) {
        marker = "app-attest:" + app.appID
        self.challenges = challenges
        self.sealing = sealing
        self.replay = replay
    }

    /// A new challenge, as the string the app receives (and hashes, as UTF-8, into its client data).
    func issue(now: Date) async throws -> (challenge: String, expiresAt: Date) {
        let bytes = Self.tag + SecureRandom.bytes(32)
        let issued = IssuedChallenge(
            challenge: bytes, kind: .authentication, rpId: marker, issuedAt: now,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        if let sealing { return (try sealing.seal(issued), issued.expiresAt) }
        try await challenges.issue(issued, now: now)
        return (Base64URLBytes(bytes).base64URL, issued.expiresAt)
    }

    /// Uses up a challenge the app sent back; false when it is unknown, used, expired or not an App Attest challenge.
    func consume(_ text: String, now: Date) async throws -> Bool {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else { return false }
        let issued: IssuedChallenge
        if let sealing {
            guard let opened = try? sealing.open(text, now: now), opened.rpId == marker else { return false }
            guard try await replay.markUsed(opened.challenge, expiresAt: opened.expiresAt, now: now) else { return false }
            issued = opened
        } else {
            guard let bytes = try? Base64URLBytes(base64URL: text, member: "challenge").bytes,
                bytes.count == Self.tag.count + 32, bytes.starts(with: Self.tag),
                let stored = try await challenges.consume(bytes)
            else { return false }
            issued = stored
        }
        return issued.rpId == marker && issued.kind == .authentication && now <= issued.expiresAt
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

/// App Attest for the server: the library's service over the key repository, and the challenges.
struct AppAttest: Sendable {
    let settings: AppAttestSettings
    let service: AppAttestService
    let challenges: AppAttestChallenges

    /// Nil when App Attest is off.
    static func make(
        _ settings: AppAttestSettings, database: Database?, challenges: any ChallengeStore,
        sealing: SealedChallengeKey?, replay: any SealedChallengeReplayStore, logger: Logger
    ) throws -> AppAttest? {
        guard settings.mode != .off, let app = settings.app else { return nil }
        let keys: any AppAttestKeyStore = database.map { PostgresAppAttestKeyStore(database: $0) } ?? InMemoryAppAttestKeyStore()
        let anchors = try settings.trustAnchors()
        logger.info(
            "App Attest \(settings.mode.rawValue) for \(app.appID), \(settings.environment.rawValue), roots: \(settings.rootPEMPath ?? "Apple's")"
        )
        return AppAttest(
            settings: settings,
            service: AppAttestService(app: app, environment: settings.environment, trustAnchors: anchors, keys: keys),
            challenges: AppAttestChallenges(app: app, challenges: challenges, sealing: sealing, replay: replay))
    }
}
