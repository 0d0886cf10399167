import Foundation
import WebAuthnRP

/// The server's settings, read from the environment so two nodes can share one database and
/// one key by configuration alone. Nothing is needed for a local run: `swift run` serves
/// http://localhost:8080 with in-memory stores.
public struct PasskeyBackendConfiguration: Sendable {
    /// The loopback address to bind (a reverse proxy terminates TLS in production).
    public var host = "127.0.0.1"
    /// The port to listen on.
    public var port = 8080
    /// The RP ID: the registrable domain the passkeys belong to.
    public var rpId = "localhost"
    /// The relying party's name, shown by some authenticators.
    public var rpName = "Passkey Server Example"
    /// The exact origins the browser reports (scheme, host and port).
    public var origins: [String] = []
    /// `postgres://user[:password]@host[:port]/database`; nil keeps everything in memory.
    public var databaseURL: String?
    /// 32 bytes (64 hex digits) signing the session and ceremony cookies. Every node of a fleet
    /// needs the same; a random one is made when it is absent (sessions then die with the process).
    public var sessionKey: [UInt8]
    /// `store` (a challenge row per ceremony) or `sealed` (the client carries the sealed challenge).
    public var challengeMode = "store"
    /// 32 bytes (64 hex digits) sealing challenges in `sealed` mode; every node needs the same.
    public var sealingKey: [UInt8]?
    /// Where a failed ceremony is written as a `webauthn-ceremonies/1` file; nil (the default) writes nothing.
    public var failedCeremonyDirectory: String?
    /// The largest recording written, in bytes (a larger one is skipped and logged).
    public var failedCeremonyMaxBytes = 262_144
    /// The most recordings the folder holds; later failures are logged, not written.
    public var failedCeremonyMaxFiles = 1_000
    /// A name for logs (which node answered).
    public var nodeName = "node"
    /// The longest any one database call may take; past it the request gets 503 (`DB_TIMEOUT_MS`).
    public var databaseTimeout: Duration = .seconds(3)
    /// Connections to PostgreSQL at most (`DB_POOL_SIZE`).
    public var databasePoolSize = 16
    /// Ping each idle database connection this often (`DB_KEEPALIVE_SECONDS`); 0, the default,
    /// never pings: a ping costs CPU, and a connection a middlebox dropped fails its next call
    /// (503) and is replaced.
    public var databaseKeepAlive = 0
    /// Swift concurrency's tasks run on NIO's event loops (`EXECUTOR=nio`, the default) or on
    /// Swift's own thread pool (`EXECUTOR=swift`). On the loops a request has no thread hand-offs
    /// between its socket, its handler and its database calls; a task that blocks its thread
    /// then blocks an event loop, so nothing on the request path may block.
    public var executor = "nio"
    /// A connection that sends nothing for this long is closed (`IDLE_TIMEOUT_SECONDS`); also
    /// bounds how long a request head may take to arrive.
    public var idleTimeout: Int64 = 30
    /// From a request's head to its last body byte (`REQUEST_READ_TIMEOUT_SECONDS`); a slower
    /// request's connection is closed.
    public var requestReadTimeout: Int64 = 10
    /// Open connections at most (`MAX_CONNECTIONS`); further ones wait in the kernel's backlog.
    public var maxConnections = 1_000
    /// After SIGTERM: this long for in-flight requests (graceful), then tasks are cancelled, and
    /// `SHUTDOWN_FORCE_SECONDS` later the process exits whatever still hangs (`SHUTDOWN_GRACE_SECONDS`).
    public var shutdownGrace: Int = 10
    /// See ``shutdownGrace``.
    public var shutdownForce: Int = 5
    /// Adding or deleting a passkey needs a sign-in younger than this (`FRESH_SIGN_IN_SECONDS`).
    public var freshSignIn: TimeInterval = 300
    /// Passkeys one account may hold (`MAX_PASSKEYS_PER_ACCOUNT`).
    public var maxPasskeysPerAccount = 32
    /// The access tokens' `iss` (`TOKEN_ISSUER`; default: the first origin).
    public var tokenIssuer = ""
    /// The access tokens' `aud` (`TOKEN_AUDIENCE`; default: the issuer).
    public var tokenAudience = ""
    /// Access-token lifetime (`ACCESS_TOKEN_SECONDS`).
    public var accessTokenLifetime: TimeInterval = 300
    /// Refresh-token lifetime, renewed at each rotation (`REFRESH_TOKEN_SECONDS`).
    public var refreshTokenLifetime: TimeInterval = 30 * 86_400
    /// The OpenID Connect client id (the app) that ID tokens are issued to (`ID_TOKEN_AUDIENCE`):
    /// set, every token response also carries an `id_token` signed with the access tokens' keys
    /// (published in the same JWKS); nil, the default, issues none.
    public var idTokenAudience: String?
    /// A refresh token presented again within this many seconds of its first use rotates again
    /// instead of revoking its sign-in (`REFRESH_REUSE_SECONDS`, at most 60; default 0: every
    /// second presentation revokes). Set a few seconds for an app that may send two refreshes at once.
    public var refreshReuseInterval: TimeInterval = 0
    /// A new signing key after this long (`SIGNING_KEY_ROTATION_SECONDS`); the previous one stays
    /// published until the next rotation, so it must outlive an access token.
    public var signingKeyRotation: TimeInterval = 7 * 86_400
    /// The iOS/macOS apps whose passkeys are this RP's (`APPLE_TEAM_ID` and `APPLE_BUNDLE_IDS`):
    /// served in `/.well-known/apple-app-site-association`.
    public var appleApps: [AppleApp] = []
    /// The Android apps (`ANDROID_APPS=package=SHA-256 fingerprint,…`): served in
    /// `/.well-known/assetlinks.json`, and their `android:apk-key-hash:` origins are accepted.
    public var androidApps: [AndroidApp] = []
    /// App Attest: off, optional or required, the app, the environment and the roots (AppAttestSettings).
    public var appAttest = AppAttestSettings()
    /// Android key attestation: off, optional or required, the policy and the roots
    /// (AndroidKeyAttestationSettings); the apps are ``androidApps``.
    public var androidKeyAttestation = AndroidKeyAttestationSettings()
    /// `CONFORMANCE=1`: the FIDO conformance tool's REST API with the library's conformance
    /// profile, in memory. For conformance runs only; nil (the default) serves the example.
    package var conformance: ConformanceSettings?

