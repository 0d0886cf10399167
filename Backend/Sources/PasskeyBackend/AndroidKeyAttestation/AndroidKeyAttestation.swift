import Foundation
import HTTPTypes
import Logging
import WebAuthnRP

/// Android key attestation for the server: the library's service over the key store, with the
/// declared Android apps (`ANDROID_APPS`) and the policy of ``AndroidKeyAttestationSettings``,
/// issuing and consuming its challenges on the server's challenge transport as App Attest does
/// (its own kind: it never answers a passkey ceremony's or App Attest's). The app's side (key
/// generation, the signed layout) is the DocC article "Android app integrity" of WebAuthnRP.
package struct AndroidKeyAttestation: Sendable {
    package let settings: AndroidKeyAttestationSettings
    package let service: AndroidKeyAttestationService

    /// Nil when Android key attestation is off.
    package static func make(
        _ settings: AndroidKeyAttestationSettings, apps: [AndroidApp], keys: any AndroidAppKeyStore,
        challenges: ChallengeTransport, logger: Logger
    ) throws -> AndroidKeyAttestation? {
        guard settings.mode != .off else { return nil }
        guard !apps.isEmpty else { throw ConfigurationError("ANDROID_KEY_ATTESTATION needs the apps: ANDROID_APPS") }
        let anchors = try settings.trustAnchors()
        logger.info(
            "Android key attestation \(settings.mode.rawValue) for \(apps.map(\.packageName).joined(separator: ", ")), roots: \(settings.rootPEMPath ?? "Google's")"
        )
        return AndroidKeyAttestation(
            settings: settings,
            service: AndroidKeyAttestationService(
                apps: apps, policy: settings.policy, trustAnchors: anchors, statusList: try settings.statusList(),
                challenges: challenges, challengeLifetime: AppAttest.challengeLifetime, keys: keys))
    }

    /// A single-use challenge for the key's attestation (the app passes SHA-256 of its UTF-8 to
    /// `setAttestationChallenge`) or for one request's assertion.
    package func challenge() async throws -> AppIntegrity.Challenge {
        AppIntegrity.Challenge(try await service.issueChallenge(now: Date()))
    }

    struct RegisterBody: Decodable { var challenge: String?; var certificateChain: [String]? }

    /// What a key's attestation established: `{"keyId", "packageName", "securityLevel",
    /// "verifiedBootState", "osPatchLevel"}` (the last two absent when the attestation states none).
    package struct Registered: Encodable, Sendable {
        package var keyId: String
        package var packageName: String
        package var securityLevel: String
        package var verifiedBootState: String?
        package var osPatchLevel: Int?
    }

    /// The most certificates a chain may hold (the library's limit is checked again there).
    static let maximumCertificates = 10

    /// Verifies `{"challenge", "certificateChain": [base64 DER, the key's certificate first]}`
    /// and stores the key with counter 0. A key registered before is 409; a challenge that is
    /// not usable 400; a refused attestation the library's 4xx (403 for an app, device or chain
    /// the policy does not accept).
    package func register(body data: Data, logger: Logger) async throws -> Registered {
        let body = try JSONBody.decode(RegisterBody.self, from: data)
        guard let texts = body.certificateChain, (2...Self.maximumCertificates).contains(texts.count) else {
            throw AppError(
                .badRequest, "certificateChain must hold the key's certificate chain: 2 to \(Self.maximumCertificates) certificates.")
        }
        var chain: [[UInt8]] = []
        for text in texts {
            guard let der = AppAttest.base64(text), !der.isEmpty else {
                throw AppError(.badRequest, "certificateChain must hold DER certificates in base64.")
            }
            chain.append(der)
        }
        guard let challenge = body.challenge else { throw AppError(.badRequest, "challenge is missing.") }
        let verified: VerifiedAndroidKeyAttestation
        do {
            verified = try await service.verifyAttestation(certificateChain: chain, challenge: challenge, now: Date())
        } catch let error as WebAuthnError {
            logger.notice("Android key attestation refused", metadata: ["detail": "\(error)"])
            switch error.category {
            case .challenge:
                throw AppError(.badRequest, "The Android challenge is unknown, expired or already used. Please ask for a new one.")
            case .credentialExists: throw AppError(.conflict, "This key was registered before.")
            case .malformed: throw AppError(.badRequest, "The certificate chain could not be read.")
            default: throw AppError(.forbidden, "The key's attestation does not show this app on a device this server accepts.")
            }
        }
        logger.info(
            "Android key attested",
            metadata: [
                "key": "\(Base64URLBytes(verified.key.keyId).base64URL)", "package": "\(verified.key.packageName)",
                "securityLevel": "\(verified.securityLevel.rawValue)",
            ])
        return Registered(
            keyId: Data(verified.key.keyId).base64EncodedString(), packageName: verified.key.packageName,
            securityLevel: verified.securityLevel.rawValue, verifiedBootState: verified.verifiedBootState?.rawValue,
            osPatchLevel: verified.osPatchLevel)
    }

    /// The request headers an assertion travels in.
    package enum Header {
        /// The key id from the registration, base64.
        package static let keyId = "Android-Key-Id"
        /// The signed counter, decimal.
        package static let counter = "Android-Key-Counter"
        /// The DER ECDSA signature, base64.
        package static let signature = "Android-Key-Signature"
        /// The challenge the assertion binds (from `POST /android/challenge`), when it binds one.
        package static let challenge = "Android-Key-Challenge"
        /// The refusal's reason, on a refused request.
        package static let error = "Android-Key-Error"
    }

    /// Verifies the Android assertion over one request a guarded route asks: the library's
    /// layout over the counter, the binding (the `Android-Key-Challenge` header's challenge, used
    /// up here, or the bearer access token's `jti`), `method`, the route's canonical `path` and
    /// the `body`; the counter advances by the key store's compare-and-swap, so an assertion
    /// counts once on any node. A request without the headers passes when the mode is optional.
    /// - Returns: The key id whose assertion verified (nil: passed without one).
    /// - Throws: ``AppError`` 401 with the `Android-Key-Error` header naming the reason.
    package func verifyRequest(
        keyId keyText: String?, counter counterText: String?, signature signatureText: String?, challenge: String?,
        method: String, path: String, body: Data, subject: Subject?, logger: Logger
    ) async throws -> [UInt8]? {
        if keyText == nil, counterText == nil, signatureText == nil {
            guard settings.mode == .required else { return nil }
            throw Self.refusal(
                "missing", "This request needs an Android key assertion (Android-Key-Id, Android-Key-Counter and Android-Key-Signature).")
        }
        guard let keyId = keyText.flatMap(AppAttest.base64), keyId.count == 32,
            let counter = counterText.flatMap({ UInt32($0) }),
            let signature = signatureText.flatMap(AppAttest.base64), (8...80).contains(signature.count)
        else {
            throw Self.refusal(
                "malformed",
                "Android-Key-Id (32 bytes, base64), Android-Key-Counter (decimal) and Android-Key-Signature (DER, base64) must all be present."
            )
        }
        guard let binding = challenge ?? AppIntegrity.tokenId(of: subject) else {
            throw Self.refusal(
                "challenge", "Without a bearer access token the assertion must bind a challenge (Android-Key-Challenge).")
        }
        do {
            _ = try await service.verifyAssertion(
                keyId: keyId, counter: counter, signature: signature, binding: binding, consumingChallenge: challenge != nil,
                method: method, path: path, body: Array(body), now: Date())
        } catch let error as WebAuthnError {
            logger.notice("Android key assertion refused", metadata: ["detail": "\(error)"])
            throw Self.refusal(for: error)
        }
        return keyId
    }

    static func refusal(_ code: String, _ message: String) -> AppError {
        AppIntegrity.refusal(.unauthorized, header: Header.error, code, message)
    }

    /// The library's verdict as the app sees it.
    static func refusal(for error: WebAuthnError) -> AppError {
        switch error.category {
        case .challenge: return refusal("challenge", "The Android challenge is unknown, expired or already used.")
        case .unknownCredential: return refusal("unknown-key", "No registered Android key has this key id.")
        case .signCount: return refusal("replayed", "The Android key assertion was replayed (its counter is not above the last one).")
        case .signature: return refusal("signature", "The Android key assertion's signature does not verify over this request.")
        default: return refusal("malformed", "The Android key assertion could not be read.")
        }
    }
}
