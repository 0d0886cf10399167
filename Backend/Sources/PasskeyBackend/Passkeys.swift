import Foundation
import Logging
import WebAuthnRP

/// A passkey backend, ready for an adapter to serve: the library's relying-party service under
/// this configuration, the stores, the ceremonies of the web page and of apps, the account's
/// passkeys and sessions, the tokens, App Attest, Android key attestation and the association files, all made once at
/// start (a configuration mistake stops the server from starting).
///
/// ```swift
/// let passkeys = try Passkeys(configuration: .init(rpId: "example.com", origins: ["https://example.com"]))
/// ```
public final class Passkeys: Sendable {
    package let config: PasskeyBackendConfiguration
    package let stores: PasskeyStores
    package let relyingParty: RelyingParty
    package let policy: VerificationPolicy
    package let service: RelyingPartyService
    package let tokens: TokenService
    package let ceremonies: PasskeyCeremonies
    package let account: AccountFlows
    /// Nil when App Attest is off.
    package let appAttest: AppAttest?
    /// Nil when Android key attestation is off.
    package let android: AndroidKeyAttestation?
    /// The guard of both platforms; nil when both are off.
    package let appIntegrity: AppIntegrity?
    package let documents: WellKnownDocuments
    package let logger: Logger

    /// Builds the backend.
    ///
    /// - Parameters:
    ///   - configuration: The relying party, the apps, the token and app integrity settings.
    ///   - stores: Where everything is kept: ``PasskeyStores/memory()`` (the default) or PostgreSQL.
    ///   - logger: Where the backend logs.
    /// - Throws: ``ConfigurationError`` for a setting that cannot work (an Apple app without its
    ///   origin, sealed challenges without a key, an unreadable App Attest root, …).
    public init(
        configuration: PasskeyBackendConfiguration, stores: PasskeyStores = .memory(),
        logger: Logger = Logger(label: "passkeys")
    ) throws {
        let config = configuration
        self.config = config
        self.stores = stores
        self.logger = logger
        let sealingKey: SealedChallengeKey?
        if config.challengeMode == "sealed" {
            guard let bytes = config.sealingKey else { throw ConfigurationError("CHALLENGE_MODE=sealed needs SEALING_KEY (64 hex digits)") }
            do { sealingKey = try SealedChallengeKey(bytes) } catch { throw ConfigurationError("SEALING_KEY: \(error)") }
        } else {
            sealingKey = nil
        }
        var recorder: FailedCeremonyRecorder? = nil
        if let directory = config.failedCeremonyDirectory {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ConfigurationError("RECORD_FAILED_CEREMONIES_DIR \(directory): \(error)")
            }
            recorder = FailedCeremonyRecorder(
                directory: directory, maxBytes: config.failedCeremonyMaxBytes, maxFiles: config.failedCeremonyMaxFiles,
                logger: logger)
            logger.notice(
                "failed ceremonies are recorded in \(directory) (at most \(config.failedCeremonyMaxFiles) files of \(config.failedCeremonyMaxBytes) bytes)"
            )
        }
        relyingParty = try config.relyingParty()
        documents = try WellKnownDocuments(config: config, relyingParty: relyingParty)
        // CONFORMANCE=1: the library's FIDO conformance profile over the tool's statements and anchors.
        policy = try config.conformance?.policy() ?? VerificationPolicy(counter: .reject, challengeLifetime: 300)
        if config.conformance != nil { logger.warning("CONFORMANCE=1: the FIDO conformance profile (for conformance runs only)") }
        // How challenges travel is configuration: sealed with the fleet's key, or stored.
        let transport: ChallengeTransport =
            sealingKey.map { .sealed($0, replayStore: stores.sealedReplay) } ?? .stored(stores.challenges)
        service = RelyingPartyService(
            relyingParty: relyingParty, policy: policy, challenges: transport, credentials: stores.credentials)
        tokens = TokenService(config: config, refreshTokens: stores.refreshTokens, keyStore: stores.signingKeys)
        appAttest = try AppAttest.make(config.appAttest, keys: stores.appAttestKeys, challenges: transport, logger: logger)
        android = try AndroidKeyAttestation.make(
            config.androidKeyAttestation, apps: config.androidApps, keys: stores.androidAppKeys, challenges: transport,
            logger: logger)
        appIntegrity = AppIntegrity(appAttest: appAttest, android: android)
        if let delay = stores.loginWriteDelay { logger.warning("every login's write waits \(delay) (end-to-end tests only)") }
        ceremonies = PasskeyCeremonies(
            config: config, policy: policy, service: service, stores: stores, signer: CookieSigner(key: config.sessionKey),
            recorder: recorder, tokens: tokens, loginWriteDelay: stores.loginWriteDelay)
        account = AccountFlows(config: config, stores: stores)
    }

    /// Brings the stores' schema up to date (PostgreSQL's migrations; nothing in memory). Run it
    /// once the database client runs and before the server accepts requests.
    ///
    /// - Throws: The database's error.
    public func prepareStores() async throws {
        try await stores.migrate?()
    }

    /// The signed-in subject of the `Authorization` header's bearer access token or a session
    /// cookie's value (every adapter's authenticator, so they read `Authorization` alike): a
    /// bearer token that does not verify, or another scheme, is refused (401 `invalid_token`); a
    /// cookie that names no live session signs nobody in.
    package func subject(authorization: String?, sessionCookie: String?) async throws -> Subject? {
        if let authorization {
            guard authorization.hasPrefix("Bearer ") else {
                throw TokenService.invalidToken("Send the access token as Authorization: Bearer <token>.")
            }
            return try await tokens.subject(accessToken: String(authorization.dropFirst("Bearer ".count)), now: Date())
        }
        guard let token = SessionToken.token(cookie: sessionCookie) else { return nil }
        guard let session = try await stores.sessions.session(id: SessionToken.id(token), now: Date()) else { return nil }
        return Subject(
            userHandle: session.userHandle, credentialId: session.credentialId, signedInAt: session.signedInAt,
            credential: .session(id: session.id))
    }
}
