import Foundation
import HTTPTypes
import Logging
import WebAuthnCrypto
import WebAuthnRP

/// The FIDO2 Server Conformance Test API's flows (`/attestation/options|result`,
/// `/assertion/options|result`), for every adapter, which mounts them only when `CONFORMANCE=1`.
/// Every ceremony goes through the web page's machinery: the same service and stores, the same
/// signed ceremony cookies (`pk_reg`, `pk_login`), the same registration writer. Each answer
/// carries the API's `status` and `errorMessage`; a failure is HTTP 400 with `status` `failed`.
package struct ConformanceFlows: Sendable {
    package let passkeys: Passkeys
    package let cookies: CookieRules

    package init(passkeys: Passkeys, cookies: CookieRules) {
        self.passkeys = passkeys
        self.cookies = cookies
    }

    /// A flow's result: the body's members and the cookies to set.
    package typealias Answer = (body: [String: JSONValue], cookies: [CookieRules.SetCookie])

    /// A ServerResponse: the body with `status: ok` and an empty `errorMessage`, or `status:
    /// failed` with the error's client-safe text (never empty) and 400; the JSON bytes to send.
    package static func respond(
        logger: Logger, _ work: () async throws -> Answer
    ) async -> (status: HTTPResponse.Status, body: Data, cookies: [CookieRules.SetCookie]) {
        var body: [String: JSONValue]
        var cookies: [CookieRules.SetCookie] = []
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
            logger.info("conformance: failed", metadata: ["error": "\(String(reflecting: error))"])
            body = ["status": .string("failed"), "errorMessage": .string(message.isEmpty ? "failed" : message)]
            status = .badRequest
        }
        let data = (try? JSONEncoder().encode(JSONValue.object(body))) ?? Data(#"{"status":"failed","errorMessage":"encoding"}"#.utf8)
        return (status, data, cookies)
    }

    package static func invalid(_ what: String) -> AppError { AppError(.badRequest, "The request's \(what) is not valid.") }

    /// `userVerification`, `residentKey`, `authenticatorAttachment` as the library's values;
    /// an unknown string is ignored as a client ignores it (L3 §5.4), another JSON kind refused.
    package static func string(_ object: [String: JSONValue], _ name: String, known: [String]) throws -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return known.contains(value) ? value : nil
        default: throw invalid(name)
        }
    }

    package static func objectMember(_ json: [String: JSONValue], _ name: String) throws -> [String: JSONValue]? {
        switch json[name] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw invalid(name)
        }
    }

    /// The options the library made, as an object, with the request's members echoed over it.
    package static func object(_ data: Data) throws -> [String: JSONValue] {
        guard case .object(let members)? = try? JSONValue(jsonData: data) else { throw AppError(.internalServerError, "options") }
        return members
    }

    // MARK: Registration

    /// `/attestation/options`: options for `json`'s user and choices, echoed as the tool sent them.
    package func attestationOptions(_ json: [String: JSONValue]) async throws -> Answer {
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
        let existing = try await passkeys.stores.accounts.userHandle(username: name)
        let userHandle = try existing ?? PublicKeyCredentialUserEntityJSON.newUserHandle()
        let options = RegistrationRequest(
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userHandle), name: name.display, displayName: displayName),
            algorithms: VerificationPolicy.defaultAlgorithms + [.rs1],
            userVerification: UserVerificationRequirement(rawValue: userVerification ?? "preferred"),
            residentKey: ResidentKeyRequirement(rawValue: residentKey ?? "discouraged"),
            authenticatorAttachment: attachment.map { AuthenticatorAttachment(rawValue: $0) },
            attestation: AttestationConveyancePreference(rawValue: attestation ?? "none"))
        let start = try await passkeys.service.beginRegistration(options, now: now)
        var ceremony = CeremonyPayload(
            username: name.display, userHandle: Base64URLBytes(userHandle).base64URL, newAccount: existing == nil,
            exp: now.addingTimeInterval(passkeys.policy.challengeLifetime).timeIntervalSince1970)
        ceremony.state = start.challenge
        var body: [String: JSONValue] = try Self.object(try start.options.jsonData())
        // Echoed as sent (the tool compares them deep-equal), unknown extensions included.
        if let selection { body["authenticatorSelection"] = JSONValue.object(selection) }
        body["attestation"] = json["attestation"].flatMap { $0 == .null ? nil : $0 } ?? JSONValue.string("none")
        body["extensions"] = extensions.map { JSONValue.object($0) }
        if body["excludeCredentials"] == nil { body["excludeCredentials"] = JSONValue.array([]) }
        return (body, [cookies.make(CookieRules.registration, try passkeys.ceremonies.signer.sign(ceremony, purpose: "registration"))])
    }

    /// `/attestation/result`: the credential `body` under the registration cookie's `state`.
    package func attestationResult(_ body: Data, state value: String?, logger: Logger) async throws -> Answer {
        guard let value,
            let ceremony = passkeys.ceremonies.signer.verify(value, as: CeremonyPayload.self, purpose: "registration"),
            ceremony.exp >= Date().timeIntervalSince1970, let state = ceremony.state, let username = ceremony.username
        else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let credential = try await passkeys.ceremonies.parse(body, kind: .registration, challenge: state, now: now) {
            data throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
        _ = try await passkeys.ceremonies.finishRegistration(
            credential, challenge: state, newAccount: ceremony.newAccount == true ? try Username(username) : nil, signIn: nil,
            now: now, username: username, logger: logger)
        return ([:], [cookies.expired(CookieRules.registration)])
    }

    // MARK: Authentication

    /// `/assertion/options`: options for `json`'s user.
    package func assertionOptions(_ json: [String: JSONValue]) async throws -> Answer {
        let name = try Username(try json.optionalString("username"))
        let extensions = try Self.objectMember(json, "extensions")
        let userVerification = try Self.string(json, "userVerification", known: ["required", "preferred", "discouraged"])
        guard let account = try await passkeys.stores.accounts.loginLookup(username: name) else {
            throw AppError(.badRequest, "This user has no credentials.")
        }
        let now = Date()
        let options = AuthenticationRequest(
            userHandle: account.userHandle, userVerification: UserVerificationRequirement(rawValue: userVerification ?? "preferred"),
            allowCredentials: account.allowCredentials)
        let start = try await passkeys.service.beginAuthentication(options, now: now)
        var ceremony = CeremonyPayload(
            username: account.username, userHandle: Base64URLBytes(account.userHandle).base64URL,
            exp: now.addingTimeInterval(passkeys.policy.challengeLifetime).timeIntervalSince1970)
        ceremony.state = start.challenge
        var body: [String: JSONValue] = try Self.object(try start.options.jsonData())
        if let sent = json["userVerification"], sent != .null { body["userVerification"] = sent }
        body["extensions"] = extensions.map { JSONValue.object($0) }
        return (body, [cookies.make(CookieRules.login, try passkeys.ceremonies.signer.sign(ceremony, purpose: "authentication"))])
    }

    /// `/assertion/result`: the assertion `body` under the login cookie's `state`.
    package func assertionResult(_ body: Data, state: String?, logger: Logger) async throws -> Answer {
        _ = try await passkeys.ceremonies.verifyLogin(body: body, state: state, client: .web, starting: nil, logger: logger)
        return ([:], [cookies.expired(CookieRules.login)])
    }
}
