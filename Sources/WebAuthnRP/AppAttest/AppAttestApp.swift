import WebAuthnCrypto

extension AppleApp {
    /// SHA-256 of the App ID's UTF-8 bytes: App Attest's `rpIdHash`, which every attestation and
    /// assertion carries (Apple, "Validating apps that connect to your server").
    var rpIdHash: [UInt8] { Digest.sha256.hash(Array(appID.utf8)) }
}

/// Which App Attest environment issued a key. Apple marks it in the attestation's AAGUID;
/// an app built with the `development` entitlement value attests in the development
/// environment, a distributed build in production.
public enum AppAttestEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// AAGUID `appattestdevelop`.
    case development
    /// AAGUID `appattest` followed by seven zero bytes.
    case production

    /// The 16-byte AAGUID an attestation from this environment carries.
    package var aaguid: [UInt8] {
        switch self {
        case .development: return Array("appattestdevelop".utf8)
        case .production: return Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        }
    }
}

/// The steps of Apple's "Validating apps that connect to your server" as trace labels.
enum AppAttestStep {
    static func attestation(_ n: Int) -> String { "App Attest attestation step \(n)" }
    static func assertion(_ n: Int) -> String { "App Attest assertion step \(n)" }
}
