import Foundation
import PasskeyBackend
import Vapor

/// Android key attestation's two endpoints (present unless `ANDROID_KEY_ATTESTATION=off`):
/// `POST /android/challenge` → `{"challenge": "…", "expiresAt": …}`, and
/// `POST /android/register` with `{"challenge", "certificateChain"}` → 201 `{"keyId",
/// "packageName", "securityLevel", "verifiedBootState", "osPatchLevel"}`.
struct AndroidKeyAttestationRoutes: Sendable {
    let android: AndroidKeyAttestation

    func addRoutes(to group: any RoutesBuilder) {
        group.post("challenge") { _ in try Answer.json(await android.challenge()) }
        group.post("register") { request in
            try Answer.json(
                await android.register(body: try await request.collectJSON(limit: Limits.responseBody), logger: request.logger),
                status: .created)
        }
    }
}
