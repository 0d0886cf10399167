public import Foundation

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
        // As AuthenticationServices serializes it: the RP ID's host in lowercase.
        let origin = OriginMatcher.Allowed("https://\(relyingParty.id)").text
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
        let site = OriginMatcher.Allowed("https://\(id)").text
        if isAllowedOrigin(site) {
            statements.append(Statement(relation: relation, target: Target(namespace: "web", site: site)))
        }
        for app in apps {
            guard isAllowedOrigin(app.origin) else {
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

    /// A document served from `/.well-known/` (the two association files and the related-origins
    /// document) as JSON text: sorted keys, `/` unescaped.
    static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
