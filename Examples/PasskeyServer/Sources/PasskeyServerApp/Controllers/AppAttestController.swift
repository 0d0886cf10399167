import Foundation
import Hummingbird
import Logging
import WebAuthnRP

/// App Attest's two endpoints (present unless `APP_ATTEST=off`):
///
/// - `POST /appattest/challenge` → `{"challenge": "…", "expiresAt": …}`: a single-use challenge,
///   issued by the library's `AppAttestService` on the server's challenge transport,
///   for `attestKey` (the app passes SHA-256 of its UTF-8 bytes as `clientDataHash`) or for one
///   request's assertion (``AppAttestMiddleware``).
/// - `POST /appattest/attest` with `{"keyId", "attestation", "challenge"}` (`keyId` and
///   `attestation` in base64 as `DCAppAttestService` gives them; base64url is accepted too):
///   verified by the library (Apple's steps, this server's app, environment and root), and the
///   key is stored with counter 0, its environment and receipt → 201 `{"keyId", "environment"}`.
///   A key id attested before is 409; a refused attestation is the library's 4xx.
struct AppAttestController: Sendable {
    let appAttest: AppAttest

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("challenge", use: challenge)
        group.post("attest", use: attest)
    }

    struct Challenge: ResponseEncodable {
        var challenge: String
        /// Seconds since 1970.
        var expiresAt: Int
    }

    @Sendable func challenge(_ request: Request, context: AppRequestContext) async throws -> Challenge {
        let issued = try await appAttest.service.issueChallenge(now: Date())
        return Challenge(challenge: issued.challenge, expiresAt: Int(issued.expiresAt.timeIntervalSince1970))
    }

    struct AttestBody: Decodable { var keyId: String?; var attestation: String?; var challenge: String? }

    struct Attested: ResponseGenerator, Encodable {
        var keyId: String
        var environment: String

        func response(from request: Request, context: some RequestContext) throws -> Response {
            var response = try context.responseEncoder.encode(self, from: request, context: context)
            response.status = .created
            return response
        }
    }

    @Sendable func attest(_ request: Request, context: AppRequestContext) async throws -> Attested {
        let data = try await request.collectJSON(limit: Limits.responseBody)
        let body: AttestBody
        do {
            _ = try JSONValue(jsonData: data)  // the library's strict reader: a duplicate member is refused
            body = try JSONDecoder().decode(AttestBody.self, from: data)
        } catch {
            throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
        guard let keyId = body.keyId.flatMap(Self.base64), keyId.count == 32 else {
            throw AppError(.badRequest, "keyId must be the key's 32-byte identifier in base64.")
        }
        guard let attestation = body.attestation.flatMap(Self.base64), !attestation.isEmpty else {
            throw AppError(.badRequest, "attestation must be the attestation object in base64.")
        }
        guard let challenge = body.challenge else { throw AppError(.badRequest, "challenge is missing.") }
        let verified: VerifiedAppAttestation
        do {
            verified = try await appAttest.service.verifyAttestation(
                keyId: keyId, attestation: attestation, challenge: challenge, now: Date())
        } catch let error as WebAuthnError where error.category == .challenge {
            throw AppError(.badRequest, "The App Attest challenge is unknown, expired or already used. Please ask for a new one.")
        }
        context.logger.info(
            "App Attest key attested",
            metadata: [
                "key": "\(Base64URLBytes(keyId).base64URL)",
                "environment": "\(verified.key.environment.rawValue)",
            ])
        return Attested(keyId: Data(keyId).base64EncodedString(), environment: verified.key.environment.rawValue)
    }

    /// Standard base64 (as `DCAppAttestService` gives it) or base64url, padded or not; nil for anything else.
    static func base64(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 2 * Limits.responseBody else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
