import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebAuthnCrypto
import WebAuthnRP

/// What `CONFORMANCE=1` reads: the anchors and metadata statements the FIDO conformance tool
/// hands out. **For conformance runs only** (README, "Conformance profile").
struct ConformanceSettings: Sendable {
    /// A folder of PEM certificates (`TRUST_ANCHORS_DIR`): anchors for every authenticator.
    var trustAnchorsDirectory: String
    /// A folder of metadata statement JSON files (`METADATA_DIR`): each authenticator's roots.
    var metadataDirectory: String

    static func fromEnvironment(_ env: [String: String]) throws -> ConformanceSettings? {
        guard let flag = env["CONFORMANCE"], !flag.isEmpty, flag != "0" else { return nil }
        guard flag == "1" else { throw ConfigError("CONFORMANCE is 1 or unset, not \(flag)") }
        guard let anchors = env["TRUST_ANCHORS_DIR"], !anchors.isEmpty, let metadata = env["METADATA_DIR"], !metadata.isEmpty
        else {
            throw ConfigError("CONFORMANCE=1 needs TRUST_ANCHORS_DIR (PEM files) and METADATA_DIR (metadata statement JSON files)")
        }
        if let url = env["DATABASE_URL"], !url.isEmpty { throw ConfigError("CONFORMANCE=1 keeps its stores in memory: unset DATABASE_URL") }
        return ConformanceSettings(trustAnchorsDirectory: anchors, metadataDirectory: metadata)
    }

    /// The library's conformance profile over the statements and anchors in the two folders.
    func policy() throws -> VerificationPolicy {
        var anchors: [Certificate] = []
        for (name, data) in try Self.files(in: trustAnchorsDirectory, suffixes: [".pem", ".crt"]) {
            // A file may hold several certificates: each BEGIN…END block is one.
            let text = String(decoding: data, as: UTF8.self)
            let blocks = text.components(separatedBy: "-----END CERTIFICATE-----").dropLast()
            guard !blocks.isEmpty else { throw ConfigError("TRUST_ANCHORS_DIR: \(name) holds no PEM certificate") }
            for block in blocks {
                do { anchors.append(try Certificate(pemEncoded: block + "-----END CERTIFICATE-----\n")) } catch {
                    throw ConfigError("TRUST_ANCHORS_DIR: \(name) is not a PEM certificate: \(error)")
                }
            }
        }
        let statements = try Self.files(in: metadataDirectory, suffixes: [".json"]).map(\.1)
        let trust: MetadataTrust
        do { trust = try MetadataTrust(statements: statements, additionalAnchors: anchors) } catch {
            throw ConfigError("METADATA_DIR: \(error)")
        }
        return .fidoConformance(trust: trust)
    }

    /// The regular files of `directory` whose names end in one of `suffixes`, by name, each at most 1 MiB.
    static func files(in directory: String, suffixes: [String]) throws -> [(String, Data)] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw ConfigError("\(directory) cannot be read: \(error)")
        }
        return try names.sorted().filter { name in suffixes.contains { name.lowercased().hasSuffix($0) } }.map { name in
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
                throw ConfigError("\(path) cannot be read or is larger than 1 MiB")
            }
            return (name, data)
        }
    }
}

