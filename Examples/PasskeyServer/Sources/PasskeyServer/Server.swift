import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import WebAuthnRP

/// The passkey endpoints. Every handler reads at most a capped body, answers JSON, and maps
/// every failure to a status with a client-safe text (the detail goes to the log only).
struct PasskeyServer: Sendable {
    let config: Config
    let service: RelyingPartyService
    let credentials: any PasskeyCredentialStore
    let accounts: any AccountStore
    let cookies: CookieSigner
    let sealingKey: SealedChallengeKey?
    let replayCache = SealedChallengeReplayCache()
    /// Writes failed ceremonies for `webauthn-replay` (RECORD_FAILED_CEREMONIES_DIR); nil: off.
    let recorder: FailedCeremonyRecorder?
    let logger: Logger

    /// Options requests are tiny; a response with attestation and extensions fits 64 KiB.
    static let optionsBodyLimit = 4_096
    static let responseBodyLimit = 65_536
    static let sessionLifetime: TimeInterval = 12 * 3600

    // MARK: Routes

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.staticFile("index.html", type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.staticFile("app.js", type: "text/javascript; charset=utf-8") }
        router.get("/healthz") { _, _ in json(["status": "ok", "node": config.nodeName]) }
        router.post("/api/register/options") { request, _ in await handle { try await registerOptions(request) } }
        router.post("/api/register/verify") { request, _ in await handle { try await registerVerify(request) } }
        router.post("/api/login/options") { request, _ in await handle { try await loginOptions(request) } }
        router.post("/api/login/verify") { request, _ in await handle { try await loginVerify(request) } }
        router.get("/api/me") { request, _ in await handle { try await me(request) } }
        router.delete("/api/passkeys/:id") { request, context in
            await handle { try await deletePasskey(request, id: context.parameters.get("id") ?? "") }
        }
        router.post("/api/logout") { _, _ in
            var response = json(["ok": true])
            response.setCookie(expired("pk_session"))
            return response
        }
    }

    // MARK: Registration

    struct RegisterOptionsBody: Decodable { var username: String?; var displayName: String? }

    func registerOptions(_ request: Request) async throws -> Response {
        let body: RegisterOptionsBody = try await decodeSmall(request)
        let now = Date()
        let username: String, userHandle: [UInt8], newAccount: Bool
        if let session = session(request) {
            // Signed in: a further passkey for this account.
            guard let name = try await accounts.username(userHandle: session) else { throw AppError.unauthorized }
            (username, userHandle, newAccount) = (name, session, false)
        } else {
            let name = try Self.validUsername(body.username)
            guard try await accounts.userHandle(username: name) == nil else {
                throw AppError(.conflict, "This username is taken. Sign in to add a passkey to it.")
            }
            (username, userHandle, newAccount) = (name, try PublicKeyCredentialUserEntityJSON.newUserHandle(), true)
        }
        let displayName = String((body.displayName ?? username).prefix(64))
        var options = RegistrationRequest(user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userHandle), name: username,
                                                                                  displayName: displayName))
        options.residentKey = .preferred
        options.userVerification = .preferred
        // credProps (is it discoverable?) and prf on the user's salt (PasskeyExtensions).
        options.extensions = PasskeyExtensions.registration(userHandle: userHandle)
        var ceremony = CeremonyPayload(username: username, userHandle: Base64URLBytes(userHandle).base64URL, newAccount: newAccount,
                                       exp: now.addingTimeInterval(service.policy.challengeLifetime).timeIntervalSince1970)
        let data: Data
        if let sealingKey {
            let sealed = try await service.beginRegistration(options, sealingWith: sealingKey, now: now)
            ceremony.sealed = sealed.sealedChallenge
            data = try sealed.options.jsonData()
        } else {
            let issued = try await service.beginRegistration(options, now: now)
            ceremony.challenge = issued.challenge.base64URL
            data = try issued.jsonData()
        }
        var response = raw(data)
        response.setCookie(try cookie("pk_reg", cookies.sign(ceremony, purpose: "registration")))
        return response
    }

    func registerVerify(_ request: Request) async throws -> Response {
        let body = try await collect(request, limit: Self.responseBodyLimit)
        guard let value = request.cookies["pk_reg"]?.value,
              let ceremony = cookies.verify(value, as: CeremonyPayload.self, purpose: "registration"),
              ceremony.exp >= Date().timeIntervalSince1970,
              let username = ceremony.username, let handleText = ceremony.userHandle,
              let userHandle = try? Base64URLBytes(base64URL: handleText, member: "userHandle").bytes else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let verified: VerifiedRegistration
        if let sealingKey, let sealed = ceremony.sealed {
            if let recorder {
                let recorded = try await service.finishRegistrationRecording(jsonData: body, sealedChallenge: sealed,
                                                                             key: sealingKey, replayCache: replayCache, now: now)
                await recorder.recordIfFailed(recorded.recording, node: config.nodeName)
                verified = try recorded.result.get()
            } else {
                verified = try await service.finishRegistration(jsonData: body, sealedChallenge: sealed, key: sealingKey,
                                                                replayCache: replayCache, now: now)
            }
        } else {
            let expected = try ceremony.challenge.map { try Base64URLBytes(base64URL: $0, member: "challenge").bytes }
            guard let expected else { throw AppError(.badRequest, "No registration is in progress. Please start again.") }
            if let recorder {
                let recorded = try await service.finishRegistrationRecording(jsonData: body, expectedChallenge: expected, now: now)
                await recorder.recordIfFailed(recorded.recording, node: config.nodeName)
                verified = try recorded.result.get()
            } else {
                verified = try await service.finishRegistration(jsonData: body, expectedChallenge: expected, now: now)
            }
        }
        // The options named this user; the library checked the response against them.
        if ceremony.newAccount == true {
            guard try await accounts.create(username: username, userHandle: userHandle) else {
                // Someone took the name between options and verification: undo the credential.
                _ = try await credentials.delete(id: verified.record.id, userHandle: userHandle)
                throw AppError(.conflict, "This username is taken. Sign in to add a passkey to it.")
            }
        }
        logger.info("registered", metadata: ["node": "\(config.nodeName)", "user": "\(username)",
                                             "credential": "\(Base64URLBytes(verified.record.id).base64URL)"])
        // What the extensions said (credProps rk, prf enabled) is on the record the store
        // kept; `prf` says whether the authenticator already evaluated the PRF (the output itself
        // is the client's and is not kept).
        var answer: [String: any Sendable] = ["ok": true, "username": username,
                                              "credentialId": Base64URLBytes(verified.record.id).base64URL,
                                              "backupEligible": verified.record.backupEligible,
                                              "prf": verified.extensions.prfResults != nil]
        answer.merge(PasskeyExtensions.properties(verified.record)) { _, new in new }
        var response = json(answer)
        response.setCookie(expired("pk_reg"))
        response.setCookie(try sessionCookie(userHandle))
        return response
    }

    // MARK: Login

    struct LoginOptionsBody: Decodable { var username: String? }

    func loginOptions(_ request: Request) async throws -> Response {
        let body: LoginOptionsBody = try await decodeSmall(request)
        let now = Date()
        var userHandle: [UInt8]? = nil
        var allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil
        var ceremony = CeremonyPayload(exp: now.addingTimeInterval(service.policy.challengeLifetime).timeIntervalSince1970)
        if let name = body.username, !name.isEmpty {
            let username = try Self.validUsername(name)
            // An unknown username gets options for a random handle (no allowCredentials), so the
            // answer does not say whether the account exists; its login is refused at verification.
            let account = try await accounts.loginLookup(username: username)
            let handle = try account?.userHandle ?? PublicKeyCredentialUserEntityJSON.newUserHandle()
            userHandle = handle
            // An unknown account has no credentials: nothing for the library to read.
            allowCredentials = account == nil ? [] : account?.allowCredentials
            // The signed cookie remembers whom the options were for, so a username-first login
            // needs no account lookup when it is verified (the library has already required the
            // credential to be one of this user handle's).
            ceremony.username = username
            ceremony.userHandle = Base64URLBytes(handle).base64URL
        }
        // Username-first: prf on the user's salt. (For an unknown name the salt is of the random
        // handle, like everything else in these options.)
        let options = AuthenticationRequest(userHandle: userHandle, userVerification: .preferred,
                                            extensions: PasskeyExtensions.authentication(userHandle: userHandle),
                                            allowCredentials: allowCredentials)
        let data: Data
        if let sealingKey {
            let sealed = try await service.beginAuthentication(options, sealingWith: sealingKey, now: now)
            ceremony.sealed = sealed.sealedChallenge
            data = try sealed.options.jsonData()
        } else {
            let issued = try await service.beginAuthentication(options, now: now)
            ceremony.challenge = issued.challenge.base64URL
            data = try issued.jsonData()
        }
        var response = raw(data)
        response.setCookie(try cookie("pk_login", cookies.sign(ceremony, purpose: "authentication")))
        return response
    }

    func loginVerify(_ request: Request) async throws -> Response {
        let body = try await collect(request, limit: Self.responseBodyLimit)
        guard let value = request.cookies["pk_login"]?.value,
              let ceremony = cookies.verify(value, as: CeremonyPayload.self, purpose: "authentication"),
              ceremony.exp >= Date().timeIntervalSince1970 else {
            throw AppError(.badRequest, "No login is in progress. Please start again.")
        }
        let now = Date()
        let verified: VerifiedAuthentication
        if let sealingKey, let sealed = ceremony.sealed {
            if let recorder {
                let recorded = try await service.finishAuthenticationRecording(jsonData: body, sealedChallenge: sealed,
                                                                               key: sealingKey, replayCache: replayCache, now: now)
                await recorder.recordIfFailed(recorded.recording, node: config.nodeName)
                verified = try recorded.result.get()
            } else {
                verified = try await service.finishAuthentication(jsonData: body, sealedChallenge: sealed, key: sealingKey,
                                                                  replayCache: replayCache, now: now)
            }
        } else {
            let expected = try ceremony.challenge.map { try Base64URLBytes(base64URL: $0, member: "challenge").bytes }
            guard let expected else { throw AppError(.badRequest, "No login is in progress. Please start again.") }
            if let recorder {
                let recorded = try await service.finishAuthenticationRecording(jsonData: body, expectedChallenge: expected, now: now)
                await recorder.recordIfFailed(recorded.recording, node: config.nodeName)
                verified = try recorded.result.get()
            } else {
                verified = try await service.finishAuthentication(jsonData: body, expectedChallenge: expected, now: now)
            }
        }
        guard let userHandle = verified.updatedRecord.userHandle else { throw AppError.unauthorized }
        let username: String
        if let named = ceremony.username, ceremony.userHandle == Base64URLBytes(userHandle).base64URL {
            username = named
        } else {
            guard let found = try await accounts.username(userHandle: userHandle) else { throw AppError.unauthorized }
            username = found
        }
        // `prf`: the library verified a PRF output for the salt asked (32 bytes); the output
        // is the client's key and is neither logged nor stored.
        let prf = verified.extensions.prfResults != nil
        logger.info("logged in", metadata: ["node": "\(config.nodeName)", "user": "\(username)",
                                            "signCount": "\(verified.updatedRecord.signCount)", "prf": "\(prf)"])
        var response = json(["ok": true, "username": username, "prf": prf])
        response.setCookie(expired("pk_login"))
        response.setCookie(try sessionCookie(userHandle))
        return response
    }

    // MARK: Account

    func me(_ request: Request) async throws -> Response {
        guard let userHandle = session(request), let username = try await accounts.username(userHandle: userHandle) else {
            throw AppError.unauthorized
        }
        let records = try await credentials.credentials(userHandle: userHandle)
        let usage = try await credentials.usage(userHandle: userHandle)
        let iso = ISO8601DateFormatter()
        let passkeys: [[String: any Sendable]] = records.map { record in
            let used = usage[ByteString(record.id)]
            var entry: [String: any Sendable] = [
                "id": Base64URLBytes(record.id).base64URL, "aaguid": record.aaguid, "signCount": Int(record.signCount),
                "backupEligible": record.backupEligible, "backupState": record.backupState,
                "transports": record.transports, "createdAt": used.map { iso.string(from: $0.createdAt) } ?? "",
                "lastUsedAt": used?.lastUsedAt.map { iso.string(from: $0) } ?? ""]
            // credProps rk and prf enabled, when the client said (PasskeyExtensions).
            entry.merge(PasskeyExtensions.properties(record)) { _, new in new }
            return entry
        }
        return json(["username": username, "passkeys": passkeys])
    }

    func deletePasskey(_ request: Request, id: String) async throws -> Response {
        guard let userHandle = session(request) else { throw AppError.unauthorized }
        guard let credentialId = try? Base64URLBytes(base64URL: id, member: "id").bytes, !credentialId.isEmpty,
              credentialId.count <= 1023 else {
            throw AppError(.badRequest, "Unknown passkey.")
        }
        guard try await credentials.delete(id: credentialId, userHandle: userHandle) else {
            throw AppError(.notFound, "Unknown passkey.")
        }
        logger.info("deleted passkey", metadata: ["node": "\(config.nodeName)", "credential": "\(id)"])
        return json(["ok": true])
    }

    // MARK: Sessions

    func session(_ request: Request) -> [UInt8]? {
        guard let value = request.cookies["pk_session"]?.value,
              let payload = cookies.verify(value, as: SessionPayload.self, purpose: "session"),
              payload.exp >= Date().timeIntervalSince1970 else { return nil }
        return try? Base64URLBytes(base64URL: payload.user, member: "user").bytes
    }

    func sessionCookie(_ userHandle: [UInt8]) throws -> Cookie {
        let payload = SessionPayload(user: Base64URLBytes(userHandle).base64URL,
                                     exp: Date().addingTimeInterval(Self.sessionLifetime).timeIntervalSince1970)
        return cookie("pk_session", try cookies.sign(payload, purpose: "session"), maxAge: Int(Self.sessionLifetime))
    }

    /// HttpOnly, SameSite=Strict (the page and API are one origin), Secure unless served on localhost.
    func cookie(_ name: String, _ value: String, maxAge: Int = 300) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: !config.isLocalhost, httpOnly: true, sameSite: .strict)
    }

    func expired(_ name: String) -> Cookie { cookie(name, "", maxAge: 0) }

    // MARK: Bodies and errors

    /// Reads at most `limit` bytes of a JSON body; more is 413, another content type 415.
    func collect(_ request: Request, limit: Int) async throws -> Data {
        let type = request.headers[.contentType] ?? ""
        guard type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw AppError(.unsupportedMediaType, "Send JSON (Content-Type: application/json).")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw AppError(.contentTooLarge, "The request is too large.")
        }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch {
            throw AppError(.contentTooLarge, "The request is too large.")
        }
        return Data(buffer.readableBytesView)
    }

    func decodeSmall<T: Decodable>(_ request: Request) async throws -> T {
        let data = try await collect(request, limit: Self.optionsBodyLimit)
        do { return try JSONDecoder().decode(T.self, from: data.isEmpty ? Data("{}".utf8) : data) } catch {
            throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
    }

    static func validUsername(_ name: String?) throws -> String {
        let trimmed = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(trimmed.count), trimmed.utf8.count <= 256,
              trimmed.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw AppError(.badRequest, "A username is 1 to 64 characters.")
        }
        return trimmed
    }

    /// Runs a handler; every error becomes a JSON `{"error": …}` with its status. Library errors
    /// use their own `httpStatus` and `clientMessage`; their full description is logged.
    func handle(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as WebAuthnError {
            logger.notice("ceremony refused", metadata: ["node": "\(config.nodeName)", "error": "\(error)"])
            return failure(error.httpStatus, error.clientMessage)
        } catch let error as RegistryError {
            logger.error("store", metadata: ["node": "\(config.nodeName)", "error": "\(error)"])
            return failure(error.httpStatus, error.clientMessage)
        } catch let error as ConcurrentUpdateError {
            logger.notice("login lost a race", metadata: ["node": "\(config.nodeName)", "error": "\(error)"])
            return failure(401, WebAuthnError.Category.signCount.clientMessage)
        } catch let error as AppError {
            return failure(Int(error.status.code), error.message)
        } catch {
            logger.error("unexpected", metadata: ["node": "\(config.nodeName)", "error": "\(String(reflecting: error))"])
            return failure(500, "Something went wrong.")
        }
    }

    func failure(_ status: Int, _ message: String) -> Response {
        var response = json(["error": message])
        response.status = HTTPResponse.Status(code: status)
        return response
    }

    static let publicFiles: [String: Data] = {
        var files: [String: Data] = [:]
        for name in ["index.html", "app.js"] {
            if let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Public"),
               let data = try? Data(contentsOf: url) {
                files[name] = data
            }
        }
        return files
    }()

    static func staticFile(_ name: String, type: String) -> Response {
        guard let data = publicFiles[name] else { return Response(status: .notFound) }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// An error the example raises itself, with the status and text the client sees.
struct AppError: Error {
    let status: HTTPResponse.Status
    let message: String
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
    static let unauthorized = AppError(.unauthorized, "Please sign in.")
}

func raw(_ data: Data) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}

func json(_ object: [String: any Sendable]) -> Response {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    return raw(data)
}
