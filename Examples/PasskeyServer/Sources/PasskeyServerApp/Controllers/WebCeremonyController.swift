import Foundation
import Hummingbird
import Logging
import Synchronization
import WebAuthnRP

/// The web page's ceremonies: `/api/register/options|verify` and `/api/login/options|verify`.
/// What the server must remember between options and verification travels in a signed cookie
/// (one per ceremony kind); a successful login or first registration starts a session.
struct WebCeremonyController: Sendable {
    let config: Config
    let policy: VerificationPolicy
    let service: RelyingPartyService
    let repositories: Repositories
    let signer: CookieSigner
    let cookies: CookieFactory
    let recorder: FailedCeremonyRecorder?
    let tokens: TokenService
    /// Every login's write waits this long first (the end-to-end tests' node only: a lost-update
    /// race of two logins made deterministic; ``TestingOptions/updateDelay``).
    var loginWriteDelay: Duration? = nil

    /// `appAttest`: the App Attest guard of an app adding a passkey (nil when App Attest is off).
    func addRoutes(to group: RouterGroup<AppRequestContext>, appAttest: AppAttestMiddleware? = nil) {
        group.post("register/options", use: registerOptions)
        group.post("register/verify", guardedBy: appAttest, use: registerVerify)
        group.post("login/options", use: loginOptions)
        group.post("login/verify", use: loginVerify)
        group.post("token/login/verify", use: tokenLoginVerify)
    }

    // MARK: Registration

    struct RegisterOptionsBody {
        var username: String?
        var displayName: String?
        init(username: String? = nil, displayName: String? = nil) {
            self.username = username
            self.displayName = displayName
        }
        init(_ json: [String: JSONValue]) throws {
            self.init(username: try json.optionalString("username"), displayName: try json.optionalString("displayName"))
        }
    }

    @Sendable func registerOptions(_ request: Request, context: AppRequestContext) async throws -> WithCookies<RawJSON> {
        let (options, ceremony) = try await registrationOptions(
            try RegisterOptionsBody(await request.smallJSONObject()),
            subject: context.identity)
        return WithCookies(
            body: RawJSON(data: options),
            cookies: [cookies.make("pk_reg", try signer.sign(ceremony, purpose: "registration"))])
    }

    /// Creation options for a new account (`body.username`) or, for a signed-in subject, one more
    /// passkey of its account; and what the finish needs back (the web page keeps it in a
    /// cookie, an app in the body).
    func registrationOptions(_ body: RegisterOptionsBody, subject: Subject?) async throws -> (Data, CeremonyPayload) {
        let now = Date()
        let username: String, userHandle: [UInt8], newAccount: Bool
        if let subject {
            // Signed in: a further passkey for this account, from a recent sign-in only, under the cap.
            try requireFreshSignIn(subject, now: now, freshSignIn: config.freshSignIn)
            guard let name = try await repositories.accounts.username(userHandle: subject.userHandle) else { throw AppError.unauthorized }
            guard try await repositories.credentials.count(userHandle: subject.userHandle) < config.maxPasskeysPerAccount else {
                throw AppError.capReached(config.maxPasskeysPerAccount)
            }
            (username, userHandle, newAccount) = (name, subject.userHandle, false)
        } else {
            let name = try Username(body.username)
            guard try await repositories.accounts.userHandle(username: name) == nil else { throw AppError.usernameTaken }
            (username, userHandle, newAccount) = (name.display, try PublicKeyCredentialUserEntityJSON.newUserHandle(), true)
        }
        let displayName = String((body.displayName ?? username).prefix(64))
        // credProps (is it discoverable?) and prf on the user's salt (PasskeyExtensions).
        let options = RegistrationRequest(
            user: PublicKeyCredentialUserEntityJSON(
                id: Base64URLBytes(userHandle), name: username,
                displayName: displayName),
            userVerification: .preferred, residentKey: .preferred,
            extensions: PasskeyExtensions.registration(userHandle: userHandle))
        var ceremony = CeremonyPayload(
            username: username, userHandle: Base64URLBytes(userHandle).base64URL, newAccount: newAccount,
            exp: now.addingTimeInterval(policy.challengeLifetime).timeIntervalSince1970)
        let start = try await service.beginRegistration(options, now: now)
        ceremony.state = start.challenge
        return (try start.options.jsonData(), ceremony)
    }

