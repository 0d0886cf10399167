/// Which routes the app-integrity guard covers, for every adapter and both platforms (when App
/// Attest or Android key attestation is on): each
/// request that issues or refreshes tokens, and an app adding a passkey with its bearer token
/// (a browser's cookie session, or a new account's first passkey, is not asked there). The paths
/// are the canonical ones an assertion's client data binds.
package enum AppIntegrityCoverage {
    /// How a guarded route asks.
    package enum Rule: Sendable {
        /// Every request.
        case everyRequest
        /// Only a request signed in with a bearer access token (an app's).
        case bearerOnly

        package var bearerOnly: Bool { self == .bearerOnly }
    }

    /// The guarded routes (all `POST`) and their rules.
    package static let routes: [String: Rule] = [
        "/oauth/token": .everyRequest,
        "/api/token/login/verify": .everyRequest,
        "/api/register/verify": .bearerOnly,
        "/native/register/finish": .everyRequest,
        "/native/login/finish": .everyRequest,
    ]

    /// The rule of the route at `path`, or nil when it is not guarded.
    package static func rule(_ path: String) -> Rule? { routes[path] }
}