/// The FIDO2 Server Conformance Test API (`/attestation/options|result`,
/// `/assertion/options|result`), mounted only when `CONFORMANCE=1`. Every ceremony goes through
/// the web page's machinery: the same service and stores, the same signed ceremony cookies
/// (`pk_reg`, `pk_login`), the same registration writer. Each answer carries the API's
/// `status` and `errorMessage`; a failure is HTTP 400 with `status` `failed`.
struct ConformanceController: Sendable {
    let web: WebCeremonyController

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("attestation/options") { request, context in await answer(context) { try await attestationOptions(request) } }
        router.post("attestation/result") { request, context in
            await answer(context) { try await attestationResult(request, context: context) }
        }
        router.post("assertion/options") { request, context in await answer(context) { try await assertionOptions(request) } }
        router.post("assertion/result") { request, context in
            await answer(context) { try await assertionResult(request, context: context) }
        }
    }

    /// A ServerResponse: the body with `status: ok` and an empty `errorMessage`, or `status:
    /// failed` with the error's client-safe text (never empty) and 400.
    func answer(
        _ context: AppRequestContext, _ work: () async throws -> ([String: JSONValue], [Cookie])
    ) async -> Response {
        var body: [String: JSONValue]
        var cookies: [Cookie] = []
        var status = HTTPResponse.Status.ok
        do {
            (body, cookies) = try await work()
            body["status"] = .string("ok")
            body["errorMessage"] = .string("")
        } catch {
            let message: String
            switch error {
            case let error as WebAuthnError: message = "\(error.category): \(error.clientMessage)"
            case let error as AppError: message = error.message
            default: message = "The request could not be processed."
            }
            context.logger.info("conformance: failed", metadata: ["error": "\(String(reflecting: error))"])
            body = ["status": .string("failed"), "errorMessage": .string(message.isEmpty ? "failed" : message)]
            status = .badRequest
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder().encode(JSONValue.object(body))) ?? Data(#"{"status":"failed","errorMessage":"encoding"}"#.utf8)
        var response = Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    static func invalid(_ what: String) -> AppError { AppError(.badRequest, "The request's \(what) is not valid.") }

    /// `userVerification`, `residentKey`, `authenticatorAttachment` as the library's values;
    /// an unknown string is ignored as a client ignores it (L3 §5.4), another JSON kind refused.
    static func string(_ object: [String: JSONValue], _ name: String, known: [String]) throws -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return known.contains(value) ? value : nil
        default: throw invalid(name)
        }
    }

    static func objectMember(_ json: [String: JSONValue], _ name: String) throws -> [String: JSONValue]? {
        switch json[name] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw invalid(name)
        }
    }

    /// The options the library made, as an object, with the request's members echoed over it.
    static func object(_ data: Data) throws -> [String: JSONValue] {
        guard case .object(let members)? = try? JSONValue(jsonData: data) else { throw AppError(.internalServerError, "options") }
        return members
    }

    // MARK: Registration

    func attestationOptions(_ request: Request) async throws -> ([String: JSONValue], [Cookie]) {
        let json = try await request.smallJSONObject()
        let name = try Username(try json.optionalString("username"))
        let displayName = String((try json.optionalString("displayName") ?? name.display).prefix(64))
        let selection = try Self.objectMember(json, "authenticatorSelection")
        let extensions = try Self.objectMember(json, "extensions")
        let attestation = try Self.string(json, "attestation", known: ["none", "indirect", "direct", "enterprise"])
        let userVerification = try selection.flatMap {
            try Self.string($0, "userVerification", known: ["required", "preferred", "discouraged"])
        }
        var residentKey = try selection.flatMap { try Self.string($0, "residentKey", known: ["required", "preferred", "discouraged"]) }
        if residentKey == nil, case .bool(true)? = selection?["requireResidentKey"] { residentKey = "required" }
        let attachment = try selection.flatMap { try Self.string($0, "authenticatorAttachment", known: ["platform", "cross-platform"]) }

        // A name already registered gets one more credential (its others in excludeCredentials).
        let now = Date()
        let existing = try await web.repositories.accounts.userHandle(username: name)
        let userHandle = try existing ?? PublicKeyCredentialUserEntityJSON.newUserHandle()
        let options = RegistrationRequest(
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userHandle), name: name.display, displayName: displayName),
            algorithms: VerificationPolicy.defaultAlgorithms + [.rs1],
            userVerification: UserVerificationRequirement(rawValue: userVerification ?? "preferred"),
            residentKey: ResidentKeyRequirement(rawValue: residentKey ?? "discouraged"),
            authenticatorAttachment: attachment.map { AuthenticatorAttachment(rawValue: $0) },
            attestation: AttestationConveyancePreference(rawValue: attestation ?? "none"))
        let start = try await web.service.beginRegistration(options, now: now)
        var ceremony = CeremonyPayload(
            username: name.display, userHandle: Base64URLBytes(userHandle).base64URL, newAccount: existing == nil,
            exp: now.addingTimeInterval(web.policy.challengeLifetime).timeIntervalSince1970)
        ceremony.state = start.challenge
        var body: [String: JSONValue] = try Self.object(try start.options.jsonData())
        // Echoed as sent (the tool compares them deep-equal), unknown extensions included.
        if let selection { body["authenticatorSelection"] = JSONValue.object(selection) }
        body["attestation"] = json["attestation"].flatMap { $0 == .null ? nil : $0 } ?? JSONValue.string("none")
        body["extensions"] = extensions.map { JSONValue.object($0) }
        if body["excludeCredentials"] == nil { body["excludeCredentials"] = JSONValue.array([]) }
        return (body, [web.cookies.make("pk_reg", try web.signer.sign(ceremony, purpose: "registration"))])
    }

    func attestationResult(_ request: Request, context: AppRequestContext) async throws -> ([String: JSONValue], [Cookie]) {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        guard let value = request.cookies["pk_reg"]?.value,
            let ceremony = web.signer.verify(value, as: CeremonyPayload.self, purpose: "registration"),
            ceremony.exp >= Date().timeIntervalSince1970, let state = ceremony.state, let username = ceremony.username
        else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let credential = try await web.parse(body, kind: .registration, challenge: state, now: now) { data throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
        _ = try await web.finishRegistration(
            credential, challenge: state, newAccount: ceremony.newAccount == true ? try Username(username) : nil, signIn: nil,
            now: now, username: username, logger: context.logger)
        return ([:], [web.cookies.expired("pk_reg")])
    }

    // MARK: Authentication

    func assertionOptions(_ request: Request) async throws -> ([String: JSONValue], [Cookie]) {
        let json = try await request.smallJSONObject()
        let name = try Username(try json.optionalString("username"))
        let extensions = try Self.objectMember(json, "extensions")
        let userVerification = try Self.string(json, "userVerification", known: ["required", "preferred", "discouraged"])
        guard let account = try await web.repositories.accounts.loginLookup(username: name) else {
            throw AppError(.badRequest, "This user has no credentials.")
        }
        let now = Date()
        let options = AuthenticationRequest(
            userHandle: account.userHandle, userVerification: UserVerificationRequirement(rawValue: userVerification ?? "preferred"),
            allowCredentials: account.allowCredentials)
        let start = try await web.service.beginAuthentication(options, now: now)
        var ceremony = CeremonyPayload(
            username: account.username, userHandle: Base64URLBytes(account.userHandle).base64URL,
            exp: now.addingTimeInterval(web.policy.challengeLifetime).timeIntervalSince1970)
        ceremony.state = start.challenge
        var body: [String: JSONValue] = try Self.object(try start.options.jsonData())
        if let sent = json["userVerification"], sent != .null { body["userVerification"] = sent }
        body["extensions"] = extensions.map { JSONValue.object($0) }
        return (body, [web.cookies.make("pk_login", try web.signer.sign(ceremony, purpose: "authentication"))])
    }

    func assertionResult(_ request: Request, context: AppRequestContext) async throws -> ([String: JSONValue], [Cookie]) {
        _ = try await web.verifyLogin(request, context: context, starting: nil)
        return ([:], [web.cookies.expired("pk_login")])
    }
}
