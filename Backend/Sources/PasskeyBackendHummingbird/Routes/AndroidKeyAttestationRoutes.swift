import Foundation
import Hummingbird
import PasskeyBackend

/// Android key attestation's two endpoints (present unless `ANDROID_KEY_ATTESTATION=off`):
///
/// - `POST /android/challenge` → `{"challenge": "…", "expiresAt": …}`: a single-use challenge
///   for the key's attestation (the app passes SHA-256 of its UTF-8 bytes to
///   `setAttestationChallenge`) or for one request's assertion (``AppIntegrityMiddleware``).
/// - `POST /android/register` with `{"challenge", "certificateChain"}`: verified by the library
///   and stored → 201 `{"keyId", "packageName", "securityLevel", "verifiedBootState", "osPatchLevel"}`.
struct AndroidKeyAttestationRoutes: Sendable {
    let android: AndroidKeyAttestation

    func addRoutes(to group: RouterGroup<PasskeyRequestContext>) {
        group.post("challenge") { _, _ in try await android.challenge() }
        group.post("register") { request, context in
            try await android.register(body: try await request.collectJSON(limit: Limits.responseBody), logger: context.logger)
        }
    }
}