    /// Whether cookies may omit `Secure` (plain http on loopback only).
    package var isLocalhost: Bool {
        rpId == "localhost" && origins.allSatisfy { $0.hasPrefix("http://localhost") || $0.hasPrefix("http://127.0.0.1") }
    }

    /// A configuration for `rpId` and its web `origins`, everything else at its default.
    ///
    /// - Parameters:
    ///   - rpId: The registrable domain the passkeys belong to.
    ///   - origins: The exact origins the browser reports; the default is `http://localhost:<port>`.
    ///   - sessionKey: 32 bytes signing cookies, ceremony state and sealing the token signing keys;
    ///     every node of a fleet needs the same. Nil draws a random one (sessions then end with the process).
    public init(rpId: String = "localhost", origins: [String]? = nil, sessionKey: [UInt8]? = nil) {
        self.rpId = rpId
        self.sessionKey = sessionKey ?? SecureRandom.bytes(32)
        self.origins = origins ?? ["http://localhost:\(port)"]
        tokenIssuer = self.origins.first ?? "https://\(rpId)"
        tokenAudience = tokenIssuer
    }

    /// Reads every setting from the environment (README, "Configuration"): absent variables keep their defaults.
    ///
    /// - Parameter env: The variables; the process's environment by default.
    /// - Returns: The configuration.
    /// - Throws: ``ConfigurationError`` naming the variable that is malformed or inconsistent.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> PasskeyBackendConfiguration
    {
        var config = PasskeyBackendConfiguration(sessionKey: [])
        if let host = env["HOST"] { config.host = host }
        if let port = env["PORT"] {
            guard let value = Int(port), (1...65535).contains(value) else { throw ConfigurationError("PORT is not a port: \(port)") }
            config.port = value
        }
        if let rpId = env["RP_ID"] { config.rpId = rpId }
        if let name = env["RP_NAME"] { config.rpName = name }
        config.origins =
            env["ORIGINS"].map { $0.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) } }
            ?? ["http://localhost:\(config.port)"]
        config.databaseURL = env["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let key = env["SESSION_KEY"] {
            guard let bytes = hexBytes(key), bytes.count == 32 else { throw ConfigurationError("SESSION_KEY must be 64 hex digits") }
            config.sessionKey = bytes
        } else {
            config.sessionKey = SecureRandom.bytes(32)
        }
        if let mode = env["CHALLENGE_MODE"] {
            guard ["store", "sealed"].contains(mode) else { throw ConfigurationError("CHALLENGE_MODE is store or sealed, not \(mode)") }
            config.challengeMode = mode
        }
        if let key = env["SEALING_KEY"] {
            guard let bytes = hexBytes(key), bytes.count == 32 else { throw ConfigurationError("SEALING_KEY must be 64 hex digits") }
            config.sealingKey = bytes
        }
        config.failedCeremonyDirectory = env["RECORD_FAILED_CEREMONIES_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = env["RECORD_FAILED_CEREMONIES_MAX_BYTES"] {
            guard let value = Int(text), (1_024...16_777_216).contains(value) else {
                throw ConfigurationError("RECORD_FAILED_CEREMONIES_MAX_BYTES is 1024 to 16777216, not \(text)")
            }
            config.failedCeremonyMaxBytes = value
        }
        if let text = env["RECORD_FAILED_CEREMONIES_MAX_FILES"] {
            guard let value = Int(text), (1...1_000_000).contains(value) else {
                throw ConfigurationError("RECORD_FAILED_CEREMONIES_MAX_FILES is 1 to 1000000, not \(text)")
            }
            config.failedCeremonyMaxFiles = value
        }
        config.nodeName = env["NODE_NAME"] ?? "node-\(config.port)"
        config.databaseTimeout = .milliseconds(try integer(env, "DB_TIMEOUT_MS", 100...60_000, 3_000))
        config.databasePoolSize = try integer(env, "DB_POOL_SIZE", 1...1_000, 16)
        config.databaseKeepAlive = try integer(env, "DB_KEEPALIVE_SECONDS", 0...86_400, 0)
        if let executor = env["EXECUTOR"] {
            guard ["nio", "swift"].contains(executor) else { throw ConfigurationError("EXECUTOR is nio or swift, not \(executor)") }
            config.executor = executor
        }
        config.idleTimeout = Int64(try integer(env, "IDLE_TIMEOUT_SECONDS", 1...3_600, 30))
        config.requestReadTimeout = Int64(try integer(env, "REQUEST_READ_TIMEOUT_SECONDS", 1...600, 10))
        config.maxConnections = try integer(env, "MAX_CONNECTIONS", 1...1_000_000, 1_000)
        config.shutdownGrace = try integer(env, "SHUTDOWN_GRACE_SECONDS", 0...600, 10)
        config.shutdownForce = try integer(env, "SHUTDOWN_FORCE_SECONDS", 1...600, 5)
        config.freshSignIn = TimeInterval(try integer(env, "FRESH_SIGN_IN_SECONDS", 1...86_400, 300))
        config.maxPasskeysPerAccount = try integer(env, "MAX_PASSKEYS_PER_ACCOUNT", 1...1_000, 32)
        config.tokenIssuer = env["TOKEN_ISSUER"].flatMap { $0.isEmpty ? nil : $0 } ?? config.origins.first ?? "https://\(config.rpId)"
        config.tokenAudience = env["TOKEN_AUDIENCE"].flatMap { $0.isEmpty ? nil : $0 } ?? config.tokenIssuer
        config.accessTokenLifetime = TimeInterval(try integer(env, "ACCESS_TOKEN_SECONDS", 5...86_400, 300))
        config.refreshTokenLifetime = TimeInterval(try integer(env, "REFRESH_TOKEN_SECONDS", 60...31_536_000, 30 * 86_400))
        config.idTokenAudience = env["ID_TOKEN_AUDIENCE"].flatMap { $0.isEmpty ? nil : $0 }
        config.refreshReuseInterval = TimeInterval(try integer(env, "REFRESH_REUSE_SECONDS", 0...60, 0))
        config.signingKeyRotation = TimeInterval(try integer(env, "SIGNING_KEY_ROTATION_SECONDS", 5...31_536_000, 7 * 86_400))
        guard config.signingKeyRotation >= config.accessTokenLifetime else {
            // A key leaves the JWKS one rotation after it stopped signing: its tokens must have expired by then.
            throw ConfigurationError("SIGNING_KEY_ROTATION_SECONDS must be at least ACCESS_TOKEN_SECONDS")
        }
        let bundleIds = list(env["APPLE_BUNDLE_IDS"])
        if let team = env["APPLE_TEAM_ID"], !team.isEmpty {
            guard !bundleIds.isEmpty else { throw ConfigurationError("APPLE_TEAM_ID needs APPLE_BUNDLE_IDS (comma-separated bundle IDs)") }
            config.appleApps = bundleIds.map { AppleApp(teamId: team, bundleId: $0) }
        } else if !bundleIds.isEmpty {
            throw ConfigurationError("APPLE_BUNDLE_IDS needs APPLE_TEAM_ID")
        }
        for entry in list(env["ANDROID_APPS"]) {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ConfigurationError("ANDROID_APPS is package=SHA-256 fingerprint, comma-separated, not \(entry)")
            }
            do { config.androidApps.append(try AndroidApp(packageName: parts[0], sha256Fingerprint: parts[1])) } catch {
                throw ConfigurationError("ANDROID_APPS: \(parts[0]): the fingerprint is not 32 bytes of hex (AB:CD:…)")
            }
        }
        config.appAttest = try AppAttestSettings.fromEnvironment(env, appleApps: config.appleApps)
        config.androidKeyAttestation = try AndroidKeyAttestationSettings.fromEnvironment(env, androidApps: config.androidApps)
        config.conformance = try ConformanceSettings.fromEnvironment(env)
        return config
    }

    /// The relying party the ceremonies verify against: the web origins, and the native apps,
    /// which the library checks at start-up (an Apple app needs `https://<rp id>` among the
    /// origins) and whose Android origins it adds.
    package func relyingParty() throws -> RelyingParty {
        guard !appleApps.isEmpty || !androidApps.isEmpty else { return RelyingParty(id: rpId, name: rpName, origins: origins) }
        do {
            return try RelyingParty(id: rpId, name: rpName, origins: origins, appleApps: appleApps, androidApps: androidApps)
        } catch {
            throw ConfigurationError("native apps: \(error)")
        }
    }

    /// A comma-separated setting, trimmed, without empty entries.
    package static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// An integer setting within `range`, or `fallback` when it is absent.
    package static func integer(_ env: [String: String], _ name: String, _ range: ClosedRange<Int>, _ fallback: Int) throws -> Int {
        guard let text = env[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(name) is \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }

    package static func hexBytes(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let byte = UInt8(String(decoding: chars[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            index += 2
        }
        return out
    }
}

/// A setting that is malformed or inconsistent with another; the text names it.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public let description: String
    package init(_ description: String) { self.description = description }
}
