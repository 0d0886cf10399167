import Foundation
import Hummingbird
import NIOCore
import WebAuthnRP

/// The ceremonies of a native app (iOS AuthenticationServices, Android Credential Manager), with
/// no cookie: `POST /native/register/options|finish` and `POST /native/login/options|finish`.
///
/// Options answer `{"options": <the options JSON>, "state": "<token>"}`; the app sends the state
/// back with its credential, `{"state": "<token>", "credential": <body>}`. The state is the
/// ceremony's own (the stored challenge to consume, or the sealed challenge), the username and
/// user handle the options were made for, and an expiry, signed with SESSION_KEY: any node can
/// finish it, single use is the challenge's (consumed once, or marked used across the nodes), and
/// a registration binds the account to the offered user handle through it, never through a map
/// in a node's memory. The credential is the app's body (AuthenticationServices names, standard
/// base64: the Native apps article) or browser JSON (Credential Manager's). A finish answers the
/// RFC 6749 token response.
struct NativeCeremonyController: Sendable {
    let ceremonies: WebCeremonyController
    let signer: CookieSigner
    let tokens: TokenService

    /// `appAttest`: the App Attest guard of an app adding a passkey (nil when App Attest is off).
    func addRoutes(to group: RouterGroup<AppRequestContext>, appAttest: AppAttestMiddleware? = nil) {
        group.post("register/options", use: registerOptions)
        group.post("register/finish", guardedBy: appAttest, use: registerFinish)
        group.post("login/options", use: loginOptions)
        group.post("login/finish", use: loginFinish)
    }

    @Sendable func registerOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try WebCeremonyController.RegisterOptionsBody(await request.smallJSONObject())
        let (options, ceremony) = try await ceremonies.registrationOptions(body, subject: context.identity)
        return try Self.optionsAnswer(options, state: signer.sign(ceremony, purpose: "native-registration"))
    }

    /// A new account's first passkey answers its first tokens; one more passkey of a signed-in
    /// (bearer) account answers what the page's registration answers.
    @Sendable func registerFinish(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (state, credentialBody) = try await Self.finishBody(request)
        guard let ceremony = signer.verify(state, as: CeremonyPayload.self, purpose: "native-registration"),
            ceremony.exp >= Date().timeIntervalSince1970,
            let username = ceremony.username, let handleText = ceremony.userHandle, let challenge = ceremony.state,
            let userHandle = try? Base64URLBytes(base64URL: handleText, member: "userHandle").bytes
        else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let newAccount = ceremony.newAccount == true ? try Username(username) : nil
        if newAccount == nil {
            guard let subject = context.identity, subject.userHandle == userHandle else { throw AppError.unauthorized }
            try requireFreshSignIn(subject, now: now, freshSignIn: ceremonies.config.freshSignIn)
        }
        let credential = try await ceremonies.parse(credentialBody, kind: .registration, challenge: challenge, now: now) {
            data throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
        // A new account's first tokens: the signing key is loaded and the family drawn first, so
        // the registration's transaction stores the family and nothing is left to fail after it commits.
        let signer = newAccount == nil ? nil : try await tokens.signer(now: now)
        let family = tokens.prepareFamily(now: now)
        let verified = try await ceremonies.finishRegistration(
            credential, challenge: challenge, newAccount: newAccount, signIn: signer == nil ? nil : .tokenFamily(family.pending),
            now: now, username: username, logger: context.logger)
        if let signer {
            return try await tokens.start(
                family, userHandle: userHandle, credentialId: verified.record.id, signer: signer, now: now
            )
            .response(from: request, context: context)
        }
        return try WebCeremonyController.Registered(
            username: username, credentialId: Base64URLBytes(verified.record.id).base64URL,
            backupEligible: verified.record.backupEligible, prf: verified.extensions.prfResults != nil,
            discoverable: verified.record.extensions.discoverable, prfEnabled: verified.record.extensions.prfEnabled
        )
        .response(from: request, context: context)
    }

    @Sendable func loginOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (options, ceremony) = try await ceremonies.authenticationOptions(
            try WebCeremonyController.LoginOptionsBody(await request.smallJSONObject()))
        return try Self.optionsAnswer(options, state: signer.sign(ceremony, purpose: "native-authentication"))
    }

    @Sendable func loginFinish(_ request: Request, context: AppRequestContext) async throws -> TokenResponse {
        let (state, credentialBody) = try await Self.finishBody(request)
        guard let ceremony = signer.verify(state, as: CeremonyPayload.self, purpose: "native-authentication"),
            ceremony.exp >= Date().timeIntervalSince1970, let challenge = ceremony.state
        else {
            throw AppError(.badRequest, "No login is in progress. Please start again.")
        }
        let now = Date()
        let credential = try await ceremonies.parse(credentialBody, kind: .authentication, challenge: challenge, now: now) {
            data throws(WebAuthnError) in
            try AuthenticationResponse(jsonData: data)
        }
        return try await ceremonies.tokenLogin(now: now) { signIn in
            try await ceremonies.finishAuthentication(
                credential, challenge: challenge, named: ceremony, starting: signIn, now: now, logger: context.logger)
        }
    }

    /// `{"options": …, "state": "…"}`: the library's options bytes as they are, and the state
    /// (base64url and a dot: nothing to escape).
    static func optionsAnswer(_ options: Data, state: String) throws -> Response {
        var body = Data(#"{"options":"#.utf8)
        body.append(options)
        body.append(Data(#","state":""#.utf8))
        body.append(Data(state.utf8))
        body.append(Data(#""}"#.utf8))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The finish body `{"state": "…", "credential": {…}}`, at most 64 KiB, read once by the
    /// library's strict reader (a member given twice is refused); the credential goes on to the
    /// library as its own JSON document.
    static func finishBody(_ request: Request) async throws -> (state: String, credential: Data) {
        let data = try await request.collectJSON(limit: Limits.responseBody)
        guard case .object(let object)? = try? JSONValue(jsonData: data), object.count == 2,
            case .string(let state)? = object["state"], state.utf8.count <= 8_192,
            let credential = object["credential"], case .object = credential,
            let credentialData = try? Self.credentialEncoder.encode(credential)
        else {
            throw AppError(.badRequest, "Send {\"state\": …, \"credential\": {…}}.")
        }
        return (state, credentialData)
    }

    private static let credentialEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
