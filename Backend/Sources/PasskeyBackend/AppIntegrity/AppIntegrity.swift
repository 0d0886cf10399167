import Foundation
import HTTPTypes
import Logging
import WebAuthnRP

/// The key of an app whose assertion over a request verified: an App Attest key or an Android
/// Keystore key, each by its key id. A sign-in's token family is bound to it, so only requests
/// asserted by the same key refresh the family.
package enum AppKey: Sendable, Hashable {
    /// An App Attest key (its 32-byte key id).
    case appAttest([UInt8])
    /// An attested Android Keystore key (SHA-256 of its public point).
    case android([UInt8])

    /// The App Attest key id, for the store's column.
    package var appAttestKeyId: [UInt8]? {
        if case .appAttest(let id) = self { return id }
        return nil
    }

    /// The Android key id, for the store's column.
    package var androidKeyId: [UInt8]? {
        if case .android(let id) = self { return id }
        return nil
    }

    /// The key a stored row names (nil: none; a row never holds both).
    package init?(appAttestKeyId: [UInt8]?, androidKeyId: [UInt8]?) {
        if let appAttestKeyId {
            self = .appAttest(appAttestKeyId)
        } else if let androidKeyId {
            self = .android(androidKeyId)
        } else {
            return nil
        }
    }
}

/// App integrity for every adapter: the platforms that are on (App Attest, Android key
/// attestation) and the one guard of the routes ``AppIntegrityCoverage`` names. A request names
/// its platform by the headers it carries; it passes without any only when no platform is
/// `required`.
package struct AppIntegrity: Sendable {
    /// Nil when App Attest is off.
    package let appAttest: AppAttest?
    /// Nil when Android key attestation is off.
    package let android: AndroidKeyAttestation?

    /// Nil when every platform is off.
    package init?(appAttest: AppAttest?, android: AndroidKeyAttestation?) {
        guard appAttest != nil || android != nil else { return nil }
        self.appAttest = appAttest
        self.android = android
    }

    /// `{"challenge": "…", "expiresAt": …}` (seconds since 1970): what either platform's
    /// challenge route answers.
    package struct Challenge: Encodable, Sendable {
        package var challenge: String
        package var expiresAt: Int

        init(_ issued: AppAttestChallenge) {
            challenge = issued.challenge
            expiresAt = Int(issued.expiresAt.timeIntervalSince1970)
        }
    }

    /// Whether a guarded route asks `subject`'s request for an assertion: every request, or
    /// (`bearerOnly`: an app adding a passkey) only one signed in with a bearer access token; a
    /// browser's cookie session is not asked there.
    package static func asks(_ subject: Subject?, bearerOnly: Bool) -> Bool {
        guard bearerOnly else { return true }
        if case .accessToken = subject?.credential { return true }
        return false
    }

    /// Whether the request carries an assertion of a platform that is on (its body is then read
    /// for the hash the assertion signs).
    package func carriesAssertion(header: (String) -> String?) -> Bool {
        carriesAppAttest(header) || carriesAndroid(header)
    }

    private func carriesAppAttest(_ header: (String) -> String?) -> Bool {
        appAttest != nil && (header(AppAttest.Header.keyId) != nil || header(AppAttest.Header.assertion) != nil)
    }

    private func carriesAndroid(_ header: (String) -> String?) -> Bool {
        android != nil
            && [AndroidKeyAttestation.Header.keyId, AndroidKeyAttestation.Header.counter, AndroidKeyAttestation.Header.signature]
                .contains { header($0) != nil }
    }

    /// Verifies the assertion a guarded route asks of a request (``asks(_:bearerOnly:)``), by the
    /// platform whose headers it carries: `method`, the route's canonical `path`, the `body` and
    /// the binding (the platform's challenge header, or the bearer access token's `jti`).
    /// - Returns: The key whose assertion verified (nil: the request passed without one).
    /// - Throws: ``AppError`` with the platform's error header naming the reason (400 for a
    ///   request carrying both platforms' headers).
    package func verifyRequest(
        header: (String) -> String?, method: String, path: String, body: Data, subject: Subject?, logger: Logger
    ) async throws -> AppKey? {
        let apple = carriesAppAttest(header), droid = carriesAndroid(header)
        if apple && droid {
            throw AppError(.badRequest, "A request carries the assertion of one platform, App Attest or Android, not both.")
        }
        if let android, droid || (!apple && appAttest?.settings.mode != .required) {
            return try await android.verifyRequest(
                keyId: header(AndroidKeyAttestation.Header.keyId), counter: header(AndroidKeyAttestation.Header.counter),
                signature: header(AndroidKeyAttestation.Header.signature),
                challenge: header(AndroidKeyAttestation.Header.challenge), method: method, path: path, body: body,
                subject: subject, logger: logger
            ).map(AppKey.android)
        }
        guard let appAttest else { return nil }
        return try await appAttest.verifyRequest(
            keyId: header(AppAttest.Header.keyId), assertion: header(AppAttest.Header.assertion),
            challenge: header(AppAttest.Header.challenge), method: method, path: path, body: body, subject: subject,
            logger: logger
        ).map(AppKey.appAttest)
    }

    /// The id (`jti`) of the bearer access token a request is signed in with: what an assertion
    /// binds when the request answers no challenge; nil for a cookie session or nobody.
    static func tokenId(of subject: Subject?) -> String? {
        if case .accessToken(let jti, _) = subject?.credential { return jti }
        return nil
    }

    /// A refusal with the platform's error header (`header`) naming the reason (`code`).
    static func refusal(_ status: HTTPResponse.Status, header: String, _ code: String, _ message: String) -> AppError {
        var error = AppError(status, message)
        if let name = HTTPField.Name(header) { error.headers[name] = code }
        return error
    }
}
