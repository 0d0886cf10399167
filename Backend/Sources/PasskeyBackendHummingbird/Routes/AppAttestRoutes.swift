import Foundation
import Hummingbird
import PasskeyBackend

/// App Attest's two endpoints (present unless `APP_ATTEST=off`):
///
/// - `POST /appattest/challenge` → `{"challenge": "…", "expiresAt": …}`: a single-use challenge
///   for `attestKey` (the app passes SHA-256 of its UTF-8 bytes as `clientDataHash`) or for one
///   request's assertion (``AppIntegrityMiddleware``).
/// - `POST /appattest/attest` with `{"keyId", "attestation", "challenge"}`: verified by the
///   library and stored → 201 `{"keyId", "environment"}`.
struct AppAttestRoutes: Sendable {
    let appAttest: AppAttest

    func addRoutes(to group: RouterGroup<PasskeyRequestContext>) {
        group.post("challenge") { _, _ in try await appAttest.challenge() }
        group.post("attest") { request, context in
            try await appAttest.attest(body: try await request.collectJSON(limit: Limits.responseBody), logger: context.logger)
        }
    }
}
