public import Foundation

/// What a Play Integrity verdict must establish beyond its decryption, its signature, the app
/// and the request it answers: how Google Play recognizes the app, what it says of the device
/// and of the account, and how fresh the verdict is.
///
/// Verdicts are compared as Google's labels (`PLAY_RECOGNIZED`, `MEETS_DEVICE_INTEGRITY`), so a
/// label Google adds later is shown in the result and can be required without a new release.
public struct PlayIntegrityPolicy: Sendable, Hashable {
    /// The `appRecognitionVerdict` values accepted (default: `PLAY_RECOGNIZED`, the app as
    /// Google Play distributed it; `UNRECOGNIZED_VERSION` is a build Play does not know, a
    /// sideloaded or altered one; `UNEVALUATED` means Play could not tell).
    public let acceptedAppRecognition: Set<String>
    /// The `deviceRecognitionVerdict` labels that must all be present (default:
    /// `MEETS_DEVICE_INTEGRITY`, a genuine certified Android device; add
    /// `MEETS_STRONG_INTEGRITY` for hardware-backed boot integrity with a recent patch, or
    /// require only `MEETS_BASIC_INTEGRITY` to admit uncertified or rooted devices that pass
    /// basic checks). Empty accepts any device.
    public let requiredDeviceVerdicts: Set<String>
    /// Refuse a verdict whose `appLicensingVerdict` is not `LICENSED`, that is a user who did not
    /// install or buy the app from Google Play (default false: licensing is not checked).
    public let requireLicensed: Bool
    /// The oldest verdict accepted, in seconds before the verification (default 120).
    public let maximumAge: TimeInterval
    /// How far in the future a verdict's timestamp may lie, for the clocks of Google's servers
    /// and this one (default 10 seconds).
    public let allowedClockSkew: TimeInterval

    /// Creates a policy.
    /// - Parameters:
    ///   - acceptedAppRecognition: the app recognition verdicts accepted (default `PLAY_RECOGNIZED`).
    ///   - requiredDeviceVerdicts: the device labels required, all of them (default `MEETS_DEVICE_INTEGRITY`).
    ///   - requireLicensed: require `LICENSED` (default false).
    ///   - maximumAge: the oldest verdict accepted, in seconds (default 120).
    ///   - allowedClockSkew: the tolerance for a timestamp in the future, in seconds (default 10).
    public init(
        acceptedAppRecognition: Set<String> = ["PLAY_RECOGNIZED"], requiredDeviceVerdicts: Set<String> = ["MEETS_DEVICE_INTEGRITY"],
        requireLicensed: Bool = false, maximumAge: TimeInterval = 120, allowedClockSkew: TimeInterval = 10
    ) {
        self.acceptedAppRecognition = acceptedAppRecognition
        self.requiredDeviceVerdicts = requiredDeviceVerdicts
        self.requireLicensed = requireLicensed
        self.maximumAge = maximumAge
        self.allowedClockSkew = allowedClockSkew
    }
}
