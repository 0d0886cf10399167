import Foundation
import PasskeyBackend
import Vapor

/// App Attest's two endpoints (present unless `APP_ATTEST=off`): `POST /appattest/challenge` →
/// `{"challenge": "…", "expiresAt": …}`, and `POST /appattest/attest` with
/// `{"keyId", "attestation", "challenge"}` → 201 `{"keyId", "environment"}`.
struct AppAttestRoutes: Sendable {
    let appAttest: AppAttest

    func addRoutes(to group: any RoutesBuilder) {
        group.post("challenge") { _ in try Answer.json(await appAttest.challenge()) }
        group.post("attest") { request in
            try Answer.json(
                await appAttest.attest(body: try await request.collectJSON(limit: Limits.responseBody), logger: request.logger),
                status: .created)
        }
    }
}
