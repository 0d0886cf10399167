import Foundation
import WebAuthnCoding
import WebAuthnCrypto
package import WebAuthnRP

/// The outcome of replaying one ceremony.
package struct CeremonyResult: Sendable {
    /// The fixture file.
    package let file: String
    /// The ceremony's name.
    package let name: String
    /// What the fixture expected, for example `accept` or `reject(signature)`.
    package let expected: String
    /// What happened, in the same form.
    package let actual: String
    /// Whether the verdict met the expectation.
    package let passed: Bool
    /// Each expectation detail that did not hold (empty when passed).
    package let mismatches: [String]
    /// The rejection, when there was one.
    package let error: WebAuthnError?
    /// The step trace of the verification.
    package let trace: CeremonyTrace
    /// An accepted registration's name from a verified metadata entry
    /// (``AttestationResult/metadataName``).
    package var metadataName: String? = nil
    /// An accepted registration's passkey provider name from the community AAGUID list: a
    /// claim (``AttestationResult/claimedProviderName``), printed as one.
    package var claimedProviderName: String? = nil
}

/// The outcome of a whole replay run.
package struct ReplayReport: Sendable {
    /// Every ceremony replayed, in order.
    package var results: [CeremonyResult] = []
    /// Files that could not be replayed at all.
    package var fixtureErrors: [FixtureError] = []

    /// Ceremonies that met their expectation.
    package var passed: Int { results.filter(\.passed).count }
    /// Ceremonies that did not.
    package var failed: Int { results.count - passed }
    /// 0 when every ceremony passed, 2 when any file was unusable, 1 otherwise.
    package var exitCode: Int32 {
        if !fixtureErrors.isEmpty { return 2 }
        return failed == 0 ? 0 : 1
    }
}

