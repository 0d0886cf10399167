import Foundation
import WebAuthnCrypto
import WebAuthnRP

/// One `webauthn-ceremonies/1` file being recorded: ceremonies are produced by the
/// project's ``TestAuthenticator`` and appended in replay order, each with the
/// verdict the fixture specification requires.
struct FixtureFile {
    /// The verdict a ceremony is recorded with.
    enum Verdict {
        /// Accepted; for a registration, `none` attestation (untrusted).
        case accept
        /// An accepted registration with this attestation.
        case attested(format: String, type: AttestationType, trusted: Bool)
        /// Rejected with this category.
        case reject(WebAuthnError.Category)
    }

    /// How a ceremony's `response` is written: as `PublicKeyCredential.toJSON()` returns it, or
    /// as a native app posts it (the AuthenticationServices members, standard base64, that
    /// `RegistrationResponse(jsonData:)` and `AuthenticationResponse(jsonData:)` read).
    enum ResponseForm {
        case browser, native
    }

    /// Every fixture replays at this instant; the test CA and leaves are valid then.
    static let verificationTime = "2025-06-01T00:00:00Z"

    /// Path below `Fixtures/`, for example `attestation/packed/es256.json`.
    let path: String
    /// `policy.verificationTime` (a file about fractions of a second writes its own).
    var clock = Self.verificationTime
    var description: String
    var relyingParty: FixtureValue = .object([
        ("id", .string("example.org")), ("name", .string("Example")), ("origins", .array([.string("https://example.org")])),
    ])
    var trustAnchors: [Certificate] = []
    var requireTrustedAttestation = false
    var allowCounterRegression = false
    var credentials: [FixtureValue] = []
    /// More `policy` members, written after the standard ones (for example `challengeLifetime`).
    var policyMembers: [(String, FixtureValue)] = []
    private(set) var ceremonies: [FixtureValue] = []

    init(_ path: String, _ description: String) {
        self.path = path
        self.description = description
    }

    /// A stable challenge per file and ceremony name.
    func challenge(_ name: String) -> [UInt8] { Digest.sha256.hash(Array("challenge \(path) \(name)".utf8)) }

    /// An authenticator whose credential id and user handle derive from the file and `tag`,
    /// and whose keys derive from the file and `keyTag` (default: `tag`), so regenerating
    /// gives the same bytes.
    func authenticator(
        _ tag: String, key: TestAuthenticator.KeySpec = .es256,
        keyTag: String? = nil
    ) throws -> TestAuthenticator {
        var authenticator = try TestAuthenticator(
            key: key, credentialId: Digest.sha256.hash(Array("credential \(path) \(tag)".utf8)),
            seed: "fixture \(path) \(keyTag ?? tag)")
        authenticator.userHandle = Array(Digest.sha256.hash(Array("user \(path) \(tag)".utf8)).prefix(16))
        return authenticator
    }

    /// The algorithms offered by default, the credential's own among them.
    static let offered: [COSEAlgorithm] = [.edDSA, .es256, .es384, .es512, .ps256, .rs256]

    // MARK: Ceremonies

    /// Records a registration and returns its options and response (to replay them later).
    @discardableResult
    mutating func register(
        _ name: String, _ authenticator: TestAuthenticator, algorithms: [COSEAlgorithm] = offered,
        userVerification: UserVerificationRequirement = .preferred, attestation: String = "direct",
        options: TestAuthenticator.RegistrationOptions = .init(), user: [UInt8]? = nil,
        parameters: [FixtureValue]? = nil, form: ResponseForm = .browser, editJSON: (inout FixtureValue) -> Void = { _ in },
        _ verdict: Verdict
    ) throws -> (options: FixtureValue, response: FixtureValue) {
        let challenge = self.challenge(name)
        let userHandle = user ?? authenticator.userHandle
        let optionsJSON = FixtureJSONForms.creationOptions(
            challenge: challenge, rpId: "example.org", user: userHandle,
            userName: "\(name)@example.org", algorithms: algorithms, userVerification: userVerification,
            attestation: attestation, parameters: parameters)
        let made = try authenticator.register(challenge: challenge, options)
        var response =
            form == .native ? FixtureJSONForms.nativeRegistrationBody(made) : FixtureJSONForms.registrationResponse(made)
        editJSON(&response)
        let expect: FixtureValue
        switch verdict {
        case .accept:
            expect = Self.registered(authenticator, flags: options.flags, format: "none", type: .none, trusted: false)
        case .attested(let format, let type, let trusted):
            expect = Self.registered(authenticator, flags: options.flags, format: format, type: type, trusted: trusted)
        case .reject(let category):
            expect = Self.reject(category)
        }
        add(name, kind: .registration, options: optionsJSON, response: response, expect: expect)
        return (optionsJSON, response)
    }

