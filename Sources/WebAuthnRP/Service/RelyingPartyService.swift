public import Foundation
import WebAuthnCoding

/// A relying party with its registry: issues challenges, finishes ceremonies,
/// and keeps credential records. This is what a server embeds, built once and shared: it owns
/// the verification cache (credential keys, attestation certificates) its ceremonies share.
///
/// One `begin…`/`finish…` pair per ceremony. How the challenge travels between them is
/// configuration (``ChallengeTransport``: stored or sealed); `begin…` returns the options and
/// the ``CeremonyChallenge`` to hand back to `finish…`; a ``CeremonyObserver`` passed to
/// `finish…` receives the ceremony's recording. Every finish consumes its challenge first,
/// whatever the verdict, so a challenge answers one response only. Time is always passed in.
public struct RelyingPartyService: Sendable {
    /// The relying party.
    public let relyingParty: RelyingParty
    /// The policy.
    public let policy: VerificationPolicy
    /// How challenges travel from `begin…` to `finish…`.
    let challenges: ChallengeTransport
    /// Registered credentials.
    public let credentials: any CredentialStore
    /// Credential keys and attestation certificates kept between ceremonies, shared by the
    /// service's verifiers.
    private let cache: VerificationCache
    /// The verifiers, built once: a verifier holds copies of the relying party and the
    /// policy, and building one per ceremony retained and released each of their members.
    let registrationVerifier: RegistrationVerifier
    let authenticationVerifier: AuthenticationVerifier

    /// Creates a service.
    /// - Parameters:
    ///   - relyingParty: RP ID and origins.
    ///   - policy: algorithms, attestation, counter and challenge-lifetime policy.
    ///   - challenges: how challenges travel (default: stored in a bounded in-memory store).
    ///   - credentials: the credential store (default: bounded, in memory).
    public init(
        relyingParty: RelyingParty, policy: VerificationPolicy = VerificationPolicy(),
        challenges: ChallengeTransport = .stored(InMemoryChallengeStore()),
        credentials: any CredentialStore = InMemoryCredentialStore()
    ) {
        self.relyingParty = relyingParty
        self.policy = policy
        self.challenges = challenges
        self.credentials = credentials
        let cache = VerificationCache()
        self.cache = cache
        registrationVerifier = RegistrationVerifier(relyingParty: relyingParty, policy: policy, cache: cache)
        authenticationVerifier = AuthenticationVerifier(relyingParty: relyingParty, policy: policy, cache: cache)
    }

    /// The challenge store of a stored transport (the replay tool and the benchmark issue and
    /// withdraw challenges through it); nil when challenges are sealed.
    package var challengeStore: (any ChallengeStore)? {
        if case .stored(let store) = challenges.mode { return store }
        return nil
    }

    // MARK: Issuing

    /// Makes an issued challenge outstanding (single use, until it expires): stores it, or seals it.
    /// - Parameters:
    ///   - issued: the challenge and its ceremony binding.
    ///   - now: the current time.
    /// - Returns: what `finish…` needs back.
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when the store refuses it; ``CryptoError`` when sealing fails.
    @discardableResult
    package func issue(_ issued: IssuedChallenge, now: Date) async throws -> CeremonyChallenge {
        switch challenges.mode {
        case .stored(let store):
            try await store.issue(issued, now: now)
            return .session(issued.challenge)
        case .sealed(let key, _):
            return .sealed(try key.seal(issued))
        }
    }

    // MARK: Finishing