/// Replays `webauthn-ceremonies/1` fixture files: the logic behind `webauthn-replay`,
/// kept in a library so tests run the same code.
package enum Replayer {
    /// Replays files and folders (folders are walked for `*.json`, in name order).
    /// - Parameter paths: files or folders.
    /// - Returns: the report.
    package static func replay(paths: [String]) async -> ReplayReport {
        var report = ReplayReport()
        for path in paths {
            let files: [String]
            do {
                files = try fixtureFiles(at: path)
            } catch {
                report.fixtureErrors.append(error)
                continue
            }
            for file in files {
                do {
                    report.results += try await replay(file: file, walked: file != path)
                } catch let error as FixtureError {
                    report.fixtureErrors.append(error)
                } catch {
                    report.fixtureErrors.append(FixtureError(file: file, member: "(file)", reason: "\(error)"))
                }
            }
        }
        return report
    }

    static func fixtureFiles(at path: String) throws(FixtureError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FixtureError(file: path, member: "(file)", reason: "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            throw FixtureError(file: path, member: "(file)", reason: "cannot list the folder")
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".json") { files.append((path as NSString).appendingPathComponent(relative)) }
        }
        return files.sorted()
    }

    /// Replays one file.
    /// - Parameters:
    ///   - file: the fixture file.
    ///   - walked: the file was found by walking a folder; a JSON document that is not an
    ///     object at all (some other corpus, such as a CBOR vector list) is then skipped.
    /// - Returns: one result per ceremony.
    /// - Throws: ``FixtureError`` when the file cannot be replayed.
    static func replay(file: String, walked: Bool = false) async throws -> [CeremonyResult] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw FixtureError(file: file, member: "(file)", reason: "cannot be read")
        }
        if walked, let first = data.first(where: { !" \n\r\t".utf8.contains($0) }), first == UInt8(ascii: "[") {
            return []
        }
        if AppAttestReplay.isAppAttestDocument(data) { return try await AppAttestReplay.replay(data, file: file) }
        if AndroidKeyReplay.isAndroidDocument(data) { return try await AndroidKeyReplay.replay(data, file: file) }
        let (fixture, setup) = try load(data, file: file)
        let service = RelyingPartyService(
            relyingParty: setup.relyingParty, policy: setup.policy,
            challenges: .stored(InMemoryChallengeStore()),
            credentials: InMemoryCredentialStore(records: setup.credentials))
        var results: [CeremonyResult] = []
        for ceremony in fixture.ceremonies {
            results.append(try await run(ceremony, file: file, service: service, now: setup.now))
        }
        return results
    }

    /// Decodes a fixture document and builds what it describes: every check that makes a file
    /// unusable (exit code 2) happens here.
    static func load(_ data: Data, file: String) throws(FixtureError) -> (Fixture, ReplaySetup) {
        var fixture = try decodeDocument(
            Fixture.self, data, file: file, format: \.format,
            names: { $0.ceremonies.map(\.name) })
        // Each `response` is read from its bytes in the document, by the decoder a server's body
        // goes through: browser JSON and a native app's body alike, byte for byte, so a member
        // given twice or invalid UTF-8 is `malformed` as it is for a server.
        let extents = ResponseExtents.find(in: [UInt8](data))
        guard extents.count == fixture.ceremonies.count else {
            throw FixtureError(
                file: file, member: "ceremonies",
                reason: "\(extents.count) responses found in the document's bytes for \(fixture.ceremonies.count) ceremonies "
                    + "(a member given twice?)")
        }
        for (index, extent) in extents.enumerated() {
            switch extent {
            case .refused(let reason):
                fixture.ceremonies[index].response = .undecodable(WebAuthnError(.malformed, reason))
            case .bytes(let body):
                fixture.ceremonies[index].response = Ceremony.Response(body: Data(body), kind: fixture.ceremonies[index].kind)
            }
        }
        return (fixture, try ReplaySetup(fixture: fixture, file: file))
    }

    /// Decodes a `webauthn-ceremonies/1` document of either kind (WebAuthn or App Attest) and
    /// checks what both share: the format identifier and unique ceremony names.
    static func decodeDocument<Document: Decodable>(
        _ type: Document.Type, _ data: Data, file: String,
        format: (Document) -> String,
        names: (Document) -> [String]
    ) throws(FixtureError) -> Document {
        let document: Document
        do {
            document = try JSONDecoder().decode(type, from: data)
        } catch {
            throw FixtureError(file: file, decoding: error)
        }
        guard format(document) == Fixture.formatIdentifier else {
            throw FixtureError(file: file, member: "format", reason: "is \"\(format(document))\", expected \"\(Fixture.formatIdentifier)\"")
        }
        var seen = Set<String>()
        for (index, name) in names(document).enumerated() where !seen.insert(name).inserted {
            throw FixtureError(file: file, member: "ceremonies[\(index)].name", reason: "\"\(name)\" is not unique")
        }
        return document
    }

    private static func run(
        _ ceremony: Ceremony, file: String, service: RelyingPartyService,
        now: Date
    ) async throws -> CeremonyResult {
        // The challenge is issued at issuedAt and the response verified at receivedAt; both
        // default to the fixture's clock. The library's own expiry and clock checks judge them.
        let issuedAt = ceremony.issuedAt ?? now
        let receivedAt = ceremony.receivedAt ?? now
        let expiry = issuedAt.addingTimeInterval(service.policy.challengeLifetime)
        let challenge = ceremony.options.challenge
        if ceremony.issue {
            let issued: IssuedChallenge
            switch ceremony.options {
            case .registration(let options):
                issued = IssuedChallenge(
                    creationOptions: options, relyingParty: service.relyingParty,
                    issuedAt: issuedAt, expiresAt: expiry)
            case .authentication(let options):
                // `user`: the RP identified the user first (username-first login, §7.2 step 6).
                issued = IssuedChallenge(
                    requestOptions: options, relyingParty: service.relyingParty,
                    userHandle: ceremony.user, issuedAt: issuedAt, expiresAt: expiry)
            }
            try await service.issue(issued, now: issuedAt)
        }
        let verdict: Verdict
        switch ceremony.response {
        case .undecodable(let error):
            _ = try await service.challengeStore?.consume(challenge)  // every verdict consumes the challenge
            verdict = .rejected(error, CeremonyTrace())
        case .unread:
            // load(_:file:) reads every response; a ceremony built otherwise has none to verify.
            _ = try await service.challengeStore?.consume(challenge)
            verdict = .rejected(WebAuthnError(.malformed, "response: not read from the document"), CeremonyTrace())
        case .registration(let response):
            verdict = Verdict(
                try await service.finishRegistrationReport(response, challenge: .session(challenge), now: receivedAt),
                accepted: Verdict.registered)
        case .authentication(let response):
            verdict = Verdict(
                try await service.finishAuthenticationReport(response, challenge: .session(challenge), now: receivedAt),
                accepted: Verdict.authenticated)
        }
        let mismatches = ExpectationMatcher.mismatches(ceremony.expect, verdict)
        var result = CeremonyResult(
            file: file, name: ceremony.name, expected: ceremony.expect.summary,
            actual: verdict.summary, passed: mismatches.isEmpty, mismatches: mismatches,
            error: verdict.error, trace: verdict.trace)
        if case .registered(let verified, _) = verdict {
            result.metadataName = verified.attestation.metadataName
            result.claimedProviderName = verified.attestation.claimedProviderName
        }
        return result
    }
}

