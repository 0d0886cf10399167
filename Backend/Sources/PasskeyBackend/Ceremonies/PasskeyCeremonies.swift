import Foundation
import HTTPTypes
import Logging
import Synchronization
import WebAuthnRP

/// The passkey ceremonies of every client, as values in and values out: options (and the
/// signed state the client carries back: a cookie for the web page, the body for an app) and
/// finishes whose own last write (the library's `commit:`) creates the account, the credential
/// and the sign-in, or advances the counter and starts the sign-in, in one transaction.
package struct PasskeyCeremonies: Sendable {
    package let config: PasskeyBackendConfiguration
    package let policy: VerificationPolicy
    package let service: RelyingPartyService
    package let stores: PasskeyStores
    package let signer: CookieSigner
    package let recorder: FailedCeremonyRecorder?
    package let tokens: TokenService
    /// Every login's write waits this long first (end-to-end tests only: a lost-update race of
    /// two logins made deterministic; ``PasskeyStores/delayingLoginWrites(by:)``).
    package var loginWriteDelay: Duration? = nil

    /// The signed state's purposes: a web cookie's state is never an app's, nor the other way.
    package enum Client: String, Sendable {
        case web = ""
        case native = "native-"
        var registration: String { rawValue + "registration" }
        var authentication: String { rawValue + "authentication" }
    }

    // MARK: Registration

    package struct RegisterOptionsBody: Sendable {
        package var username: String?
        package var displayName: String?
        package init(username: String? = nil, displayName: String? = nil) {
            self.username = username
            self.displayName = displayName
        }
        package init(_ json: [String: JSONValue]) throws {
            self.init(username: try json.optionalString("username"), displayName: try json.optionalString("displayName"))
        }
    }

    /// Creation options and the signed state the finish needs back.
    package func registrationOptions(
        _ body: RegisterOptionsBody, subject: Subject?, client: Client
    ) async throws -> (options: Data, state: String) {
        let (options, ceremony) = try await registrationOptions(body, subject: subject)
        return (options, try signer.sign(ceremony, purpose: client.registration))
    }

    /// Creation options for a new account (`body.username`) or, for a signed-in subject, one more
    /// passkey of its account; and what the finish needs back (the web page keeps it in a
    /// cookie, an app in the body).
    package func registrationOptions(_ body: RegisterOptionsBody, subject: Subject?) async throws -> (Data, CeremonyPayload) {
        let now = Date()
        let username: String, userHandle: [UInt8], newAccount: Bool
        if let subject {
            // Signed in: a further passkey for this account, from a recent sign-in only, under the cap.
            try requireFreshSignIn(subject, now: now, freshSignIn: config.freshSignIn)
            guard let name = try await stores.accounts.username(userHandle: subject.userHandle) else { throw AppError.unauthorized }
            guard try await stores.credentials.count(userHandle: subject.userHandle) < config.maxPasskeysPerAccount else {
                throw AppError.capReached(config.maxPasskeysPerAccount)
            }
            (username, userHandle, newAccount) = (name, subject.userHandle, false)
        } else {
            let name = try Username(body.username)
            guard try await stores.accounts.userHandle(username: name) == nil else { throw AppError.usernameTaken }
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

    /// A registration's answer when it signs nobody in (one more passkey of an account).
    package struct Registered: Encodable, Sendable {
        package var ok = true
        package var username: String
        package var credentialId: String
        package var backupEligible: Bool
        /// Whether the authenticator already evaluated the PRF (the output is the client's and is not kept).
        package var prf: Bool
        /// credProps `rk` and PRF enabled, when the client said (PasskeyExtensions).
        package var discoverable: Bool?
        package var prfEnabled: Bool?
    }

    /// How a finished ceremony signed its subject in.
    package enum SignIn: Sendable {
        /// A new session; `token` is the cookie's value (its SHA-256 is the row's key).
        case session(token: [UInt8])
        /// An app's first tokens.
        case tokens(TokenResponse)
    }

    /// What a finished registration answers: the passkey, and how a new account was signed in
    /// (nil: one more passkey of a signed-in account).
    package struct RegistrationFinished: Sendable {
        package var registered: Registered
        package var signIn: SignIn?
    }

    /// The signed `state` read back for `purpose`; anything else (absent, forged, expired) is
    /// "no ceremony in progress".
    package func ceremony(_ state: String?, purpose: String, what: String) throws -> (CeremonyPayload, CeremonyChallenge) {
        guard let state, let ceremony = signer.verify(state, as: CeremonyPayload.self, purpose: purpose),
            ceremony.exp >= Date().timeIntervalSince1970, let challenge = ceremony.state
        else {
            throw AppError(.badRequest, "No \(what) is in progress. Please start again.")
        }
        return (ceremony, challenge)
    }

    /// Verifies the credential `body` against the signed `state`. A new account is signed in
    /// with its first passkey (a web client: a session; an app: its first tokens), in the
    /// registration's own transaction; one more passkey needs `subject`, the account's, signed
    /// in recently.
    /// `appKey`: the app key (App Attest or Android) the request was asserted by; a new account's token
    /// family is bound to it.
    package func finishRegistration(
        body: Data, state: String?, client: Client, subject: Subject?, appKey: AppKey? = nil, logger: Logger
    ) async throws -> RegistrationFinished {
        let (ceremony, challenge) = try ceremony(state, purpose: client.registration, what: "registration")
        guard let username = ceremony.username, let handleText = ceremony.userHandle,
            let userHandle = try? Base64URLBytes(base64URL: handleText, member: "userHandle").bytes
        else {
            throw AppError(.badRequest, "No registration is in progress. Please start again.")
        }
        let now = Date()
        let newAccount = ceremony.newAccount == true ? try Username(username) : nil
        if newAccount == nil {
            // Adding to an account: the subject that began it must still be signed in, recently
            // (signing out, signing out everywhere or deleting its passkey stops it here).
            guard let subject, subject.userHandle == userHandle else { throw AppError.unauthorized }
            try requireFreshSignIn(subject, now: now, freshSignIn: config.freshSignIn)
        }
        let credential = try await parse(body, kind: .registration, challenge: challenge, now: now) { data throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
        // A new account is signed in with its first passkey: the session (or the token family,
        // after the signing key is loaded) is drawn first, so the registration's transaction can
        // write it and nothing is left to fail once it commits.
        var pending: PendingSignIn? = nil
        var sessionToken: [UInt8]? = nil
        var family: TokenService.PreparedFamily? = nil
        var tokenSigner: AccessTokenSigner? = nil
        if newAccount != nil {
            switch client {
            case .web:
                let token = Self.newSessionToken()
                sessionToken = token
                pending = .session(
                    PendingSession(
                        id: SessionToken.id(token), signedInAt: now, expiresAt: now.addingTimeInterval(Limits.sessionLifetime)))
            case .native:
                tokenSigner = try await tokens.signer(now: now)
                let prepared = tokens.prepareFamily(now: now, appKey: appKey)
                family = prepared
                pending = .tokenFamily(prepared.pending)
            }
        }
        let verified = try await finishRegistration(
            credential, challenge: challenge, newAccount: newAccount, signIn: pending, now: now,
            username: username, logger: logger)
        let registered = Registered(
            username: username, credentialId: Base64URLBytes(verified.record.id).base64URL,
            backupEligible: verified.record.backupEligible, prf: verified.extensions.prfResults != nil,
            discoverable: verified.record.extensions.discoverable,
            prfEnabled: verified.record.extensions.prfEnabled)
        if let sessionToken { return RegistrationFinished(registered: registered, signIn: .session(token: sessionToken)) }
        if let family, let tokenSigner {
            let answer = try await tokens.start(
                family, userHandle: userHandle, credentialId: verified.record.id, signer: tokenSigner, now: now)
            return RegistrationFinished(registered: registered, signIn: .tokens(answer))
        }
        return RegistrationFinished(registered: registered, signIn: nil)
    }

    /// Parses a credential body with `parse`; a body the library refuses is recorded (when
    /// recording is on) before the refusal is answered.
    package func parse<Credential>(
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
    package func finishRegistration(
        _ credential: RegistrationResponse, challenge: CeremonyChallenge, newAccount: Username?, signIn: PendingSignIn?,
        now: Date, username: String, logger: Logger
    ) async throws -> VerifiedRegistration {
        let credentials = stores.credentials, cap = config.maxPasskeysPerAccount
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

    package struct LoginOptionsBody: Sendable {
        package var username: String?
        package init(username: String? = nil) { self.username = username }
        package init(_ json: [String: JSONValue]) throws { username = try json.optionalString("username") }
    }

    /// Request options and the signed state the finish needs back.
    package func authenticationOptions(_ body: LoginOptionsBody, client: Client) async throws -> (options: Data, state: String) {
        let (options, ceremony) = try await authenticationOptions(body)
        return (options, try signer.sign(ceremony, purpose: client.authentication))
    }

    /// Request options (username-first when `body.username` is given, else usernameless) and
    /// what the finish needs back.
    package func authenticationOptions(_ body: LoginOptionsBody) async throws -> (Data, CeremonyPayload) {
        let now = Date()
        var userHandle: [UInt8]? = nil
        var allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil
        var ceremony = CeremonyPayload(exp: now.addingTimeInterval(policy.challengeLifetime).timeIntervalSince1970)
        if let name = body.username, !name.isEmpty {
            let username = try Username(name)
            // Usernames are public in this example (README, "Usernames"): registration answers
            // "taken", and these options differ for a name without an account (a random handle,
            // no allowCredentials), whose login is refused at verification.
            let account = try await stores.accounts.loginLookup(username: username)
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

    /// A web login's answer (beside its session cookie).
    package struct LoggedIn: Encodable, Sendable {
        package var ok = true
        package var username: String
        /// The library verified a PRF output for the salt asked; the output is the client's key.
        package var prf: Bool
    }

    /// A browser's login: verifies the credential `body` against the signed `state` and starts a
    /// session in the login's own write.
    /// - Returns: the answer and the new session's token (the cookie's value).
    package func finishWebLogin(body: Data, state: String?, logger: Logger) async throws -> (LoggedIn, sessionToken: [UInt8]) {
        // The session is drawn before verification, so the login's write (the counter's compare
        // and swap) starts it in the same statement.
        let token = Self.newSessionToken()
        let now = Date()
        let session = PendingSession(
            id: SessionToken.id(token), signedInAt: now, expiresAt: now.addingTimeInterval(Limits.sessionLifetime))
        let login = try await verifyLogin(body: body, state: state, client: .web, starting: .session(session), logger: logger)
        return (LoggedIn(username: login.username, prf: login.prf), token)
    }

    /// A login that answers tokens instead of a session: an app's (`client` native), or a web
    /// view's that keeps tokens (`client` web): the RFC 6749 §5.1 token response.
    /// `appKey`: the app key (App Attest or Android) the request was asserted by; the family is bound to it.
    package func finishTokenLogin(
        body: Data, state: String?, client: Client, appKey: AppKey? = nil, logger: Logger
    ) async throws -> TokenResponse {
        try await tokenLogin(now: Date(), appKey: appKey) {
            try await verifyLogin(body: body, state: state, client: client, starting: $0, logger: logger)
        }
    }

    /// Verifies a login with `verify` and answers its first tokens. The token family is drawn
    /// first, so the login's write (the counter's compare and swap) stores it in the same statement.
    package func tokenLogin(
        now: Date, appKey: AppKey? = nil, _ verify: (PendingSignIn) async throws -> Login
    ) async throws -> TokenResponse {
        // The signing key is loaded before the login spends its challenge and writes its counter.
        let signer = try await tokens.signer(now: now)
        let family = tokens.prepareFamily(now: now, appKey: appKey)
        let login = try await verify(.tokenFamily(family.pending))
        return try await tokens.start(family, userHandle: login.userHandle, credentialId: login.credentialId, signer: signer, now: now)
    }

    /// Verifies the assertion `body` against the signed `state`; its write starts `signIn`
    /// (nil: a login that signs nobody in, as the conformance profile's).
    package func verifyLogin(
        body: Data, state: String?, client: Client, starting signIn: PendingSignIn?, logger: Logger
    ) async throws -> Login {
        let (ceremony, challenge) = try ceremony(state, purpose: client.authentication, what: "login")
        let now = Date()
        let credential = try await parse(body, kind: .authentication, challenge: challenge, now: now) { data throws(WebAuthnError) in
            try AuthenticationResponse(jsonData: data)
        }
        return try await finishAuthentication(
            credential, challenge: challenge, named: ceremony, starting: signIn, now: now, logger: logger)
    }

    /// A verified login: whose, with which passkey, and whether a PRF output was verified.
    package struct Login: Sendable { var userHandle: [UInt8]; var credentialId: [UInt8]; var username: String; var prf: Bool }

    package func finishAuthentication(
        _ credential: AuthenticationResponse, challenge: CeremonyChallenge, named ceremony: CeremonyPayload?,
        starting signIn: PendingSignIn?, now: Date, logger: Logger
    ) async throws -> Login {
        // The application's own last write: the counter's compare and swap and the sign-in, in
        // one statement. A lost race with a concurrent login of the same credential is the
        // library's WebAuthnError (signCount, step "credential store update"): refused with 401
        // like any other verdict.
        let credentials = stores.credentials, delay = loginWriteDelay
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
            guard let found = try await stores.accounts.username(userHandle: userHandle) else { throw AppError.unauthorized }
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

    /// Ends the session a request came with (signing in again does not pile up sessions).
    package func endSession(of subject: Subject?) async throws {
        if case .session(let old)? = subject?.credential { try await stores.sessions.delete(id: old) }
    }

    /// A session token: 32 bytes from the OS CSPRNG.
    package static func newSessionToken() -> [UInt8] { SecureRandom.bytes(32) }
}

/// Changing the account's passkeys needs a passkey assertion of the last few minutes: a copied
/// session cookie (or a stolen access token) alone cannot add the thief's passkey or delete the
/// owner's.
package func requireFreshSignIn(_ subject: Subject, now: Date, freshSignIn: TimeInterval) throws {
    guard now.timeIntervalSince(subject.signedInAt) <= freshSignIn else {
        throw AppError(.forbidden, "Sign in again with a passkey to change your passkeys.", reauthenticate: true)
    }
}

extension AppError {
    package static func capReached(_ cap: Int) -> AppError {
        AppError(.conflict, "This account holds \(cap) passkeys, the most it may. Delete one first.")
    }
    package static let usernameTaken = AppError(.conflict, "This username is taken. Sign in to add a passkey to it.")
}
