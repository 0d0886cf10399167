import Foundation
import WebAuthnCrypto
import WebAuthnRP

// App integrity, both platforms' settings in one place. They stay two values beside one mode
// because what each platform proves differs: App Attest names one App ID and an environment,
// Android key attestation the declared Android apps (`androidApps`, the list `assetlinks.json`
// is built from) and a device policy; one value holding both would leave half its members
// meaningless for each platform.

/// Whether requests from an app must prove, by an assertion of an attested key, that they come
/// from the genuine app (App Attest on iOS, Android key attestation on Android).
public enum AppIntegrityMode: String, Sendable, CaseIterable {
    /// No routes for the platform, no assertion checks.
    case off
    /// Requests without the platform's headers pass; requests with them must verify.
    case optional
    /// Token issuance and refresh, and an app's new passkey, need a verified assertion.
    case required

    static func fromEnvironment(_ env: [String: String], _ name: String) throws -> AppIntegrityMode {
        guard let text = env[name], !text.isEmpty else { return .off }
        guard let mode = AppIntegrityMode(rawValue: text) else {
            throw ConfigurationError("\(name) is off, optional or required, not \(text)")
        }
        return mode
    }
}

/// App Attest settings (`APP_ATTEST`, `APP_ATTEST_TEAM_ID`, `APP_ATTEST_BUNDLE_ID`,
/// `APP_ATTEST_ENVIRONMENT`, `APP_ATTEST_ROOT_PEM`): whether requests from the app must carry an
/// App Attest assertion, which app's keys count, which environment they must come from, and
/// which root their attestations must chain to (Apple's unless a PEM file says otherwise).
public struct AppAttestSettings: Sendable {
    /// Off (the default), optional or required.
    public var mode: AppIntegrityMode = .off
    /// The app's Team ID and bundle ID; its App ID's hash is every attestation's `rpIdHash`.
    public var app: AppleApp?
    /// Distributed builds attest in `production`, builds with the development entitlement in `development`.
    public var environment: AppAttestEnvironment = .production
    /// A PEM file of the roots to trust instead of Apple's App Attestation Root CA (tests use their own).
    public var rootPEMPath: String?

    /// App Attest settings; the default is off.
    ///
    /// - Parameters:
    ///   - mode: Off, optional or required.
    ///   - app: The app whose keys count (needed unless off).
    ///   - environment: The environment its keys must be attested in.
    ///   - rootPEMPath: A PEM file of the roots to trust instead of Apple's.
    public init(
        mode: AppIntegrityMode = .off, app: AppleApp? = nil, environment: AppAttestEnvironment = .production,
        rootPEMPath: String? = nil
    ) {
        self.mode = mode
        self.app = app
        self.environment = environment
        self.rootPEMPath = rootPEMPath
    }