    struct Registered: ResponseEncodable {
        var ok = true
        var username: String
        var credentialId: String
        var backupEligible: Bool
        /// Whether the authenticator already evaluated the PRF (the output is the client's and is not kept).
        var prf: Bool
        /// credProps `rk` and PRF enabled, when the client said (PasskeyExtensions).
        var discoverable: Bool?
        var prfEnabled: Bool?
    }

    @Sendable func registerVerify(_ request: Request, context: AppRequestContext) async throws -> WithCookies<Registered> {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        guard let value = request.cookies["pk_reg"]?.value,
            let ceremony = signer.verify(value, as: CeremonyPayload.self, purpose: "registration"),
            ceremony.exp >= Date().timeIntervalSince1970,
            let username = ceremony.username, let handleText = ceremony.userHandle,
            let userHandle = try? Base64URLBytes(base64URL: handleText, member: "userHandle").bytes
        else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let newAccount = ceremony.newAccount == true ? try Username(username) : nil
        if newAccount == nil {
            // Adding to an account: the subject that began it must still be signed in, recently
            // (signing out, signing out everywhere or deleting its passkey stops it here).
            guard let subject = context.identity, subject.userHandle == userHandle else { throw AppError.unauthorized }
            try requireFreshSignIn(subject, now: now, freshSignIn: config.freshSignIn)
        }
        guard let state = ceremony.state else { throw AppError(.badRequest, "No registration is in progress. Please start again.") }
        let credential = try await parse(body, kind: .registration, challenge: state, now: now) { data throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
        // A new account is signed in with its first passkey: the session is drawn first, so the
        // registration's transaction can write its row (nothing is left to fail once it commits).
        let token = Self.newSessionToken()
        let session = PendingSession(
            id: SessionCookie.id(token), signedInAt: now, expiresAt: now.addingTimeInterval(Limits.sessionLifetime))
        let record = try await finishRegistration(
            credential, challenge: state, newAccount: newAccount, signIn: newAccount == nil ? nil : .session(session), now: now,
            username: username, logger: context.logger)
        var cookieList = [cookies.expired("pk_reg")]
        if newAccount != nil { cookieList.append(try await sessionCookie(token, replacing: context.identity)) }
        return WithCookies(
            body: Registered(
                username: username, credentialId: Base64URLBytes(record.record.id).base64URL,
                backupEligible: record.record.backupEligible, prf: record.extensions.prfResults != nil,
                discoverable: record.record.extensions.discoverable,
                prfEnabled: record.record.extensions.prfEnabled),
            cookies: cookieList)
    }

    /// Parses a credential body with `parse`; a body the library refuses is recorded (when
    /// recording is on) before the refusal is answered.
    func parse<Credential>(
        _ body: Data, kind: CeremonyKind, challenge: CeremonyChallenge, now: Date,
        _ parse: (Data) throws(WebAuthnError) -> Credential
    ) async throws -> Credential {
        do {
            return try parse(body)
        } catch {
            await recorder?.recordIfFailed(
                CeremonyRecording(
                    unparsedBody: body, kind: kind, error: error, challenge: challenge,
                    service: service, receivedAt: now), node: config.nodeName)
            throw error
        }
    }

    /// The library's finish, with the application's own last write (`commit:`): one transaction
    /// that creates the account (when new) and the credential under the per-account cap, and
    /// starts `signIn`. A taken id is the library's `credentialExists`; a taken name, a full
    /// account or a vanished one are this server's answers.
    func finishRegistration(
        _ credential: RegistrationResponse, challenge: CeremonyChallenge, newAccount: Username?, signIn: PendingSignIn?,
        now: Date, username: String, logger: Logger
    ) async throws -> VerifiedRegistration {
        let credentials = repositories.credentials, cap = config.maxPasskeysPerAccount
        let verified = try await service.finishRegistration(
            credential, challenge: challenge, now: now, observer: recorder?.observer(node: config.nodeName),
            commit: { record in
                switch try await credentials.create(record, newAccount: newAccount, cap: cap, starting: signIn) {
                case .created: return true
                case .duplicateCredential: return false
                case .usernameTaken: throw AppError.usernameTaken
                case .capReached: throw AppError.capReached(cap)
                case .accountGone: throw AppError.unauthorized
                }
            })
        logger.info(
            "registered",
            metadata: [
                "node": "\(config.nodeName)", "user": "\(username)",
                "credential": "\(Base64URLBytes(verified.record.id).base64URL)",
            ])
        return verified
    }

    // MARK: Login

    struct LoginOptionsBody {
        var username: String?
        init(username: String? = nil) { self.username = username }
        init(_ json: [String: JSONValue]) throws { username = try json.optionalString("username") }
    }

    @Sendable func loginOptions(_ request: Request, context: AppRequestContext) async throws -> WithCookies<RawJSON> {
        let (options, ceremony) = try await authenticationOptions(try LoginOptionsBody(await request.smallJSONObject()))
        return WithCookies(
            body: RawJSON(data: options),
            cookies: [cookies.make("pk_login", try signer.sign(ceremony, purpose: "authentication"))])
    }

    /// Request options (username-first when `body.username` is given, else usernameless) and
    /// what the finish needs back.
    func authenticationOptions(_ body: LoginOptionsBody) async throws -> (Data, CeremonyPayload) {
        let now = Date()
        var userHandle: [UInt8]? = nil
        var allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil
        var ceremony = CeremonyPayload(exp: now.addingTimeInterval(policy.challengeLifetime).timeIntervalSince1970)
        if let name = body.username, !name.isEmpty {
            let username = try Username(name)
            // Usernames are public in this example (README, "Usernames"): registration answers
            // "taken", and these options differ for a name without an account (a random handle,
            // no allowCredentials), whose login is refused at verification.
            let account = try await repositories.accounts.loginLookup(username: username)
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
        let options = AuthenticationRequest(
            userHandle: userHandle, userVerification: .preferred,
            extensions: PasskeyExtensions.authentication(userHandle: userHandle),
            allowCredentials: allowCredentials)
        let start = try await service.beginAuthentication(options, now: now)
        ceremony.state = start.challenge
        return (try start.options.jsonData(), ceremony)
    }

    struct LoggedIn: ResponseEncodable {
        var ok = true
        var username: String
        /// The library verified a PRF output for the salt asked; the output is the client's key.
        var prf: Bool
    }

    @Sendable func loginVerify(_ request: Request, context: AppRequestContext) async throws -> WithCookies<LoggedIn> {
        // The session is drawn before verification, so the login's write (the counter's compare
        // and swap) starts it in the same statement.
        let token = Self.newSessionToken()
        let now = Date()
        let session = PendingSession(
            id: SessionCookie.id(token), signedInAt: now, expiresAt: now.addingTimeInterval(Limits.sessionLifetime))
        let login = try await verifyLogin(request, context: context, starting: .session(session))
        return WithCookies(
            body: LoggedIn(username: login.username, prf: login.prf),
            cookies: [cookies.expired("pk_login"), try await sessionCookie(token, replacing: context.identity)])
    }

    /// The same login for a client that keeps tokens instead of a session (an app's web view,
    /// a hybrid app): the RFC 6749 §5.1 token response, and no session cookie.
    @Sendable func tokenLoginVerify(_ request: Request, context: AppRequestContext) async throws -> WithCookies<TokenResponse> {
        WithCookies(
            body: try await tokenLogin(now: Date()) { try await verifyLogin(request, context: context, starting: $0) },
            cookies: [cookies.expired("pk_login")])
    }

    /// Verifies a login with `verify` and answers its first tokens. The token family is drawn
    /// first, so the login's write (the counter's compare and swap) stores it in the same statement.
    func tokenLogin(now: Date, _ verify: (PendingSignIn) async throws -> Login) async throws -> TokenResponse {
        // The signing key is loaded before the login spends its challenge and writes its counter.
        let signer = try await tokens.signer(now: now)
        let family = tokens.prepareFamily(now: now)
        let login = try await verify(.tokenFamily(family.pending))
        return try await tokens.start(family, userHandle: login.userHandle, credentialId: login.credentialId, signer: signer, now: now)
    }

    /// Verifies the assertion against the `pk_login` ceremony cookie; its write starts `signIn`
    /// (nil: a login that signs nobody in, as the conformance profile's).
    func verifyLogin(_ request: Request, context: AppRequestContext, starting signIn: PendingSignIn?) async throws -> Login {
        let body = try await request.collectJSON(limit: Limits.responseBody)
        guard let value = request.cookies["pk_login"]?.value,
            let ceremony = signer.verify(value, as: CeremonyPayload.self, purpose: "authentication"),
            ceremony.exp >= Date().timeIntervalSince1970
        else {
            throw AppError(.badRequest, "No login is in progress. Please start again.")
        }
        let now = Date()
        guard let state = ceremony.state else { throw AppError(.badRequest, "No login is in progress. Please start again.") }
        let credential = try await parse(body, kind: .authentication, challenge: state, now: now) { data throws(WebAuthnError) in
            try AuthenticationResponse(jsonData: data)
        }
        return try await finishAuthentication(
            credential, challenge: state, named: ceremony, starting: signIn, now: now, logger: context.logger)
    }

    /// A verified login: whose, with which passkey, and whether a PRF output was verified.
    struct Login: Sendable { var userHandle: [UInt8]; var credentialId: [UInt8]; var username: String; var prf: Bool }

    func finishAuthentication(
        _ credential: AuthenticationResponse, challenge: CeremonyChallenge, named ceremony: CeremonyPayload?,
        starting signIn: PendingSignIn?, now: Date, logger: Logger
    ) async throws -> Login {
        // The application's own last write: the counter's compare and swap and the sign-in, in
        // one statement. A lost race with a concurrent login of the same credential is the
        // library's WebAuthnError (signCount, step "credential store update"): refused with 401
        // like any other verdict.
        let credentials = repositories.credentials, delay = loginWriteDelay
        let verified = try await service.finishAuthentication(
            credential, challenge: challenge, now: now,
            observer: recorder?.observer(node: config.nodeName),
            commit: { change in
                if let delay { try await Task.sleep(for: delay) }
                guard let signIn else { return try await credentials.update(change) }
                return try await credentials.update(change, starting: signIn)
            })
        guard let userHandle = verified.updatedRecord.userHandle else { throw AppError.unauthorized }
        let username: String
        if let named = ceremony?.username, ceremony?.userHandle == Base64URLBytes(userHandle).base64URL {
            username = named
        } else {
            guard let found = try await repositories.accounts.username(userHandle: userHandle) else { throw AppError.unauthorized }
            username = found
        }
        // `prf`: the library verified a PRF output for the salt asked (32 bytes); the output
        // is the client's key and is neither logged nor stored.
        let prf = verified.extensions.prfResults != nil
        logger.info(
            "logged in",
            metadata: [
                "node": "\(config.nodeName)", "user": "\(username)",
                "signCount": "\(verified.updatedRecord.signCount)", "prf": "\(prf)",
            ])
        return Login(userHandle: userHandle, credentialId: verified.updatedRecord.id, username: username, prf: prf)
    }

    // MARK: Sessions

    /// The cookie of a session a ceremony's write started. The session the request came with
    /// (if any: the subject the authentication middleware found by its cookie) ends, so signing
    /// in again does not pile up sessions.
    func sessionCookie(_ token: [UInt8], replacing subject: Subject?) async throws -> Cookie {
        if case .session(let old)? = subject?.credential { try await repositories.sessions.delete(id: old) }
        return cookies.make(SessionCookie.name, Base64URLBytes(token).base64URL, maxAge: Int(Limits.sessionLifetime))
    }

    /// A session token: 32 bytes from the OS CSPRNG.
    static func newSessionToken() -> [UInt8] { SecureRandom.bytes(32) }
}

/// Changing the account's passkeys needs a passkey assertion of the last few minutes: a copied
/// session cookie (or a stolen access token) alone cannot add the thief's passkey or delete the
/// owner's.
func requireFreshSignIn(_ subject: Subject, now: Date, freshSignIn: TimeInterval) throws {
    guard now.timeIntervalSince(subject.signedInAt) <= freshSignIn else {
        throw AppError(.forbidden, "Sign in again with a passkey to change your passkeys.", reauthenticate: true)
    }
}

extension AppError {
    static func capReached(_ cap: Int) -> AppError {
        AppError(.conflict, "This account holds \(cap) passkeys, the most it may. Delete one first.")
    }
    static let usernameTaken = AppError(.conflict, "This username is taken. Sign in to add a passkey to it.")
}
