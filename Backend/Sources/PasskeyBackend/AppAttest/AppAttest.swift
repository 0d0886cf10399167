import Crypto
import Foundation
import HTTPTypes
import Logging
import WebAuthnCrypto
import WebAuthnRP

/// What an app's assertion signs for one request: the App Attest client data is this canonical
/// text, UTF-8, which the app hashes (SHA-256) for `generateAssertion` and the server rebuilds
/// from the request it received, so the app never sends it.
///
///     app-attest-request/1
///     POST
///     /oauth/token
///     <lowercase hex SHA-256 of the body>
///     challenge=<the challenge from POST /appattest/challenge>   (or jti=<the access token's jti>)
package enum AppAttestRequest {
    package static func clientData(method: String, path: String, body: some Sequence<UInt8>, binding: String) -> [UInt8] {
        let hash = SHA256.hash(data: Array(body)).map { String(format: "%02x", $0) }.joined()
        return Array("app-attest-request/1\n\(method)\n\(path)\n\(hash)\n\(binding)".utf8)
    }
}

/// App Attest for the server: the library's service over the key store, issuing and consuming
/// its challenges on the server's challenge transport (`CHALLENGE_MODE`): a row in the
/// challenge store, or sealed with the fleet's key and marked used in the replay store, as the
/// passkey ceremonies carry theirs, and never answering one of theirs.
package struct AppAttest: Sendable {
    package let settings: AppAttestSettings
    package let service: AppAttestService
    /// Seconds a challenge stays answerable.
    package static let challengeLifetime: TimeInterval = 300

    /// Nil when App Attest is off.
    package static func make(
        _ settings: AppAttestSettings, keys: any AppAttestKeyStore, challenges: ChallengeTransport, logger: Logger
    ) throws -> AppAttest? {
        guard settings.mode != .off, let app = settings.app else { return nil }
        let anchors = try settings.trustAnchors()
        logger.info(
            "App Attest \(settings.mode.rawValue) for \(app.appID), \(settings.environment.rawValue), roots: \(settings.rootPEMPath ?? "Apple's")"
        )
        return AppAttest(
            settings: settings,
            service: AppAttestService(
                app: app, environment: settings.environment, trustAnchors: anchors, challenges: challenges,
                challengeLifetime: challengeLifetime, keys: keys))
    }

    /// A single-use challenge for `attestKey` or for one request's assertion.
    package func challenge() async throws -> AppIntegrity.Challenge {
        AppIntegrity.Challenge(try await service.issueChallenge(now: Date()))
    }

    struct AttestBody: Decodable { var keyId: String?; var attestation: String?; var challenge: String? }

    /// `{"keyId", "environment"}` of a key attested and stored.
    package struct Attested: Encodable, Sendable {
        package var keyId: String
        package var environment: String
    }

    /// Verifies `{"keyId", "attestation", "challenge"}` (`keyId` and `attestation` in base64 as
    /// `DCAppAttestService` gives them; base64url is accepted too) and stores the key with
    /// counter 0, its environment and receipt. A key id attested before is 409; a refused
    /// attestation is the library's 4xx.
    package func attest(body data: Data, logger: Logger) async throws -> Attested {
        let body = try JSONBody.decode(AttestBody.self, from: data)
        guard let keyId = body.keyId.flatMap(Self.base64), keyId.count == 32 else {
            throw AppError(.badRequest, "keyId must be the key's 32-byte identifier in base64.")
        }
        guard let attestation = body.attestation.flatMap(Self.base64), !attestation.isEmpty else {
            throw AppError(.badRequest, "attestation must be the attestation object in base64.")
        }
        guard let challenge = body.challenge else { throw AppError(.badRequest, "challenge is missing.") }
        let verified: VerifiedAppAttestation
        do {
            verified = try await service.verifyAttestation(keyId: keyId, attestation: attestation, challenge: challenge, now: Date())
        } catch let error as WebAuthnError where error.category == .challenge {
            throw AppError(.badRequest, "The App Attest challenge is unknown, expired or already used. Please ask for a new one.")
        }
        logger.info(
            "App Attest key attested",
            metadata: [
                "key": "\(Base64URLBytes(keyId).base64URL)",
                "environment": "\(verified.key.environment.rawValue)",
            ])
        return Attested(keyId: Data(keyId).base64EncodedString(), environment: verified.key.environment.rawValue)
    }

    /// The request headers an assertion travels in.
    package enum Header {
        package static let keyId = "App-Attest-Key-Id"
        package static let assertion = "App-Attest-Assertion"
        package static let challenge = "App-Attest-Challenge"
        /// The refusal's reason, on a refused request.
        package static let error = "App-Attest-Error"
    }

    /// Verifies the App Attest assertion over one request a guarded route asks (``AppIntegrity/asks(_:bearerOnly:)``):
    /// `method`, the route's canonical `path`, the `body` and the binding (the
    /// `App-Attest-Challenge` header's challenge, or the bearer access token's `jti`). A request
    /// without the headers passes when App Attest is optional.
    /// - Returns: The key id whose assertion verified (nil: the request was not asked, or passed without one).
    /// - Throws: ``AppError`` with the `App-Attest-Error` header naming the reason.
    @discardableResult
    package func verifyRequest(
        keyId keyText: String?, assertion assertionText: String?, challenge: String?,
        method: String, path: String, body: Data, subject: Subject?, logger: Logger
    ) async throws -> [UInt8]? {
        if keyText == nil, assertionText == nil {
            guard settings.mode == .required else { return nil }
            throw Self.refusal(
                .unauthorized, "missing",
                "This request needs an App Attest assertion (App-Attest-Key-Id and App-Attest-Assertion).")
        }
        guard let keyId = keyText.flatMap(Self.base64), keyId.count == 32,
            let assertion = assertionText.flatMap(Self.base64), !assertion.isEmpty
        else {
            throw Self.refusal(
                .unauthorized, "malformed",
                "App-Attest-Key-Id (32 bytes) and App-Attest-Assertion must both be present, in base64.")
        }
        let binding: String
        if let challenge {
            binding = "challenge=" + challenge
        } else if let jti = AppIntegrity.tokenId(of: subject) {
            binding = "jti=" + jti
        } else {
            throw Self.refusal(
                .unauthorized, "challenge",
                "Without a bearer access token the assertion must bind a challenge (App-Attest-Challenge).")
        }
        let clientData = AppAttestRequest.clientData(method: method, path: path, body: body, binding: binding)
        do {
            // With a challenge the library uses it up first (single use, expiry, App Attest's
            // own kind) and finds it in the client data; the jti binding is the rebuilt text's.
            _ = try await service.verifyAssertion(
                keyId: keyId, assertion: assertion, clientData: clientData, challenge: challenge, now: Date())
        } catch let error as WebAuthnError {
            logger.notice("App Attest assertion refused", metadata: ["detail": "\(error)"])
            throw Self.refusal(for: error)
        }
        return keyId
    }

    static func refusal(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> AppError {
        AppIntegrity.refusal(status, header: Header.error, code, message)
    }

    /// The library's verdict as the app sees it.
    static func refusal(for error: WebAuthnError) -> AppError {
        switch error.category {
        case .challenge: return refusal(.unauthorized, "challenge", "The App Attest challenge is unknown, expired or already used.")
        case .unknownCredential: return refusal(.unauthorized, "unknown-key", "No attested App Attest key has this key id.")
        case .signCount:
            return refusal(.unauthorized, "replayed", "The App Attest assertion was replayed (its counter is not above the last one).")
        case .signature:
            return refusal(.unauthorized, "signature", "The App Attest assertion's signature does not verify over this request.")
        case .attestation:
            return refusal(.forbidden, "environment", "The App Attest key was attested in another environment than this server's.")
        case .rpIdHash: return refusal(.forbidden, "app", "The App Attest assertion is for another app.")
        default: return refusal(.unauthorized, "malformed", "The App Attest assertion could not be read.")
        }
    }

    /// Standard base64 (as `DCAppAttestService` gives it) or base64url, padded or not; nil for anything else.
    package static func base64(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 2 * Limits.responseBody else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
