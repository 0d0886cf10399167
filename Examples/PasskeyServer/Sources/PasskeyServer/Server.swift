import Crypto
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
    let relyingParty: RelyingParty
    let policy: VerificationPolicy
    let challenges: any ChallengeStore
    let service: RelyingPartyService
    let credentials: any PasskeyCredentialStore
    let accounts: any AccountStore
    let sessions: any SessionStore
    let cookies: CookieSigner
    let sealingKey: SealedChallengeKey?
    /// Which sealed challenges were answered: the database's table when there is one (single
    /// use across every node and restart), this process's memory otherwise.
    let replayStore: any SealedChallengeReplayStore
    /// Writes failed ceremonies for `webauthn-replay` (RECORD_FAILED_CEREMONIES_DIR); nil: off.
    let recorder: FailedCeremonyRecorder?
    let logger: Logger

    /// Options requests are tiny; a response with attestation and extensions fits 64 KiB.
    static let optionsBodyLimit = 4_096
    static let responseBodyLimit = 65_536
    static let sessionLifetime: TimeInterval = 12 * 3600
    /// Passkeys per page of the list (`limit` may ask for up to the per-account cap).
    static let pageSize = 10

    init(config: Config, relyingParty: RelyingParty, policy: VerificationPolicy, challenges: any ChallengeStore,
         credentials: any PasskeyCredentialStore, accounts: any AccountStore, sessions: any SessionStore,
         cookies: CookieSigner, sealingKey: SealedChallengeKey?, replayStore: any SealedChallengeReplayStore,
         recorder: FailedCeremonyRecorder?, logger: Logger) {
        self.config = config
        self.relyingParty = relyingParty
        self.policy = policy
        self.challenges = challenges
        // How challenges travel is configuration: sealed with the fleet's key, or stored.
        let transport: ChallengeTransport = sealingKey.map { .sealed($0, replayStore: replayStore) } ?? .stored(challenges)
        self.service = RelyingPartyService(relyingParty: relyingParty, policy: policy, challenges: transport,
                                           credentials: RegistrationWriter(base: credentials))
        self.credentials = credentials
        self.accounts = accounts
        self.sessions = sessions
        self.cookies = cookies
        self.sealingKey = sealingKey
        self.replayStore = replayStore
        self.recorder = recorder
        self.logger = logger
    }

    // MARK: Routes

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.staticFile("index.html", type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.staticFile("app.js", type: "text/javascript; charset=utf-8") }
        router.get("/healthz") { _, _ in json(["status": "ok", "node": config.nodeName]) }
        router.post("/api/register/options") { request, _ in await handle(request) { try await registerOptions(request) } }
        router.post("/api/register/verify") { request, _ in await handle(request) { try await registerVerify(request) } }
        router.post("/api/login/options") { request, _ in await handle(request) { try await loginOptions(request) } }
        router.post("/api/login/verify") { request, _ in await handle(request) { try await loginVerify(request) } }
        router.get("/api/me") { request, _ in await handle(request) { try await me(request) } }
        router.delete("/api/passkeys/:id") { request, context in
            await handle(request) { try await deletePasskey(request, id: context.parameters.get("id") ?? "") }
        }
        router.post("/api/logout") { request, _ in await handle(request) { try await logout(request, everywhere: false) } }
        router.post("/api/logout-all") { request, _ in await handle(request) { try await logout(request, everywhere: true) } }
    }

    // MARK: Registration

    struct RegisterOptionsBody: Decodable { var username: String?; var displayName: String? }

    func registerOptions(_ request: Request) async throws -> Response {
        let body: RegisterOptionsBody = try await decodeSmall(request)
        let now = Date()
        let username: String, userHandle: [UInt8], newAccount: Bool
        if let session = try await session(request) {
            // Signed in: a further passkey for this account, from a recent sign-in only, under the cap.
            try requireFreshSignIn(session, now: now)
            guard let name = try await accounts.username(userHandle: session.userHandle) else { throw AppError.unauthorized }
            guard try await credentials.count(userHandle: session.userHandle) < config.maxPasskeysPerAccount else {
                throw capReached
            }
            (username, userHandle, newAccount) = (name, session.userHandle, false)
        } else {
            let name = try Username(body.username)
            guard try await accounts.userHandle(username: name) == nil else { throw usernameTaken }
            (username, userHandle, newAccount) = (name.display, try PublicKeyCredentialUserEntityJSON.newUserHandle(), true)
        }
        let displayName = String((body.displayName ?? username).prefix(64))
        var options = RegistrationRequest(user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userHandle), name: username,
                                                                                  displayName: displayName))
        options.residentKey = .preferred
        options.userVerification = .preferred
        // credProps (is it discoverable?) and prf on the user's salt (PasskeyExtensions).
        options.extensions = PasskeyExtensions.registration(userHandle: userHandle)
        var ceremony = CeremonyPayload(username: username, userHandle: Base64URLBytes(userHandle).base64URL, newAccount: newAccount,
                                       exp: now.addingTimeInterval(policy.challengeLifetime).timeIntervalSince1970)
        let start = try await service.beginRegistration(options, now: now)
        ceremony.state = start.challenge
        let data = try start.options.jsonData()
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
        let newAccount = ceremony.newAccount == true ? try Username(username) : nil
        var current: Session? = nil
        if newAccount == nil {
            // Adding to an account: the session that began it must still be alive and recent
            // (signing out, signing out everywhere or deleting its passkey stops it here).
            guard let session = try await session(request), session.userHandle == userHandle else { throw AppError.unauthorized }
            try requireFreshSignIn(session, now: now)
            current = session
        }
        // This registration's store step creates the account (when new) with the credential, in
        // one transaction, under the per-account cap: the shared service writes through a
        // RegistrationWriter, told about this registration by a task-local.
        let registration = RegistrationWriter.Registration(newAccount: newAccount, cap: config.maxPasskeysPerAccount,
                                                           capReached: capReached, usernameTaken: usernameTaken)
        guard let state = ceremony.state else { throw AppError(.badRequest, "No registration is in progress. Please start again.") }
        let credential: RegistrationResponse
        do {
            credential = try RegistrationResponse(jsonData: body)
        } catch {
            await recorder?.recordIfFailed(CeremonyRecording(unparsedBody: body, kind: .registration, error: error, challenge: state,
                                                             service: service, receivedAt: now), node: config.nodeName)
            throw error
        }
        let verified = try await RegistrationWriter.$current.withValue(registration) {
            try await service.finishRegistration(credential, challenge: state, now: now,
                                                 observer: recorder?.observer(node: config.nodeName))
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
        if current == nil {
            // A new account is signed in with its first passkey.
            response.setCookie(try await startSession(userHandle: userHandle, credentialId: verified.record.id, replacing: request))
        }
        return response
    }

    var capReached: AppError {
        AppError(.conflict, "This account holds \(config.maxPasskeysPerAccount) passkeys, the most it may. Delete one first.")
    }
    var usernameTaken: AppError { AppError(.conflict, "This username is taken. Sign in to add a passkey to it.") }

    // MARK: Login

    struct LoginOptionsBody: Decodable { var username: String? }

    func loginOptions(_ request: Request) async throws -> Response {
        let body: LoginOptionsBody = try await decodeSmall(request)
        let now = Date()
        var userHandle: [UInt8]? = nil
        var allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil
        var ceremony = CeremonyPayload(exp: now.addingTimeInterval(policy.challengeLifetime).timeIntervalSince1970)
        if let name = body.username, !name.isEmpty {
            let username = try Username(name)
            // Usernames are public in this example (README, "Usernames"): registration answers
            // "taken", and these options differ for a name without an account (a random handle,
            // no allowCredentials), whose login is refused at verification.
            let account = try await accounts.loginLookup(username: username)
            let handle = try account?.userHandle ?? PublicKeyCredentialUserEntityJSON.newUserHandle()
            userHandle = handle
            // An unknown account has no credentials: nothing for the library to read.
            allowCredentials = account == nil ? [] : account?.allowCredentials
            // The signed cookie remembers whom the options were for, so a username-first login
            // needs no account lookup when it is verified (the library has already required the
            // credential to be one of this user handle's).
            ceremony.username = account?.username ?? username.display
            ceremony.userHandle = Base64URLBytes(handle).base64URL
        }
        // Username-first: prf on the user's salt. (For an unknown name the salt is of the random
        // handle, like everything else in these options.)
        let options = AuthenticationRequest(userHandle: userHandle, userVerification: .preferred,
                                            extensions: PasskeyExtensions.authentication(userHandle: userHandle),
                                            allowCredentials: allowCredentials)
        let start = try await service.beginAuthentication(options, now: now)
        ceremony.state = start.challenge
        let data = try start.options.jsonData()
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
        guard let state = ceremony.state else { throw AppError(.badRequest, "No login is in progress. Please start again.") }
        let credential: AuthenticationResponse
        do {
            credential = try AuthenticationResponse(jsonData: body)
        } catch {
            await recorder?.recordIfFailed(CeremonyRecording(unparsedBody: body, kind: .authentication, error: error, challenge: state,
                                                             service: service, receivedAt: now), node: config.nodeName)
            throw error
        }
        // A lost race with a concurrent login of the same credential is a WebAuthnError
        // (signCount, step "credential store update"): refused with 401 like any other verdict.
        let verified = try await service.finishAuthentication(credential, challenge: state, now: now,
                                                              observer: recorder?.observer(node: config.nodeName))
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
        response.setCookie(try await startSession(userHandle: userHandle, credentialId: verified.updatedRecord.id, replacing: request))
        return response
    }

    // MARK: Account

    /// The account and one page of its passkeys: `?after=<id>` continues after that passkey,
    /// `?limit=` (1 to the per-account cap, default 10); `next` is there when more follow.
    func me(_ request: Request) async throws -> Response {
        guard let session = try await session(request),
              let username = try await accounts.username(userHandle: session.userHandle) else {
            throw AppError.unauthorized
        }
        let query = request.uri.queryParameters
        var after: [UInt8]? = nil
        if let text = query.get("after") {
            guard let bytes = try? Base64URLBytes(base64URL: text, member: "after").bytes, (1...1023).contains(bytes.count) else {
                throw AppError(.badRequest, "Unknown page.")
            }
            after = bytes
        }
        var limit = Self.pageSize
        if let text = query.get("limit") {
            guard let value = Int(text), (1...config.maxPasskeysPerAccount).contains(value) else {
                throw AppError(.badRequest, "A page holds 1 to \(config.maxPasskeysPerAccount) passkeys.")
            }
            limit = value
        }
        let page = try await credentials.page(userHandle: session.userHandle, after: after, limit: limit + 1)
        let iso = ISO8601DateFormatter()
        let passkeys: [[String: any Sendable]] = page.prefix(limit).map { listed in
            let record = listed.record
            var entry: [String: any Sendable] = [
                "id": Base64URLBytes(record.id).base64URL, "aaguid": record.aaguid, "signCount": Int(record.signCount),
                "backupEligible": record.backupEligible, "backupState": record.backupState,
                "transports": record.transports, "createdAt": iso.string(from: listed.usage.createdAt),
                "lastUsedAt": listed.usage.lastUsedAt.map { iso.string(from: $0) } ?? "",
                "current": record.id == session.credentialId]
            // credProps rk and prf enabled, when the client said (PasskeyExtensions).
            entry.merge(PasskeyExtensions.properties(record)) { _, new in new }
            return entry
        }
        var answer: [String: any Sendable] = ["username": username, "passkeys": passkeys,
                                              "maxPasskeys": config.maxPasskeysPerAccount,
                                              "signedInAt": iso.string(from: session.signedInAt)]
        if page.count > limit, let last = page.prefix(limit).last { answer["next"] = Base64URLBytes(last.record.id).base64URL }
        return json(answer)
    }

    func deletePasskey(_ request: Request, id: String) async throws -> Response {
        guard let session = try await session(request) else { throw AppError.unauthorized }
        try requireFreshSignIn(session, now: Date())
        guard let credentialId = try? Base64URLBytes(base64URL: id, member: "id").bytes, !credentialId.isEmpty,
              credentialId.count <= 1023 else {
            throw AppError(.badRequest, "Unknown passkey.")
        }
        guard try await credentials.delete(id: credentialId, userHandle: session.userHandle) else {
            throw AppError(.notFound, "Unknown passkey.")
        }
        // Every session that passkey signed in ends with it (a copied cookie included).
        try await sessions.credentialDeleted(credentialId)
        logger.info("deleted passkey", metadata: ["node": "\(config.nodeName)", "credential": "\(id)"])
        let signedOut = credentialId == session.credentialId
        var response = json(["ok": true, "signedOut": signedOut])
        if signedOut { response.setCookie(expired("pk_session")) }
        return response
    }

    /// Ends this session, or (`everywhere`) every session of its account.
    func logout(_ request: Request, everywhere: Bool) async throws -> Response {
        _ = try await collect(request, limit: Self.optionsBodyLimit)   // JSON only: no cross-site form can post it
        var ended = 0
        if let session = try await session(request) {
            if everywhere {
                ended = try await sessions.deleteAll(userHandle: session.userHandle)
            } else {
                try await sessions.delete(id: session.id)
                ended = 1
            }
        } else if everywhere {
            throw AppError.unauthorized
        }
        var response = json(["ok": true, "sessionsEnded": ended])
        response.setCookie(expired("pk_session"))
        return response
    }

    // MARK: Sessions

    /// The live session the request's cookie names, if any.
    func session(_ request: Request) async throws -> Session? {
        guard let token = Self.sessionToken(request) else { return nil }
        return try await sessions.session(id: Self.sessionID(token), now: Date())
    }

    /// A session's cookie value is 32 random bytes, base64url; anything else names no session.
    static func sessionToken(_ request: Request) -> [UInt8]? {
        guard let value = request.cookies["pk_session"]?.value, value.utf8.count == 43,
              let token = try? Base64URLBytes(base64URL: value, member: "session").bytes, token.count == 32 else { return nil }
        return token
    }

    static func sessionID(_ token: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: token)) }

    /// Signs the user in: a new session row and its cookie. The session the request came with
    /// (if any) ends, so signing in again does not pile up sessions.
    func startSession(userHandle: [UInt8], credentialId: [UInt8], replacing request: Request) async throws -> Cookie {
        if let old = Self.sessionToken(request) { try await sessions.delete(id: Self.sessionID(old)) }
        var generator = SystemRandomNumberGenerator()   // the OS CSPRNG
        let token = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let now = Date()
        try await sessions.create(Session(id: Self.sessionID(token), userHandle: userHandle, credentialId: credentialId,
                                          signedInAt: now, expiresAt: now.addingTimeInterval(Self.sessionLifetime)))
        return cookie("pk_session", Base64URLBytes(token).base64URL, maxAge: Int(Self.sessionLifetime))
    }

    /// Changing the account's passkeys needs a passkey assertion of the last few minutes: a
    /// copied session cookie alone cannot add the thief's passkey or delete the owner's.
    func requireFreshSignIn(_ session: Session, now: Date) throws {
        guard now.timeIntervalSince(session.signedInAt) <= config.freshSignIn else {
            throw AppError(.forbidden, "Sign in again with a passkey to change your passkeys.", reauthenticate: true)
        }
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

    /// An options body: JSON of at most 4 KiB, refused (400) with a duplicate member name in any
    /// object, as the library refuses one in a response (which of two values would count is
    /// not something to leave to a decoder).
    func decodeSmall<T: Decodable>(_ request: Request) async throws -> T {
        let data = try await collect(request, limit: Self.optionsBodyLimit)
        let text = data.isEmpty ? Data("{}".utf8) : data
        do {
            _ = try JSONValue(jsonData: text)   // the library's strict reader: a duplicate member is refused
            return try JSONDecoder().decode(T.self, from: text)
        } catch {
            throw AppError(.badRequest, "The request is not valid JSON for this endpoint.")
        }
    }

    /// A request that changes state (anything but GET and HEAD) from a browser must come from
    /// one of our origins: `Origin`, when sent, is one of ORIGINS, and `Sec-Fetch-Site`, when
    /// sent, says same-origin (or none: typed by the user). Clients that send neither (native
    /// apps, curl) are not browsers and carry no victim's cookie; every POST must also be JSON
    /// (``collect(_:limit:)``), which no cross-site form can send.
    func checkSameOrigin(_ request: Request) throws {
        guard request.method != .get, request.method != .head else { return }
        if let origin = request.headers[.origin], !config.origins.contains(origin) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
        if let site = request.headers[Self.secFetchSite], !["same-origin", "none"].contains(site.lowercased()) {
            throw AppError(.forbidden, "Cross-origin requests are refused.")
        }
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// Runs a handler; every error becomes a JSON `{"error": …}` with its status. Library errors
    /// use their own `httpStatus` and `clientMessage`; their full description is logged.
    func handle(_ request: Request, _ body: () async throws -> Response) async -> Response {
        do {
            try checkSameOrigin(request)
            return try await body()
        } catch let error as WebAuthnError {
            logger.notice("ceremony refused", metadata: ["node": "\(config.nodeName)", "error": "\(error)"])
            return failure(error.httpStatus, error.clientMessage)
        } catch let error as RegistryError {
            logger.error("store", metadata: ["node": "\(config.nodeName)", "error": "\(error)"])
            return failure(error.httpStatus, error.clientMessage)
        } catch let error as AppError {
            return failure(Int(error.status.code), error.message, reauthenticate: error.reauthenticate)
        } catch {
            logger.error("unexpected", metadata: ["node": "\(config.nodeName)", "error": "\(String(reflecting: error))"])
            return failure(500, "Something went wrong.")
        }
    }

    func failure(_ status: Int, _ message: String, reauthenticate: Bool = false) -> Response {
        var response = json(reauthenticate ? ["error": message, "reauthenticate": true] : ["error": message])
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
struct AppError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String
    /// The client should sign in again with a passkey and retry (a change that needs a recent sign-in).
    let reauthenticate: Bool
    init(_ status: HTTPResponse.Status, _ message: String, reauthenticate: Bool = false) {
        self.status = status
        self.message = message
        self.reauthenticate = reauthenticate
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