    /// Finishes a registration: consumes the challenge, verifies (§7.1) and stores the record.
    /// - Parameters:
    ///   - response: the response (``RegistrationResponse/init(jsonData:)`` for the body a browser posted).
    ///   - challenge: what `beginRegistration` returned in ``CeremonyStart/challenge``, or
    ///     ``CeremonyChallenge/fromClientData`` (default) to take it from the client data.
    ///   - now: the current time.
    ///   - keepAttestation: keep the raw attestation object and client data in the record.
    ///   - observer: receives the ceremony's recording, whatever the verdict; nil (default) for none.
    ///   - commit: the application's own write of the verified record (step 28), in place of
    ///     the service's ``CredentialStore/create(_:)``: a server whose registration also
    ///     creates the account, checks a cap or starts a session commits them here, in one
    ///     transaction of its own. The contract is `create(_:)`'s: insert only if no record has
    ///     the id, and return `false` for a taken id (refused as `credentialExists`); an error it
    ///     throws (the account's own refusals) ends the finish as it is. Nil (default): the
    ///     service's store.
    /// - Returns: the verified registration (its record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response or challenge (`credentialExists`
    ///   when the store already holds the id); `serverFault` or the store's own error when
    ///   storage fails; what `commit` throws.
    public func finishRegistration(
        _ response: RegistrationResponse, challenge: CeremonyChallenge = .fromClientData,
        now: Date, keepAttestation: Bool = false,
        observer: (any CeremonyObserver)? = nil,
        commit: (@Sendable (CredentialRecord) async throws -> Bool)? = nil
    ) async throws -> VerifiedRegistration {
        var trace = CeremonyTrace(recording: false)
        return try await finishRegistration(
            response, challenge: challenge, now: now, keepAttestation: keepAttestation,
            observer: observer, commit: commit, trace: &trace
        ).get()
    }

