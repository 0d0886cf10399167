public import Foundation
import WebAuthnCoding

/// A relying party with its registry: issues challenges, finishes ceremonies,
/// and keeps credential records. This is what a server embeds.
///
/// Every finish consumes its challenge first, whatever the verdict, so a challenge
/// answers one response only. Time is always passed in.
public struct RelyingPartyService: Sendable {
    /// The relying party.
    public let relyingParty: RelyingParty
    /// The policy.
    public let policy: VerificationPolicy
    /// Outstanding challenges.
    public let challenges: any ChallengeStore
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
    ///   - challenges: the challenge store (default: bounded, in memory).
    ///   - credentials: the credential store (default: bounded, in memory).
    public init(relyingParty: RelyingParty, policy: VerificationPolicy = VerificationPolicy(),
                challenges: any ChallengeStore = InMemoryChallengeStore(),
                credentials: any CredentialStore = InMemoryCredentialStore()) {
        self.relyingParty = relyingParty
        self.policy = policy
        self.challenges = challenges
        self.credentials = credentials
        let cache = VerificationCache()
        self.cache = cache
        registrationVerifier = RegistrationVerifier(relyingParty: relyingParty, policy: policy, cache: cache)
        authenticationVerifier = AuthenticationVerifier(relyingParty: relyingParty, policy: policy, cache: cache)
    }

    // MARK: Issuing

    /// Registers an issued challenge as outstanding (single use, until it expires).
    /// - Parameters:
    ///   - issued: the challenge and its ceremony binding.
    ///   - now: the current time.
    /// - Throws: ``RegistryError`` when the store refuses it.
    package func issue(_ issued: IssuedChallenge, now: Date) async throws {
        try await challenges.issue(issued, now: now)
    }

    // MARK: Finishing

    /// Finishes a registration: consumes the challenge, verifies (§7.1) and stores the record.
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - expectedChallenge: the challenge kept in the caller's session; nil to take it from the client data.
    ///   - now: the current time.
    ///   - keepAttestation: keep the raw attestation object and client data in the record.
    /// - Returns: the verified registration (its record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response; ``RegistryError`` or the store's own error when storage fails.
    public func finishRegistration(_ response: RegistrationResponse, expectedChallenge: [UInt8]? = nil, now: Date,
                                   keepAttestation: Bool = false) async throws -> VerifiedRegistration {
        var trace = CeremonyTrace(recording: false)
        return try await finishRegistration(response, expectedChallenge: expectedChallenge, now: now,
                                            keepAttestation: keepAttestation, trace: &trace).get()
    }

