import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PasskeyBackend

/// The FIDO2 Server Conformance Test API (`/attestation/options|result`,
/// `/assertion/options|result`), mounted only when `CONFORMANCE=1`: the core's
/// `ConformanceFlows`, with the request's body and ceremony cookie.
struct ConformanceRoutes: Sendable {
    let flows: ConformanceFlows

    func addRoutes(to router: Router<PasskeyRequestContext>) {
        router.post("attestation/options") { request, context in
            await answer(context) { try await flows.attestationOptions(try await request.smallJSONObject()) }
        }
        router.post("attestation/result") { request, context in
            await answer(context) {
                try await flows.attestationResult(
                    try await request.collectJSON(limit: Limits.responseBody), state: request.passkeyCookies.registration,
                    logger: context.logger)
            }
        }
        router.post("assertion/options") { request, context in
            await answer(context) { try await flows.assertionOptions(try await request.smallJSONObject()) }
        }
        router.post("assertion/result") { request, context in
            await answer(context) {
                try await flows.assertionResult(
                    try await request.collectJSON(limit: Limits.responseBody), state: request.passkeyCookies.login,
                    logger: context.logger)
            }
        }
    }

    func answer(_ context: PasskeyRequestContext, _ work: () async throws -> ConformanceFlows.Answer) async -> Response {
        let (status, body, cookies) = await ConformanceFlows.respond(logger: context.logger, work)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        var response = Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        for cookie in cookies { response.setCookie(Cookie(cookie)) }
        return response
    }
}
