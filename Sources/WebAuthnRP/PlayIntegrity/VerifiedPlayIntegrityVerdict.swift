public import Foundation

/// A Play Integrity verdict that decrypted, verified and met the policy: what it established.
public struct VerifiedPlayIntegrityVerdict: Sendable, Hashable {
    /// The app's package name (`requestDetails.requestPackageName`), one the relying party declares.
    public let packageName: String
    /// The app's version code (`appIntegrity.versionCode`), nil when Play did not evaluate the app.
    public let versionCode: Int?
    /// The SHA-256 digests of the app's signing certificates (`appIntegrity.certificateSha256Digest`),
    /// the declared one among them; empty when Play did not evaluate the app.
    public let certificateDigests: [[UInt8]]
    /// `appIntegrity.appRecognitionVerdict` (`PLAY_RECOGNIZED`, `UNRECOGNIZED_VERSION`, `UNEVALUATED`).
    public let appRecognition: String
    /// `deviceIntegrity.deviceRecognitionVerdict`, as listed (`MEETS_DEVICE_INTEGRITY`, …); empty
    /// when the device meets none.
    public let deviceVerdicts: [String]
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel` (`LEVEL_1` … `LEVEL_4`,
    /// `UNEVALUATED`), nil when the verdict has none.
    public let recentDeviceActivity: String?
    /// `accountDetails.appLicensingVerdict` (`LICENSED`, `UNLICENSED`, `UNEVALUATED`), nil when absent.
    public let appLicensing: String?
    /// When Google made the verdict (`requestDetails.timestampMillis`).
    public let timestamp: Date
}