    /// ``finishRegistration(_:challenge:now:keepAttestation:observer:commit:)`` with the step trace.
    /// - Parameters:
    ///   - response: the response.
    ///   - challenge: how to find the challenge.
    ///   - now: the current time.
    ///   - keepAttestation: keep raw attestation data in the record.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures; verdicts are in the report.
    package func finishRegistrationReport(
        _ response: RegistrationResponse, challenge: CeremonyChallenge = .fromClientData,
        now: Date, keepAttestation: Bool = false
    ) async throws -> CeremonyReport<VerifiedRegistration> {
        var trace = CeremonyTrace()
        let result = try await finishRegistration(
            response, challenge: challenge, now: now, keepAttestation: keepAttestation,
            observer: nil, commit: nil, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    /// The one registration finish; `trace` decides whether steps are kept.
    private func finishRegistration(
        _ response: RegistrationResponse, challenge: CeremonyChallenge, now: Date,
        keepAttestation: Bool, observer: (any CeremonyObserver)?,
        commit: (@Sendable (CredentialRecord) async throws -> Bool)?,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedRegistration, WebAuthnError> {
        var facts = CeremonyFacts()
        let result = try await register(
            response, challenge: challenge, now: now, keepAttestation: keepAttestation,
            observed: observer != nil, commit: commit, facts: &facts, trace: &trace)
        if let observer {
            await observer.ceremonyFinished(
                recording(
                    .registration, facts, response: response.recordedJSON,
                    clientDataJSON: response.clientDataJSON[...], now: now,
                    result: result.map { _ in () }))
        }
        return result
    }

    private func register(
        _ response: RegistrationResponse, challenge: CeremonyChallenge, now: Date, keepAttestation: Bool,
        observed: Bool, commit: (@Sendable (CredentialRecord) async throws -> Bool)?, facts: inout CeremonyFacts,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedRegistration, WebAuthnError> {
        let issued: IssuedChallenge, clientData: CollectedClientData?
        switch try await consume(challenge, clientDataJSON: response.clientDataJSON[...], now: now, facts: &facts, trace: &trace) {
        case .success(let value): (issued, clientData) = value
        case .failure(let error): return .failure(error)
        }
        let verdict = Result { () throws(WebAuthnError) in
            try registrationVerifier.verify(
                response, issued: issued, now: now, keepAttestation: keepAttestation,
                clientData: clientData, trace: &trace)
        }
        guard case .success(let verified) = verdict else { return verdict }
        // Steps 27-28: "Verify that the credentialId is not yet registered for any user", then store the
        // record. create-if-absent makes the check and the store one atomic operation, whoever
        // performs it: the service's store, or the application's own transaction.
        let created: Bool
        if let commit { created = try await commit(verified.record) } else { created = try await credentials.create(verified.record) }
        guard created else {
            if observed { facts.found = try await credentials.credential(id: verified.record.id) }
            return .failure(
                trace.fail(
                    "§7.1 step 27", "credentialId is not yet registered", .credentialExists,
                    "credential \(response.id) is already registered"))
        }
        trace.note("§7.1 step 27", "credentialId is not yet registered")
        trace.note("§7.1 step 28", "credential record stored")
        return .success(verified)
    }

    /// Finishes an authentication: consumes the challenge, looks up the credential,
    /// verifies (§7.2) and stores the updated record (compare and swap on its counter).
    /// - Parameters:
    ///   - response: the response (``AuthenticationResponse/init(jsonData:)`` for the body a browser posted).
    ///   - challenge: what `beginAuthentication` returned in ``CeremonyStart/challenge``, or
    ///     ``CeremonyChallenge/fromClientData`` (default) to take it from the client data.
    ///   - now: the current time.
    ///   - observer: receives the ceremony's recording, whatever the verdict; nil (default) for none.
    ///   - commit: the application's own write of the updated record, in place of the service's
    ///     ``CredentialStore/update(_:)``: a server whose login also starts a session or a token
    ///     family commits both here, in one transaction of its own. The contract is
    ///     `update(_:)`'s: store the record only while the stored counter is still
    ///     ``CredentialUpdate/expectedSignCount`` (compare and swap), and return `false` when it
    ///     is not (refused as `signCount`). Nil (default): the service's store.
    /// - Returns: the verified authentication (its updated record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response or challenge (`signCount` when a
    ///   concurrent login of the credential stored its record first); `serverFault` or the
    ///   store's own error when storage fails; what `commit` throws.
    public func finishAuthentication(
        _ response: AuthenticationResponse, challenge: CeremonyChallenge = .fromClientData,
        now: Date, observer: (any CeremonyObserver)? = nil,
        commit: (@Sendable (CredentialUpdate) async throws -> Bool)? = nil
    ) async throws -> VerifiedAuthentication {
        var trace = CeremonyTrace(recording: false)
        return try await finishAuthentication(
            response, challenge: challenge, now: now, observer: observer, commit: commit, trace: &trace
        ).get()
    }

    /// ``finishAuthentication(_:challenge:now:observer:commit:)`` with the step trace.
    /// - Parameters:
    ///   - response: the response.
    ///   - challenge: how to find the challenge.
    ///   - now: the current time.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func finishAuthenticationReport(
        _ response: AuthenticationResponse, challenge: CeremonyChallenge = .fromClientData,
        now: Date
    ) async throws -> CeremonyReport<VerifiedAuthentication> {
        var trace = CeremonyTrace()
        let result = try await finishAuthentication(
            response, challenge: challenge, now: now, observer: nil, commit: nil, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    /// The one authentication finish; `trace` decides whether steps are kept.
    private func finishAuthentication(
        _ response: AuthenticationResponse, challenge: CeremonyChallenge, now: Date,
        observer: (any CeremonyObserver)?, commit: (@Sendable (CredentialUpdate) async throws -> Bool)?,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAuthentication, WebAuthnError> {
        var facts = CeremonyFacts()
        let result = try await authenticate(
            response, challenge: challenge, now: now, observed: observer != nil, commit: commit,
            facts: &facts, trace: &trace)
        if let observer {
            await observer.ceremonyFinished(
                recording(
                    .authentication, facts, response: response.recordedJSON,
                    clientDataJSON: response.members.clientDataJSON, now: now,
                    result: result.map { _ in () }))
        }
        return result
    }

    private func authenticate(
        _ response: AuthenticationResponse, challenge: CeremonyChallenge, now: Date, observed: Bool,
        commit: (@Sendable (CredentialUpdate) async throws -> Bool)?, facts: inout CeremonyFacts,
        trace: inout CeremonyTrace
    ) async throws -> Result<VerifiedAuthentication, WebAuthnError> {
        let issued: IssuedChallenge, clientData: CollectedClientData?
        switch try await consume(
            challenge, clientDataJSON: response.members.clientDataJSON, now: now, facts: &facts,
            trace: &trace)
        {
        case .success(let value): (issued, clientData) = value
        case .failure(let error): return .failure(error)
        }
        let record = try await credentials.credential(id: response.rawId)
        if observed { facts.found = record }
        // The counter the stored record had when this login was verified: the update swaps only
        // while it is still there.
        let expectedSignCount = record?.signCount ?? 0
        let verdict = Result { () throws(WebAuthnError) in
            try authenticationVerifier.verify(
                response, issued: issued, record: record, now: now,
                clientData: clientData, trace: &trace)
        }
        guard case .success(let verified) = verdict else { return verdict }
        let change = CredentialUpdate(expectedSignCount: expectedSignCount, record: verified.updatedRecord)
        // The compare and swap, by the service's store or the application's own transaction.
        let updated: Bool
        if let commit { updated = try await commit(change) } else { updated = try await credentials.update(change) }
        guard updated else {
            return .failure(
                trace.fail(
                    "credential store update", "the stored counter is still the one verified against",
                    .signCount,
                    "a concurrent login of credential \(response.id) stored its record "
                        + "first (the stored counter is no longer \(expectedSignCount))"))
        }
        return .success(verified)
    }

    /// Consumes the challenge this response answers, before any other check. Without a
    /// session challenge the client data names it; that parse is returned for the verifier.
    private func consume(
        _ challenge: CeremonyChallenge, clientDataJSON: ArraySlice<UInt8>, now: Date,
        facts: inout CeremonyFacts, trace: inout CeremonyTrace
    )
        async throws -> Result<(IssuedChallenge, CollectedClientData?), WebAuthnError>
    {
        let store: any ChallengeStore
        var expected: [UInt8]?
        switch (challenges.mode, challenge.source) {
        case (.stored(let stored), .session(let bytes)):
            store = stored
            expected = bytes
        case (.stored(let stored), .clientData):
            store = stored
        case (.sealed(let key, let replayStore), .sealed(let token)):
            do {
                store = OpenedSealedChallenge(try key.open(token, now: now), replayStore: replayStore, now: now)
            } catch {
                facts.tokenRefused = true
                return .failure(
                    trace.fail(
                        error.step ?? "sealed challenge", "the sealed challenge opens under the key",
                        error.category, error.message))
            }
        case (.stored, .sealed):
            return .failure(
                trace.fail(
                    "consume", "the challenge is outstanding", .challenge,
                    "a sealed challenge was given to a service that stores its challenges"))
        case (.sealed, .session), (.sealed, .clientData):
            return .failure(
                trace.fail(
                    "consume", "the challenge is outstanding", .challenge,
                    "a service that seals its challenges finishes only with the sealed token"))
        }
        facts.expected = expected
        let bytes: [UInt8]
        var clientData: CollectedClientData?
        if let expected {
            bytes = expected
        } else {
            // No session challenge: identify the ceremony by the challenge the client data names.
            do {
                let parsed = try CollectedClientData(jsonBytes: clientDataJSON)
                bytes = try parsed.decodedChallenge()
                clientData = parsed
            } catch {
                return .failure(trace.fail("consume", "the challenge is outstanding", error.category, error.message))
            }
        }
        guard let issued = try await store.consume(bytes) else {
            return .failure(
                trace.fail(
                    "consume", "the challenge is outstanding", .challenge,
                    "challenge \(Base64URL.encode(bytes)) was not issued or was already used"))
        }
        facts.issued = issued
        trace.note("consume", "the challenge is outstanding; consumed now, whatever the verdict")
        return .success((issued, clientData))
    }
}

// MARK: Beginning ceremonies

extension RelyingPartyService {
    /// Starts a registration: builds creation options from `request` with a fresh 32-byte
    /// challenge and makes the challenge, bound to this ceremony, outstanding (stored, or
    /// sealed into the returned token, as the service's ``ChallengeTransport`` says).
    /// - Parameters:
    ///   - request: what to ask the client for (see ``RegistrationRequest`` for the defaults).
    ///   - now: the current time.
    /// - Returns: the options to send to the browser (`PublicKeyCredential.parseCreationOptionsFromJSON`)
    ///   and the ``CeremonyChallenge`` to pass to ``finishRegistration(_:challenge:now:keepAttestation:observer:commit:)``.
    /// - Throws: ``WebAuthnError`` for an invalid user entity or when no requested algorithm is
    ///   accepted by the policy; `serverFault` or the store's error when storage fails;
    ///   ``CryptoError`` when sealing fails.
    public func beginRegistration(
        _ request: RegistrationRequest,
        now: Date
    ) async throws -> CeremonyStart<PublicKeyCredentialCreationOptionsJSON> {
        let offered = request.algorithms.filter { policy.acceptedAlgorithms.contains($0) }
        guard !offered.isEmpty else {
            throw WebAuthnError(.algorithm, "none of the algorithms \(request.algorithms) is accepted by the policy")
        }
        let existing = request.excludeExistingCredentials ? try await credentials.credentials(userHandle: request.user.id.bytes) : []
        let options = try PublicKeyCredentialCreationOptionsJSON.make(
            rp: PublicKeyCredentialRpEntity(id: relyingParty.id, name: relyingParty.name.isEmpty ? relyingParty.id : relyingParty.name),
            user: request.user,
            pubKeyCredParams: offered.map { PublicKeyCredentialParameters($0) },
            timeout: request.timeout ?? defaultTimeout,
            excludeCredentials: existing.map(PublicKeyCredentialDescriptorJSON.init),
            authenticatorSelection: AuthenticatorSelectionCriteria(
                authenticatorAttachment: request.authenticatorAttachment,
                residentKey: request.residentKey,
                requireResidentKey: request.residentKey == .required,
                userVerification: request.userVerification),
            hints: request.hints, attestation: request.attestation, attestationFormats: request.attestationFormats,
            extensions: try request.extensions.validatedJSON())
        let challenge = try await issue(
            IssuedChallenge(
                creationOptions: options, relyingParty: relyingParty, issuedAt: now,
                expiresAt: now.addingTimeInterval(policy.challengeLifetime),
                conditional: request.conditional), now: now)
        return CeremonyStart(options: options, challenge: challenge)
    }

    /// Starts an authentication: builds request options from `request` with a fresh challenge
    /// and makes it outstanding (stored, or sealed into the returned token).
    /// - Parameters:
    ///   - request: what to ask the client for (see ``AuthenticationRequest``; the default asks
    ///     for a discoverable, usernameless login).
    ///   - now: the current time.
    /// - Returns: the options to send to the browser (`PublicKeyCredential.parseRequestOptionsFromJSON`)
    ///   and the ``CeremonyChallenge`` to pass to ``finishAuthentication(_:challenge:now:observer:commit:)``.
    /// - Throws: `serverFault` or the store's error when storage fails; ``CryptoError`` when sealing fails.
    public func beginAuthentication(
        _ request: AuthenticationRequest = AuthenticationRequest(),
        now: Date
    ) async throws -> CeremonyStart<PublicKeyCredentialRequestOptionsJSON> {
        var allow: [PublicKeyCredentialDescriptorJSON]? = nil
        if let userHandle = request.userHandle {
            if let given = request.allowCredentials {
                allow = given
            } else {
                allow = try await credentials.credentials(userHandle: userHandle).map(PublicKeyCredentialDescriptorJSON.init)
            }
        }
        let options = try PublicKeyCredentialRequestOptionsJSON.make(
            timeout: request.timeout ?? defaultTimeout, rpId: relyingParty.id, allowCredentials: allow,
            userVerification: request.userVerification, hints: request.hints,
            extensions: try request.extensions.validatedJSON(allowCredentials: (allow ?? []).map(\.id.bytes)))
        let challenge = try await issue(
            IssuedChallenge(
                requestOptions: options, relyingParty: relyingParty,
                userHandle: request.userHandle, issuedAt: now,
                expiresAt: now.addingTimeInterval(policy.challengeLifetime)), now: now)
        return CeremonyStart(options: options, challenge: challenge)
    }

    /// The options' timeout when the request names none: the challenge lifetime, in milliseconds.
    private var defaultTimeout: UInt32 { policy.challengeTimeoutMilliseconds }
}
