/// An iOS, iPadOS or macOS app, named by its App ID `<teamId>.<bundleId>`: an app whose
/// passkeys belong to the relying party (the `webcredentials` entry of
/// `apple-app-site-association`), or the app whose instances attest keys with App Attest
/// (``AppAttestService``; the `rpIdHash` there is SHA-256 of the App ID).
public struct AppleApp: Sendable, Hashable {
    /// The 10-character Apple Developer Team ID, for example `0352187391`.
    public let teamId: String
    /// The bundle identifier, for example `com.example.app`.
    public let bundleId: String

    /// Creates an app description.
    /// - Parameters:
    ///   - teamId: the Team ID.
    ///   - bundleId: the bundle identifier.
    public init(teamId: String, bundleId: String) {
        self.teamId = teamId
        self.bundleId = bundleId
    }

    /// `<teamId>.<bundleId>`.
    public var appID: String { "\(teamId).\(bundleId)" }
}