    /// ``finishRegistration(_:expectedChallenge:now:keepAttestation:)`` with the step trace.
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - expectedChallenge: the session's challenge, or nil to take it from the client data.
    ///   - now: the current time.
    ///   - keepAttestation: keep raw attestation data in the record.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures; verdicts are in the report.
    package func finishRegistrationReport(_ response: RegistrationResponse, expectedChallenge: [UInt8]? = nil,
                                         now: Date, keepAttestation: Bool = false) async throws -> CeremonyReport<VerifiedRegistration> {
        var trace = CeremonyTrace()
        let result = try await finishRegistration(response, expectedChallenge: expectedChallenge, now: now,
                                                  keepAttestation: keepAttestation, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    /// The registration finish both public forms share; `trace` decides whether steps are kept.
    private func finishRegistration(_ response: RegistrationResponse, expectedChallenge: [UInt8]?, now: Date,
                                    keepAttestation: Bool, trace: inout CeremonyTrace)
        async throws -> Result<VerifiedRegistration, WebAuthnError> {
        let issued: IssuedChallenge, clientData: CollectedClientData?
        switch try await consumeChallenge(clientDataJSON: response.clientDataJSON[...], expected: expectedChallenge, trace: &trace) {
        case .success(let value): (issued, clientData) = value
        case .failure(let error): return .failure(error)
        }
        let verified: VerifiedRegistration
        do {
            var response = response
            response.preparsedClientData = clientData
            verified = try registrationVerifier.verify(response, issued: issued, now: now, keepAttestation: keepAttestation,
                                                       trace: &trace)
        } catch {
            return .failure(error)
        }
        // Steps 27-28: "Verify that the credentialId is not yet registered for any user", then store the
        // record. create-if-absent makes the check and the store one atomic operation.
        guard try await credentials.create(verified.record) else {
            return .failure(trace.fail("§7.1 step 27", "credentialId is not yet registered", .credentialExists,
                                       "credential \(response.id) is already registered"))
        }
        trace.note("§7.1 step 27", "credentialId is not yet registered")
        trace.note("§7.1 step 28", "credential record stored")
        return .success(verified)
    }

    /// Finishes an authentication: consumes the challenge, looks up the credential,
    /// verifies (§7.2) and stores the updated record.
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - expectedChallenge: the session's challenge, or nil to take it from the client data.
    ///   - now: the current time.
    /// - Returns: the verified authentication (its updated record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response; the store's error when storage fails.
    public func finishAuthentication(_ response: AuthenticationResponse, expectedChallenge: [UInt8]? = nil,
                                     now: Date) async throws -> VerifiedAuthentication {
        var trace = CeremonyTrace(recording: false)
        return try await finishAuthentication(response, expectedChallenge: expectedChallenge, now: now, trace: &trace).get()
    }

    /// ``finishAuthentication(_:expectedChallenge:now:)`` with the step trace.
    /// - Parameters:
    ///   - response: the decoded response.
    ///   - expectedChallenge: the session's challenge, or nil to take it from the client data.
    ///   - now: the current time.
    /// - Returns: the verdict and its trace.
    /// - Throws: only storage failures.
    package func finishAuthenticationReport(_ response: AuthenticationResponse, expectedChallenge: [UInt8]? = nil,
                                           now: Date) async throws -> CeremonyReport<VerifiedAuthentication> {
        var trace = CeremonyTrace()
        let result = try await finishAuthentication(response, expectedChallenge: expectedChallenge, now: now, trace: &trace)
        return CeremonyReport(result: result, trace: trace)
    }

    /// The authentication finish both public forms share; `trace` decides whether steps are kept.
    private func finishAuthentication(_ response: AuthenticationResponse, expectedChallenge: [UInt8]?, now: Date,
                                      trace: inout CeremonyTrace) async throws -> Result<VerifiedAuthentication, WebAuthnError> {
        let issued: IssuedChallenge, clientData: CollectedClientData?
        switch try await consumeChallenge(clientDataJSON: response.members.clientDataJSON, expected: expectedChallenge, trace: &trace) {
        case .success(let value): (issued, clientData) = value
        case .failure(let error): return .failure(error)
        }
        let record = try await credentials.credential(id: response.rawId)
        let verified: VerifiedAuthentication
        do {
            // The client data parsed to find the challenge goes along beside the response (not
            // set into a copy of it).
            verified = try authenticationVerifier.verify(response, issued: issued, record: record, now: now,
                                                         preparsedClientData: clientData, trace: &trace)
        } catch {
            return .failure(error)
        }
        try await credentials.update(verified.updatedRecord)
        return .success(verified)
    }

    /// Finishes an authentication from the `AuthenticationResponseJSON` bytes the client
    /// posted (`PublicKeyCredential.toJSON()`): parses them, then does everything
    /// ``finishAuthentication(_:expectedChallenge:now:)`` does.
    /// - Parameters:
    ///   - jsonData: the request body.
    ///   - expectedChallenge: the session's challenge, or nil to take it from the client data.
    ///   - now: the current time.
    /// - Returns: the verified authentication (its updated record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response (`malformed` for JSON that does not
    ///   parse); the store's error when storage fails.
    public func finishAuthentication(jsonData: Data, expectedChallenge: [UInt8]? = nil,
                                     now: Date) async throws -> VerifiedAuthentication {
        let response = try AuthenticationResponse(jsonData: jsonData)
        var trace = CeremonyTrace(recording: false)
        return try await finishAuthentication(response, expectedChallenge: expectedChallenge, now: now, trace: &trace).get()
    }

    /// Finishes a registration from the `RegistrationResponseJSON` bytes the client posted:
    /// parses them, then does everything ``finishRegistration(_:expectedChallenge:now:keepAttestation:)`` does.
    /// - Parameters:
    ///   - jsonData: the request body.
    ///   - expectedChallenge: the session's challenge, or nil to take it from the client data.
    ///   - now: the current time.
    ///   - keepAttestation: keep the raw attestation object and client data in the record.
    /// - Returns: the verified registration (its record is stored).
    /// - Throws: ``WebAuthnError`` for a rejected response (`malformed` for JSON that does not
    ///   parse); ``RegistryError`` or the store's own error when storage fails.
    public func finishRegistration(jsonData: Data, expectedChallenge: [UInt8]? = nil, now: Date,
                                   keepAttestation: Bool = false) async throws -> VerifiedRegistration {
        let json = try RegistrationResponseJSON(jsonData: jsonData)
        return try await finishRegistration(RegistrationResponse(json: json), expectedChallenge: expectedChallenge,
                                            now: now, keepAttestation: keepAttestation)
    }

    /// Consumes the challenge this response answers, before any other check. Without a
    /// session challenge the client data names it; that parse is returned for the verifier.
    private func consumeChallenge(clientDataJSON: ArraySlice<UInt8>, expected: [UInt8]?, trace: inout CeremonyTrace)
        async throws -> Result<(IssuedChallenge, CollectedClientData?), WebAuthnError> {
        let challenge: [UInt8]
        var clientData: CollectedClientData?
        if let expected {
            challenge = expected
        } else {
            // No session challenge: identify the ceremony by the challenge the client data names.
            do {
                let parsed = try CollectedClientData(jsonBytes: clientDataJSON)
                challenge = try parsed.decodedChallenge()
                clientData = parsed
            } catch {
                return .failure(trace.fail("consume", "the challenge is outstanding", error.category, error.message))
            }
        }
        guard let issued = try await challenges.consume(challenge) else {
            return .failure(trace.fail("consume", "the challenge is outstanding", .challenge,
                                       "challenge \(Base64URL.encode(challenge)) was not issued or was already used"))
        }
        trace.note("consume", "the challenge is outstanding; consumed now, whatever the verdict")
        return .success((issued, clientData))
    }
}

// MARK: Beginning ceremonies

extension RelyingPartyService {
    /// Starts a registration: builds creation options from `request` with a fresh 32-byte
    /// challenge and registers the challenge, bound to this ceremony, as outstanding.
    /// - Parameters:
    ///   - request: what to ask the client for (see ``RegistrationRequest`` for the defaults).
    ///   - now: the current time.
    /// - Returns: options to send to the browser (`PublicKeyCredential.parseCreationOptionsFromJSON`).
    /// - Throws: ``WebAuthnError`` for an invalid user entity or when no requested algorithm is
    ///   accepted by the policy; ``RegistryError`` or the store's error when storage fails.
    public func beginRegistration(_ request: RegistrationRequest, now: Date) async throws -> PublicKeyCredentialCreationOptionsJSON {
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
            authenticatorSelection: AuthenticatorSelectionCriteria(authenticatorAttachment: request.authenticatorAttachment,
                                                                   residentKey: request.residentKey,
                                                                   requireResidentKey: request.residentKey == .required,
                                                                   userVerification: request.userVerification),
            hints: request.hints, attestation: request.attestation, attestationFormats: request.attestationFormats,
            extensions: try request.extensions.validatedJSON())
        try await issue(IssuedChallenge(creationOptions: options, relyingParty: relyingParty, issuedAt: now,
                                        expiresAt: now.addingTimeInterval(policy.challengeLifetime),
                                        conditional: request.conditional), now: now)
        return options
    }

    /// Starts a registration with the common choices; ``beginRegistration(_:now:)`` takes every
    /// option.
    /// - Parameters:
    ///   - user: the user entity (`user.id` is the user handle, 1 to 64 bytes).
    ///   - userVerification: the UV requirement (default `preferred`).
    ///   - residentKey: the discoverable-credential requirement (default `preferred`).
    ///   - attestation: the attestation conveyance to ask for (default `none`).
    ///   - algorithms: the algorithms to offer, in order of preference (default EdDSA, ES256,
    ///     RS256); those the policy does not accept are left out. The response must use one of
    ///     those offered.
    ///   - conditional: the page will call `create()` with conditional mediation.
    ///   - now: the current time.
    /// - Returns: options to send to the browser (`PublicKeyCredential.parseCreationOptionsFromJSON`).
    /// - Throws: as ``beginRegistration(_:now:)``.
    public func beginRegistration(user: PublicKeyCredentialUserEntityJSON,
                                  userVerification: UserVerificationRequirement = .preferred,
                                  residentKey: ResidentKeyRequirement = .preferred,
                                  attestation: AttestationConveyancePreference = AttestationConveyancePreference.none,
                                  algorithms: [COSEAlgorithm] = PublicKeyCredentialParameters.recommended.map(\.algorithm),
                                  conditional: Bool = false, now: Date) async throws -> PublicKeyCredentialCreationOptionsJSON {
        try await beginRegistration(RegistrationRequest(user: user, algorithms: algorithms, userVerification: userVerification,
                                                        residentKey: residentKey, attestation: attestation,
                                                        conditional: conditional), now: now)
    }

    /// Starts an authentication: builds request options from `request` with a fresh challenge
    /// and registers it as outstanding.
    /// - Parameters:
    ///   - request: what to ask the client for (see ``AuthenticationRequest``).
    ///   - now: the current time.
    /// - Returns: options to send to the browser (`PublicKeyCredential.parseRequestOptionsFromJSON`).
    /// - Throws: ``RegistryError`` or the store's error when storage fails.
    public func beginAuthentication(_ request: AuthenticationRequest, now: Date) async throws -> PublicKeyCredentialRequestOptionsJSON {
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
        try await issue(IssuedChallenge(requestOptions: options, relyingParty: relyingParty, userHandle: request.userHandle,
                                        issuedAt: now, expiresAt: now.addingTimeInterval(policy.challengeLifetime)), now: now)
        return options
    }

    /// Starts an authentication with the common choices; ``beginAuthentication(_:now:)`` takes
    /// every option.
    /// - Parameters:
    ///   - userHandle: the user identified before the ceremony (their credentials go into
    ///     `allowCredentials`), or nil for a discoverable, usernameless login.
    ///   - userVerification: the UV requirement (default `preferred`).
    ///   - now: the current time.
    /// - Returns: options to send to the browser (`PublicKeyCredential.parseRequestOptionsFromJSON`).
    /// - Throws: ``RegistryError`` or the store's error when storage fails.
    public func beginAuthentication(userHandle: [UInt8]? = nil,
                                    userVerification: UserVerificationRequirement = .preferred,
                                    now: Date) async throws -> PublicKeyCredentialRequestOptionsJSON {
        try await beginAuthentication(AuthenticationRequest(userHandle: userHandle, userVerification: userVerification), now: now)
    }

    /// The options' timeout when the request names none: the challenge lifetime, in milliseconds.
    private var defaultTimeout: UInt32 { policy.challengeTimeoutMilliseconds }
}

extension PublicKeyCredentialDescriptorJSON {
    /// A stored credential as `excludeCredentials` and `allowCredentials` name it, transports included.
    /// - Parameter record: the stored credential.
    public init(_ record: CredentialRecord) {
        self.init(id: Base64URLBytes(record.id), transports: record.transports.map { AuthenticatorTransport(rawValue: $0) })
    }
}
