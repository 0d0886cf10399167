public import Foundation
import WebAuthnCoding

/// An iOS, iPadOS or macOS app whose passkeys belong to the relying party: its App ID is
/// `<teamId>.<bundleId>` (the `webcredentials` entry of `apple-app-site-association`).
public struct AppleApp: Sendable, Hashable {
    /// The 10-character Apple Developer Team ID.
    public let teamId: String
    /// The bundle identifier.
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

/// An Android app whose passkeys belong to the relying party (the
/// `delegate_permission/common.get_login_creds` statement of `assetlinks.json`).
public struct AndroidApp: Sendable, Hashable {
    /// The package name.
    public let packageName: String
    /// The signing certificate's SHA-256 fingerprint as `AB:CD:…` (32 bytes, uppercase hex).
    public let sha256Fingerprint: String
    /// The origin the app's ceremonies carry in client data (`android:apk-key-hash:…`).
    public let origin: String

    /// Creates an app description.
    /// - Parameters:
    ///   - packageName: the package name.
    ///   - sha256Fingerprint: the signing certificate's SHA-256 fingerprint (hex, colons optional).
    /// - Throws: ``WebAuthnError`` `malformed` when the fingerprint is not 32 bytes of hex.
    public init(packageName: String, sha256Fingerprint: String) throws(WebAuthnError) {
        self.packageName = packageName
        self.origin = try RelyingParty.androidOrigin(sha256Fingerprint: sha256Fingerprint)
        let bytes = (try? Base64URL.decode(String(origin.dropFirst("android:apk-key-hash:".count)))) ?? []
        self.sha256Fingerprint = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}

extension RelyingParty {
    /// The `webcredentials` part of `apple-app-site-association`, served at
    /// `https://<rp id>/.well-known/apple-app-site-association`: `{"webcredentials": {"apps": [...]}}`.
    /// Apple apps report the web origin `https://<rp id>`, which must be among ``origins``.
    /// - Parameter apps: the apps; nil (default) for those the relying party declares
    ///   (``init(id:name:origins:appleApps:androidApps:allowSubdomains:allowCrossOrigin:topOrigins:)``).
    /// - Returns: the JSON document.
    /// - Throws: ``WebAuthnError`` `configuration` when `https://<rp id>` is not an allowed
    ///   origin, or an app ID is malformed.
    public func appleAppSiteAssociation(apps: [AppleApp]? = nil) throws(WebAuthnError) -> Data {
        let apps = apps ?? appleApps
        if let problem = Self.appleAppProblem(apps, relyingParty: self, always: true) { throw problem }
        let document: [String: [String: [String]]] = ["webcredentials": ["apps": apps.map(\.appID)]]
        return Self.json(document)
    }

    /// Why Apple apps cannot belong to `relyingParty`, or nil: their origin `https://<rp id>` is
    /// not allowed (checked when there are apps, or `always`), or an app ID is malformed.
    static func appleAppProblem(_ apps: [AppleApp], relyingParty: RelyingParty, always: Bool = false) -> WebAuthnError? {
        let origin = "https://\(relyingParty.id)"
        if always || !apps.isEmpty, !relyingParty.isAllowedOrigin(origin) {
            let apps = apps.isEmpty ? "Apple apps" : apps.map(\.appID).joined(separator: ", ")
            return associationProblem(
                "\(apps) report the origin \(origin) (AuthenticationServices sends https://<rp id>), "
                    + "which is not among the allowed origins \(relyingParty.origins); add it")
        }
        for app in apps
        where app.teamId.count != 10 || !app.teamId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
            || app.bundleId.isEmpty || app.bundleId.contains(where: { $0 == " " || $0 == "/" })
        {
            return associationProblem("\(app.appID) is not a Team ID (10 uppercase letters or digits) and a bundle ID")
        }
        return nil
    }

    /// `assetlinks.json`, served at `https://<rp id>/.well-known/assetlinks.json`: one
    /// `delegate_permission/common.get_login_creds` statement per app, and one for the web site.
    /// Each app's origin must be among ``origins`` (else its passkey ceremonies would be refused;
    /// a declared app's origin always is).
    /// - Parameter apps: the apps; nil (default) for those the relying party declares.
    /// - Returns: the JSON document.
    /// - Throws: ``WebAuthnError`` `configuration` naming an app whose origin is not allowed.
    public func assetLinks(apps: [AndroidApp]? = nil) throws(WebAuthnError) -> Data {
        let apps = apps ?? androidApps
        struct Target: Encodable {
            var namespace: String
            var site: String?
            var package_name: String?
            var sha256_cert_fingerprints: [String]?
        }
        struct Statement: Encodable { var relation: [String]; var target: Target }
        let relation = ["delegate_permission/common.get_login_creds"]
        var statements: [Statement] = []
        if origins.contains("https://\(id)") {
            statements.append(Statement(relation: relation, target: Target(namespace: "web", site: "https://\(id)")))
        }
        for app in apps {
            guard origins.contains(app.origin) else {
                throw Self.associationProblem("\(app.packageName): its origin \(app.origin) is not among the allowed origins")
            }
            statements.append(
                Statement(
                    relation: relation,
                    target: Target(
                        namespace: "android_app", package_name: app.packageName, sha256_cert_fingerprints: [app.sha256Fingerprint])))
        }
        return Self.json(statements)
    }

    /// A native app that cannot be associated with this relying party.
    static func associationProblem(_ reason: String) -> WebAuthnError {
        WebAuthnError(.configuration, step: "app association", reason)
    }

    private static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
