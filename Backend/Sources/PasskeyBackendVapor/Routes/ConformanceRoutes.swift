import Foundation
import HTTPTypes
import PasskeyBackend
import Vapor

/// The FIDO2 Server Conformance Test API (`/attestation/options|result`,
/// `/assertion/options|result`), mounted only when `CONFORMANCE=1`: the core's
/// `ConformanceFlows`, with the request's body and ceremony cookie.
struct ConformanceRoutes: Sendable {
    let flows: ConformanceFlows

    func addRoutes(to routes: any RoutesBuilder) {
        routes.post("attestation", "options") { request in
            await answer(request) { try await flows.attestationOptions(try await request.smallJSONObject()) }
        }
        routes.post("attestation", "result") { request in
            await answer(request) {
                try await flows.attestationResult(
                    try await request.collectJSON(limit: Limits.responseBody), state: request.passkeyCookies.registration,
                    logger: request.logger)
            }
        }
        routes.post("assertion", "options") { request in
            await answer(request) { try await flows.assertionOptions(try await request.smallJSONObject()) }
        }
        routes.post("assertion", "result") { request in
            await answer(request) {
                try await flows.assertionResult(
                    try await request.collectJSON(limit: Limits.responseBody), state: request.passkeyCookies.login,
                    logger: request.logger)
            }
        }
    }

    func answer(_ request: Request, _ work: () async throws -> ConformanceFlows.Answer) async -> Response {
        let (status, body, cookies) = await ConformanceFlows.respond(logger: request.logger, work)
        return Answer.json(body, status: HTTPResponseStatus(statusCode: status.code)).setting(cookies)
    }
}