/// The relying party, policy, clock and starting records a fixture describes.
struct ReplaySetup {
    let relyingParty: RelyingParty
    let policy: VerificationPolicy
    /// `policy.trustAnchors`, parsed.
    let anchors: [Certificate]
    /// `policy.metadata`, when given: the BLOB verified at `now`, or why it did not verify.
    let metadata: Result<MetadataBLOB, WebAuthnError>?
    let credentials: [CredentialRecord]
    let now: Date

    init(fixture: Fixture, file: String) throws(FixtureError) {
        relyingParty = try Self.relyingParty(fixture.relyingParty, file: file)
        let spec = fixture.policy
        now = try FixtureTime.verificationTime(spec?.verificationTime, file: file)
        // A lifetime that is negative, NaN or infinite describes no relying party: the file is unusable.
        let lifetime = spec?.challengeLifetime ?? VerificationPolicy().challengeLifetime
        guard lifetime.isFinite, lifetime >= 0 else {
            throw FixtureError(
                file: file, member: "policy.challengeLifetime",
                reason: "is \(lifetime); it must be a finite number of seconds, 0 or more")
        }
        let anchors = try FixtureError.trustAnchors(spec?.trustAnchors ?? [], file: file)
        self.anchors = anchors
        let requireTrust = spec?.requireTrustedAttestation ?? false
        var source: any AttestationTrustSource = FixedTrustAnchors(anchors)
        if let metadataSpec = spec?.metadata {
            let loaded = try Self.loadMetadata(metadataSpec, at: now, file: file)
            metadata = loaded
            switch loaded {
            case .success(let blob):
                source = MetadataTrust(
                    blob: blob, policy: try Self.metadataPolicy(metadataSpec, file: file),
                    additionalAnchors: anchors)
            case .failure(let error):
                source = RefusingTrustSource(error: error)
            }
        } else {
            metadata = nil
        }
        if let statements = spec?.metadataStatements {
            guard spec?.metadata == nil else {
                throw FixtureError(
                    file: file, member: "policy.metadataStatements", reason: "is given with policy.metadata; give one of them")
            }
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                source = try MetadataTrust(
                    statements: try statements.map { try encoder.encode($0) }, additionalAnchors: anchors)
            } catch {
                throw FixtureError(file: file, member: "policy.metadataStatements", reason: "do not read: \(error)")
            }
        }
        let unattested: AttestationPolicy.Unattested
        switch spec?.unattested {
        case nil: unattested = requireTrust ? .rejected : .accepted
        case "accepted"?: unattested = .accepted
        case "rejectedWhenRequested"?: unattested = .rejectedWhenRequested
        case "rejected"?: unattested = .rejected
        case let other?:
            throw FixtureError(
                file: file, member: "policy.unattested",
                reason: "is \"\(other.prefix(64))\"; it must be accepted, rejectedWhenRequested or rejected")
        }
        var formats = AttestationFormatOptions(tpmNameMayUseItsOwnAlgorithm: spec?.tpmNameMayUseItsOwnAlgorithm ?? false)
        formats.fidoU2FRequiresZeroAAGUID = spec?.fidoU2FRequiresZeroAAGUID ?? false
        var attestation = AttestationPolicy(
            source: source, chain: requireTrust ? .required : .reported, unattested: unattested, formats: formats)
        attestation.refusesAnchorInPath = spec?.refuseAnchorInPath ?? false
        // The fixture's RP accepts whatever its options offer: legacy RS1 and ML-DSA included.
        var policy = VerificationPolicy(
            acceptedAlgorithms: VerificationPolicy.defaultAlgorithms + [.rs1, .mlDSA44, .mlDSA65, .mlDSA87],
            attestation: attestation,
            counter: (spec?.allowCounterRegression ?? false) ? .acceptAndFlag : .reject,
            challengeLifetime: lifetime)
        policy.userPresenceOptionalInAssertions = spec?.userPresenceOptionalInAssertions ?? false
        policy.checksTokenBindingShape = spec?.checkTokenBindingShape ?? false
        self.policy = policy
        var records: [CredentialRecord] = []
        for (index, credential) in (fixture.credentials ?? []).enumerated() {
            func bytes(_ text: String, _ name: String) throws(FixtureError) -> [UInt8] {
                try FixtureError.base64URL(text, file: file, member: "credentials[\(index)].\(name)")
            }
            let publicKey = try bytes(credential.publicKey, "publicKey")
            records.append(
                CredentialRecord(
                    id: try bytes(credential.id, "id"), publicKey: publicKey,
                    signCount: credential.signCount,
                    userHandle: try credential.userHandle.map { (text: String) throws(FixtureError) in try bytes(text, "userHandle") },
                    backupEligible: credential.backupEligible ?? false, backupState: credential.backupState ?? false,
                    transports: credential.transports ?? []))
        }
        credentials = records
    }

    /// The relying party of `relyingParty`: with `relatedOrigins`, the document's origins are
    /// accepted after `origins`, and the whole list must be one a browser honours (L3 §5.11.1,
    /// ``RelyingParty/relatedOriginsDocument(labelLimit:publicSuffixes:)``), or the file is unusable.
    private static func relyingParty(_ rp: Fixture.RelyingPartySpec, file: String) throws(FixtureError) -> RelyingParty {
        // Compared and deduplicated by the relying party itself, as serialized origins.
        let origins = rp.origins + (rp.relatedOrigins?.origins ?? [])
        let relyingParty = RelyingParty(
            id: rp.id, name: rp.name ?? "", origins: origins,
            allowCrossOrigin: rp.crossOrigin ?? false, topOrigins: rp.topOrigins ?? [])
        if rp.relatedOrigins != nil {
            do throws(WebAuthnError) {
                _ = try relyingParty.relatedOriginsDocument()
            } catch {
                throw FixtureError(
                    file: file, member: "relyingParty.relatedOrigins",
                    reason: "a browser would not honour it: \(error.message)")
            }
        }
        return relyingParty
    }

    /// The ``MetadataPolicy`` of `policy.metadata`. `acceptStale` defaults to true: files written
    /// before the member existed were replayed with stale BLOBs judged like fresh ones.
    private static func metadataPolicy(_ spec: Fixture.MetadataSpec, file: String) throws(FixtureError) -> MetadataPolicy {
        var minimum: CertificationLevel?
        if let text = spec.minimumCertificationLevel {
            guard let level = AuthenticatorStatus(rawValue: text).certificationLevel else {
                throw FixtureError(
                    file: file, member: "policy.metadata.minimumCertificationLevel",
                    reason: "is \"\(text)\"; it must be a certification status such as FIDO_CERTIFIED_L2")
            }
            minimum = level
        }
        return MetadataPolicy(
            refusedStatuses: spec.refusedStatuses.map { Set($0.map(AuthenticatorStatus.init(rawValue:))) }
                ?? AuthenticatorStatus.compromised,
            minimumCertificationLevel: minimum, requireEntry: spec.requireEntry ?? false,
            acceptStale: spec.acceptStale ?? true,
            trustLeakedAttestationKeysAfterLaterReport: spec.trustLeakedAttestationKeysAfterLaterReport ?? false)
    }

    /// Decodes `policy.metadata` (an unusable anchor or CRL makes the file unusable) and verifies
    /// the BLOB; a BLOB that does not verify, or whose `no` is below `previousNumber` (a rollback
    /// to an older BLOB), is a verdict (`metadata`) for every registration.
    private static func loadMetadata(
        _ spec: Fixture.MetadataSpec, at now: Date,
        file: String
    ) throws(FixtureError) -> Result<MetadataBLOB, WebAuthnError> {
        let anchor: Certificate
        do {
            anchor = try Certificate(derEncoded: try Base64URL.decode(spec.trustAnchor)[...])
        } catch {
            throw FixtureError(file: file, member: "policy.metadata.trustAnchor", reason: "is not a base64url DER certificate (\(error))")
        }
        var crls: [CertificateRevocationList] = []
        for (index, text) in (spec.crls ?? []).enumerated() {
            do {
                crls.append(try CertificateRevocationList(derEncoded: try Base64URL.decode(text)))
            } catch {
                throw FixtureError(file: file, member: "policy.metadata.crls[\(index)]", reason: "is not a base64url DER CRL (\(error))")
            }
        }
        if let previous = spec.previousNumber, previous < 0 {
            throw FixtureError(file: file, member: "policy.metadata.previousNumber", reason: "is \(previous); a BLOB's no is 0 or more")
        }
        let blob: MetadataBLOB
        do throws(WebAuthnError) {
            blob = try MetadataBLOB(jws: spec.blob.utf8, trustAnchor: anchor, crls: crls, at: now)
        } catch {
            return .failure(error)
        }
        // A newer BLOB has a larger no (MDS3), so a lower one is an older BLOB served again: a
        // rollback to statuses from before a revocation. The same no is the BLOB already held.
        if let previous = spec.previousNumber, blob.number < previous {
            return .failure(
                WebAuthnError(
                    .metadata, step: "MDS3 BLOB no",
                    "the metadata BLOB's no \(blob.number) is lower than the no \(previous) of the BLOB "
                        + "already held: an older BLOB is refused"))
        }
        return .success(blob)
    }
}