    package static func fromEnvironment(_ env: [String: String], appleApps: [AppleApp]) throws -> AppAttestSettings {
        var settings = AppAttestSettings()
        settings.mode = try AppIntegrityMode.fromEnvironment(env, "APP_ATTEST")
        if let text = env["APP_ATTEST_ENVIRONMENT"], !text.isEmpty {
            guard let environment = AppAttestEnvironment(rawValue: text) else {
                throw ConfigurationError("APP_ATTEST_ENVIRONMENT is production or development, not \(text)")
            }
            settings.environment = environment
        }
        settings.rootPEMPath = env["APP_ATTEST_ROOT_PEM"].flatMap { $0.isEmpty ? nil : $0 }
        let team = env["APP_ATTEST_TEAM_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? appleApps.first?.teamId
        let bundle = env["APP_ATTEST_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? appleApps.first?.bundleId
        if let team, let bundle { settings.app = AppleApp(teamId: team, bundleId: bundle) }
        guard settings.mode == .off || settings.app != nil else {
            throw ConfigurationError(
                "APP_ATTEST=\(settings.mode.rawValue) needs the app: APP_ATTEST_TEAM_ID and APP_ATTEST_BUNDLE_ID (or APPLE_TEAM_ID and APPLE_BUNDLE_IDS)"
            )
        }
        return settings
    }

    /// The trust anchors: the PEM file's certificates, or Apple's root.
    package func trustAnchors() throws -> [Certificate] {
        guard let path = rootPEMPath else {
            guard let root = KnownAttestationRoots.appleAppAttestationRootCA else {
                throw ConfigurationError("Apple's App Attestation root did not load")
            }
            return [root]
        }
        return try TrustRootsFile.certificates(path: path, setting: "APP_ATTEST_ROOT_PEM")
    }
}

/// Android key attestation settings (`ANDROID_KEY_ATTESTATION`, `ANDROID_KEY_ATTESTATION_ROOT_PEM`,
/// `ANDROID_KEY_ATTESTATION_SECURITY_LEVELS`, `ANDROID_KEY_ATTESTATION_VERIFIED_BOOT`,
/// `ANDROID_KEY_ATTESTATION_LOCKED_BOOTLOADER`, `ANDROID_KEY_ATTESTATION_MIN_OS_VERSION`,
/// `ANDROID_KEY_ATTESTATION_MIN_PATCH_LEVEL`, `ANDROID_KEY_ATTESTATION_STATUS_LIST`): whether
/// requests from the Android app must carry an assertion of a Keystore key attested for one of
/// the declared Android apps (``PasskeyBackendConfiguration/androidApps``), what the attestation
/// must establish about the device, and which roots it must chain to (Google's unless a PEM file
/// says otherwise).
public struct AndroidKeyAttestationSettings: Sendable {
    /// Off (the default), optional or required.
    public var mode: AppIntegrityMode = .off
    /// What an attestation must establish: security levels, verified boot, a locked bootloader,
    /// minimum OS and patch levels (the library's default: TEE or StrongBox, verified and locked).
    public var policy = AndroidKeyAttestationPolicy()
    /// A PEM file of the roots to trust instead of Google's hardware attestation roots (tests use their own).
    public var rootPEMPath: String?
    /// A newer attestation status list (Google's JSON) instead of the snapshot the library ships.
    public var statusListPath: String?

    /// Android key attestation settings; the default is off.
    ///
    /// - Parameters:
    ///   - mode: Off, optional or required.
    ///   - policy: What an attestation must establish about the key and the device.
    ///   - rootPEMPath: A PEM file of the roots to trust instead of Google's.
    ///   - statusListPath: A newer attestation status list than the library's snapshot.
    public init(
        mode: AppIntegrityMode = .off, policy: AndroidKeyAttestationPolicy = AndroidKeyAttestationPolicy(),
        rootPEMPath: String? = nil, statusListPath: String? = nil
    ) {
        self.mode = mode
        self.policy = policy
        self.rootPEMPath = rootPEMPath
        self.statusListPath = statusListPath
    }

    package static func fromEnvironment(_ env: [String: String], androidApps: [AndroidApp]) throws -> AndroidKeyAttestationSettings {
        let prefix = "ANDROID_KEY_ATTESTATION"
        var settings = AndroidKeyAttestationSettings()
        settings.mode = try AppIntegrityMode.fromEnvironment(env, prefix)
        settings.rootPEMPath = env[prefix + "_ROOT_PEM"].flatMap { $0.isEmpty ? nil : $0 }
        settings.statusListPath = env[prefix + "_STATUS_LIST"].flatMap { $0.isEmpty ? nil : $0 }
        var levels: Set<AndroidSecurityLevel> = [.trustedEnvironment, .strongBox]
        if env[prefix + "_SECURITY_LEVELS"] != nil {
            levels = []
            for text in PasskeyBackendConfiguration.list(env[prefix + "_SECURITY_LEVELS"]) {
                guard let level = AndroidSecurityLevel(rawValue: text), level != .software else {
                    throw ConfigurationError("\(prefix)_SECURITY_LEVELS lists trustedEnvironment and strongBox, not \(text)")
                }
                levels.insert(level)
            }
            guard !levels.isEmpty else { throw ConfigurationError("\(prefix)_SECURITY_LEVELS names no level") }
        }
        let minimumOS =
            env[prefix + "_MIN_OS_VERSION"] == nil
            ? nil : try PasskeyBackendConfiguration.integer(env, prefix + "_MIN_OS_VERSION", 0...999_999, 0)
        let minimumPatch =
            env[prefix + "_MIN_PATCH_LEVEL"] == nil
            ? nil : try PasskeyBackendConfiguration.integer(env, prefix + "_MIN_PATCH_LEVEL", 0...999_912, 0)
        settings.policy = AndroidKeyAttestationPolicy(
            securityLevels: levels, requireVerifiedBoot: try flag(env, prefix + "_VERIFIED_BOOT"),
            requireLockedBootloader: try flag(env, prefix + "_LOCKED_BOOTLOADER"), minimumOSVersion: minimumOS,
            minimumPatchLevel: minimumPatch)
        guard settings.mode == .off || !androidApps.isEmpty else {
            throw ConfigurationError("\(prefix)=\(settings.mode.rawValue) needs the apps: ANDROID_APPS (package=SHA-256 fingerprint)")
        }
        return settings
    }

    /// A requirement that is on unless set to `0` (`1` or absent: required).
    private static func flag(_ env: [String: String], _ name: String) throws -> Bool {
        switch env[name] {
        case nil, "", "1": return true
        case "0": return false
        case let text?: throw ConfigurationError("\(name) is 1 (required, the default) or 0, not \(text)")
        }
    }

    /// The trust anchors: the PEM file's certificates, or Google's hardware attestation roots.
    package func trustAnchors() throws -> [Certificate] {
        guard let path = rootPEMPath else { return KnownAttestationRoots.googleHardwareAttestationRoots }
        return try TrustRootsFile.certificates(path: path, setting: "ANDROID_KEY_ATTESTATION_ROOT_PEM")
    }

    /// The status list: the file's, or the library's snapshot.
    package func statusList() throws -> AndroidAttestationStatusList {
        guard let path = statusListPath else { return .snapshot }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("ANDROID_KEY_ATTESTATION_STATUS_LIST \(path) cannot be read")
        }
        do { return try AndroidAttestationStatusList(jsonData: data) } catch {
            throw ConfigurationError("ANDROID_KEY_ATTESTATION_STATUS_LIST \(path): \(error)")
        }
    }
}

/// A PEM file of trust roots, for the settings that replace a platform's built-in roots.
enum TrustRootsFile {
    static func certificates(path: String, setting: String) throws -> [Certificate] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("\(setting) \(path) cannot be read")
        }
        let anchors = try certificates(pem: text, setting: setting)
        guard !anchors.isEmpty else { throw ConfigurationError("\(setting) \(path) holds no certificate") }
        return anchors
    }

    /// Every `CERTIFICATE` block of a PEM text.
    static func certificates(pem text: String, setting: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                guard let base64 = body, let der = Data(base64Encoded: base64),
                    let certificate = try? Certificate(derEncoded: Array(der))
                else {
                    throw ConfigurationError("\(setting): a CERTIFICATE block does not parse")
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