    /// Records an assertion (advancing the authenticator's counter unless fixed) and
    /// returns its options and response.
    @discardableResult
    mutating func authenticate(
        _ name: String, _ authenticator: inout TestAuthenticator, allow: [[UInt8]] = [],
        userVerification: UserVerificationRequirement = .preferred,
        options: TestAuthenticator.AuthenticationOptions = .init(), form: ResponseForm = .browser,
        editJSON: (inout FixtureValue) -> Void = { _ in },
        _ verdict: Verdict
    ) throws -> (options: FixtureValue, response: FixtureValue) {
        let challenge = self.challenge(name)
        let optionsJSON = FixtureJSONForms.requestOptions(
            challenge: challenge, rpId: "example.org",
            allowCredentials: allow, userVerification: userVerification)
        let assertion = try authenticator.authenticate(challenge: challenge, options)
        var response =
            form == .native
            ? FixtureJSONForms.nativeAuthenticationBody(assertion) : FixtureJSONForms.authenticationResponse(assertion)
        editJSON(&response)
        let expect: FixtureValue
        switch verdict {
        case .accept, .attested:
            var flags = options.flags
            flags.remove(.attestedCredentialData)
            expect = Self.authenticated(authenticator, signCount: options.signCount ?? authenticator.signCount, flags: flags)
        case .reject(let category):
            expect = Self.reject(category)
        }
        add(name, kind: .authentication, options: optionsJSON, response: response, expect: expect)
        return (optionsJSON, response)
    }

    /// Appends a ceremony as given (for replays with `issue: false`).
    mutating func add(
        _ name: String, kind: CeremonyKind, options: FixtureValue, issue: Bool = true,
        response: FixtureValue, expect: FixtureValue
    ) {
        var members: [(String, FixtureValue)] = [("name", .string(name)), ("kind", .string(kind.rawValue)), ("options", options)]
        if !issue { members.append(("issue", .bool(false))) }
        members += [("response", response), ("expect", expect)]
        ceremonies.append(.object(members))
    }

    /// Edits the ceremony recorded last (to add members such as `issuedAt` or `user`).
    mutating func editLastCeremony(_ body: (inout FixtureValue) -> Void) {
        guard !ceremonies.isEmpty else { return }
        body(&ceremonies[ceremonies.count - 1])
    }

    /// A record that exists before the replay starts (the file's `credentials`).
    mutating func preload(_ authenticator: TestAuthenticator, signCount: UInt32 = 0, backupEligible: Bool = false) {
        credentials.append(
            .object([
                ("id", .bytes(authenticator.credentialId)),
                ("publicKey", .bytes(authenticator.coseKey)),
                ("signCount", .int(Int(signCount))),
                ("userHandle", .bytes(authenticator.userHandle)),
                ("backupEligible", .bool(backupEligible)),
                ("backupState", .bool(false)),
                ("transports", .array(authenticator.transports.map(FixtureValue.string))),
            ]))
    }

    // MARK: Expectations

    static func reject(_ category: WebAuthnError.Category) -> FixtureValue {
        .object([("outcome", .string("reject")), ("error", .string(category.rawValue))])
    }

    static func registered(
        _ a: TestAuthenticator, flags: AuthenticatorFlags, format: String, type: AttestationType,
        trusted: Bool
    ) -> FixtureValue {
        .object(
            [
                ("outcome", .string("accept")),
                ("attestationFormat", .string(format)),
                ("attestationType", .string(type.rawValue)),
                ("trusted", .bool(trusted)),
                ("credentialId", .bytes(a.credentialId)),
                ("aaguid", .string(AAGUID(bytes: a.aaguid)?.uuidString ?? AAGUID.zero.uuidString)),
                ("algorithm", .int(a.algorithm.rawValue)),
                ("signCount", .int(Int(a.signCount))),
            ] + flagMembers(flags))
    }

    static func authenticated(_ a: TestAuthenticator, signCount: UInt32, flags: AuthenticatorFlags) -> FixtureValue {
        .object(
            [
                ("outcome", .string("accept")),
                ("credentialId", .bytes(a.credentialId)),
                ("signCount", .int(Int(signCount))),
            ] + flagMembers(flags))
    }

    static func flagMembers(_ flags: AuthenticatorFlags) -> [(String, FixtureValue)] {
        [
            ("userPresent", .bool(flags.contains(.userPresent))), ("userVerified", .bool(flags.contains(.userVerified))),
            ("backupEligible", .bool(flags.contains(.backupEligible))), ("backupState", .bool(flags.contains(.backupState))),
        ]
    }

    // MARK: Document

    var document: FixtureValue {
        var policy: [(String, FixtureValue)] = [("verificationTime", .string(clock))]
        if !trustAnchors.isEmpty { policy.append(("trustAnchors", .array(trustAnchors.map { .bytes($0.derBytes) }))) }
        policy += [
            ("requireTrustedAttestation", .bool(requireTrustedAttestation)),
            ("allowCounterRegression", .bool(allowCounterRegression)),
        ]
        policy += policyMembers
        let source =
            "Generated by Tests/WebAuthnRPTests/FixtureGeneration/FixtureGenerator.swift "
            + "(the project's TestAuthenticator); regenerate with WEBAUTHN_REGENERATE_FIXTURES=1"
        return Self.ceremoniesDocument(
            description: description, source: source, [("relyingParty", relyingParty), ("policy", .object(policy))],
            keysMember: "credentials", keys: credentials, ceremonies: ceremonies)
    }

    /// A `webauthn-ceremonies/1` document: format, description and source, then `members`, then
    /// the keys when there are any, then the ceremonies (WebAuthn and App Attest files alike).
    static func ceremoniesDocument(
        description: String, source: String, _ members: [(String, FixtureValue)],
        keysMember: String, keys: [FixtureValue], ceremonies: [FixtureValue]
    ) -> FixtureValue {
        var all: [(String, FixtureValue)] = [
            ("format", .string("webauthn-ceremonies/1")), ("description", .string(description)), ("source", .string(source)),
        ]
        all += members
        if !keys.isEmpty { all.append((keysMember, .array(keys))) }
        all.append(("ceremonies", .array(ceremonies)))
        return .object(all)
    }
}