/// The trust source of a fixture whose metadata BLOB did not verify: every registration is refused with why.
struct RefusingTrustSource: AttestationTrustSource {
    let error: WebAuthnError

    func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
        throw error
    }
}

/// What replaying a ceremony produced.
enum Verdict {
    case registered(VerifiedRegistration, CeremonyTrace)
    case authenticated(VerifiedAuthentication, CeremonyTrace)
    case rejected(WebAuthnError, CeremonyTrace)

    /// A ceremony's report as a verdict: `accepted` for the verified result, else rejected.
    init<Verified>(_ report: CeremonyReport<Verified>, accepted: (Verified, CeremonyTrace) -> Verdict) {
        switch report.result {
        case .success(let verified): self = accepted(verified, report.trace)
        case .failure(let error): self = .rejected(error, report.trace)
        }
    }

    var summary: String {
        switch self {
        case .registered, .authenticated: return "accept"
        case .rejected(let error, _): return "reject(\(error.category.rawValue))"
        }
    }

    var error: WebAuthnError? {
        if case .rejected(let error, _) = self { return error }
        return nil
    }

    var trace: CeremonyTrace {
        switch self {
        case .registered(_, let t), .authenticated(_, let t), .rejected(_, let t): return t
        }
    }
}

/// Compares a verdict with a fixture's expectation, detail by detail.
enum ExpectationMatcher {
    static func mismatches(_ expect: Expectation, _ verdict: Verdict) -> [String] {
        var out: [String] = []
        func compare<T: Equatable>(_ name: String, _ expected: T?, _ actual: T) {
            if let expected, expected != actual { out.append("\(name): expected \(expected), got \(actual)") }
        }
        switch (expect.outcome, verdict) {
        case (.reject, .rejected(let error, _)):
            compare("error", expect.error, error.category)
        case (.reject, _):
            out.append("expected \(expect.summary), got accept")
        case (.accept, .rejected(let error, _)):
            out.append("expected accept, got \(error)")
        case (.accept, .registered(let verified, _)):
            compare("attestationFormat", expect.attestationFormat, verified.attestation.format)
            compare("attestationType", expect.attestationType, verified.attestation.type)
            compare("trusted", expect.trusted, verified.attestation.trusted)
            compare("credentialId", expect.credentialId, Base64URL.encode(verified.record.id))
            compare("aaguid", expect.aaguid?.lowercased(), verified.record.aaguid)
            compare("algorithm", expect.algorithm, verified.record.algorithm)
            compare("signCount", expect.signCount, verified.authenticatorData.signCount)
            compareFlags(expect, verified.authenticatorData.flags, into: &out)
            // The metadata entry's name only: the community list's name is a claim, compared apart.
            let metadataNames = [("authenticatorName", expect.authenticatorName), ("metadataName", expect.metadataName)]
            for case (let member, let expected?) in metadataNames {
                if let mismatch = expected.mismatch(member, verified.attestation.metadataName, absentText: "no metadata entry") {
                    out.append(mismatch)
                }
            }
            if let mismatch = expect.claimedProviderName?.mismatch(
                "claimedProviderName", verified.attestation.claimedProviderName,
                absentText: "no provider claimed")
            {
                out.append(mismatch)
            }
            if let mismatch = expect.metadataStatus?.mismatch(
                "metadataStatus", verified.attestation.metadata?.latestStatusReport?.status.rawValue,
                absentText: "no metadata status")
            {
                out.append(mismatch)
            }
            compare("metadataStale", expect.metadataStale, verified.attestation.metadataStale)
            ReplayExtensions.compare(expect.extensions, verified.extensionsReplayJSON, into: &out)
        case (.accept, .authenticated(let verified, _)):
            compare("credentialId", expect.credentialId, Base64URL.encode(verified.updatedRecord.id))
            compare("signCount", expect.signCount, verified.authenticatorData.signCount)
            compareFlags(expect, verified.authenticatorData.flags, into: &out)
            ReplayExtensions.compare(expect.extensions, verified.extensions.replayJSON, into: &out)
            if expect.attestationFormat != nil || expect.attestationType != nil || expect.trusted != nil
                || expect.aaguid != nil || expect.authenticatorName != nil || expect.metadataStatus != nil
                || expect.metadataStale != nil || expect.claimedProviderName != nil || expect.metadataName != nil
            {
                out.append("attestation details were expected from an authentication")
            }
        }
        return out
    }

    private static func compareFlags(_ expect: Expectation, _ flags: AuthenticatorFlags, into out: inout [String]) {
        let pairs: [(String, Bool?, AuthenticatorFlags)] = [
            ("userPresent", expect.userPresent, .userPresent), ("userVerified", expect.userVerified, .userVerified),
            ("backupEligible", expect.backupEligible, .backupEligible), ("backupState", expect.backupState, .backupState),
        ]
        for (name, expected, flag) in pairs {
            if let expected, expected != flags.contains(flag) {
                out.append("\(name): expected \(expected), got \(flags.contains(flag))")
            }
        }
    }
}
