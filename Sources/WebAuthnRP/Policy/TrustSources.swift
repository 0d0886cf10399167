public import Foundation
public import WebAuthnCrypto

// Where a registration's trust anchors come from (W3C L3 §7.1 step 24): the protocol, what a
// source is asked and answers, and the two sources the library ships.

/// The authenticator a registration's attestation speaks for, as a trust source sees it
/// after the attestation statement verified (W3C L3 §7.1 step 24).
public struct AttestedAuthenticator: Sendable {
    /// The AAGUID from the attested credential data (all zero for fido-u2f). Only statements
    /// whose signature covers the authenticator data vouch for it (packed, tpm, android-key,
    /// android-safetynet, apple): a `fido-u2f` statement signs none, so a source should not let
    /// the AAGUID choose anything for a fido-u2f chain (``MetadataTrust`` uses the attestation
    /// certificate's key identifier instead).
    public let aaguid: AAGUID
    /// The attestation statement format (`fmt`).
    public let format: String
    /// The verified attestation type.
    public let type: AttestationType
    /// The attestation trust path as presented, leaf first (empty for none and self). A
    /// `compound` statement is never asked about as a whole: each of its sub-statements is, with
    /// its own format, type and path.
    public let trustPath: [Certificate]
    /// Whether the statement vouches for ``aaguid``: its signature covers the authenticator data
    /// (packed, tpm, android-key, android-safetynet, apple). A `fido-u2f` statement signs no
    /// AAGUID, and `none` signs nothing: whoever wrote the authenticator data chose the AAGUID.
    let aaguidAttested: Bool

    /// Creates the description.
    /// - Parameters:
    ///   - aaguid: the AAGUID.
    ///   - format: the statement format.
    ///   - type: the attestation type.
    ///   - trustPath: the certificates presented, leaf first.
    ///   - aaguidAttested: whether the statement's signature covers the AAGUID.
    init(aaguid: AAGUID, format: String, type: AttestationType, trustPath: [Certificate], aaguidAttested: Bool) {
        self.aaguid = aaguid
        self.format = format
        self.type = type
        self.trustPath = trustPath
        self.aaguidAttested = aaguidAttested
    }
}

/// What a trust source says about one authenticator: the anchors its chain may end in and,
/// when the source knows it, its name and metadata. Made by a source, read by the library
/// (the name and metadata reach the server in ``AttestationResult``).
public struct AuthenticatorTrust: Sendable {
    /// The trust anchors for this authenticator (may be empty: then no chain is trusted).
    var anchors: [Certificate]
    /// The authenticator's name for people (the metadata statement's description), if known.
    var authenticatorName: String?
    /// The metadata entry the decision was taken from, if any.
    var metadata: MetadataEntry?
    /// True when the metadata used was past its nextUpdate and the policy accepted it anyway.
    var metadataStale: Bool
    /// Keys that anchor nothing: a path built through a certificate holding one is not trusted,
    /// whichever anchor it ends in (``MetadataTrust``: the keys compromise reports name).
    var compromisedKeys = CompromisedKeys()

    /// Creates a decision.
    /// - Parameters:
    ///   - anchors: trust anchors for this authenticator.
    ///   - authenticatorName: its name, if known.
    ///   - metadata: the metadata entry used, if any.
    ///   - metadataStale: whether that metadata is past its nextUpdate.
    public init(
        anchors: [Certificate], authenticatorName: String? = nil, metadata: MetadataEntry? = nil,
        metadataStale: Bool = false
    ) {
        self.anchors = anchors
        self.authenticatorName = authenticatorName
        self.metadata = metadata
        self.metadataStale = metadataStale
    }

    /// A decision that also names the keys no path may run through.
    init(
        anchors: [Certificate], authenticatorName: String? = nil, metadata: MetadataEntry? = nil,
        metadataStale: Bool, compromisedKeys: CompromisedKeys
    ) {
        self.init(anchors: anchors, authenticatorName: authenticatorName, metadata: metadata, metadataStale: metadataStale)
        self.compromisedKeys = compromisedKeys
    }
}

/// Attestation keys that metadata reports compromised, with who reported each: by subject
/// public key (a report's `certificate`) and by key identifier (an entry whose compromise report
/// names no certificate leaks every key it lists in `attestationCertificateKeyIdentifiers`).
struct CompromisedKeys: Sendable {
    /// SPKI DER of each named certificate, to the entry that reported it.
    var bySubjectPublicKey: [[UInt8]: String] = [:]
    /// Lowercase hex key identifiers, to the entry that reported them.
    var byKeyIdentifier: [String: String] = [:]

    /// The entry that reports the key of `certificate` compromised, or nil when none does.
    func reporter(of certificate: Certificate) -> String? {
        if let reporter = bySubjectPublicKey[certificate.subjectPublicKeyInfoDER] { return reporter }
        guard !byKeyIdentifier.isEmpty, let identifier = MetadataBLOB.keyIdentifier(of: certificate) else { return nil }
        return byKeyIdentifier[identifier]
    }
}

/// Where the trust anchors for an attested authenticator come from (W3C L3 §7.1 step 24:
/// "obtain a list of acceptable trust anchors … from a trusted source").
///
/// The library provides ``FixedTrustAnchors`` and ``MetadataTrust``; a server can implement
/// its own (an enterprise list, an allow-list of AAGUIDs). Throwing refuses the registration:
/// use category `metadata` for "this authenticator is not allowed".
public protocol AttestationTrustSource: Sendable {
    /// The anchors (and what is known) for one authenticator.
    /// - Parameters:
    ///   - authenticator: the verified attestation's authenticator.
    ///   - time: the verification time.
    /// - Returns: the anchors its chain may end in.
    /// - Throws: ``WebAuthnError`` when the authenticator is refused outright.
    func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust
}

/// The same fixed list of anchors for every authenticator.
public struct FixedTrustAnchors: AttestationTrustSource {
    /// The anchors.
    let anchors: [Certificate]

    /// Creates the source.
    /// - Parameter anchors: roots (or intermediates) a chain may end in. A self-signed
    ///   certificate inside `x5c` is never an anchor by itself.
    public init(_ anchors: [Certificate]) {
        self.anchors = anchors
    }

    /// Returns the anchors it was created with, whatever the authenticator.
    public func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
        AuthenticatorTrust(anchors: anchors)
    }
}

/// What a relying party accepts from the FIDO metadata of an authenticator.
public struct MetadataPolicy: Sendable {
    /// An authenticator whose latest status report has one of these statuses is refused
    /// (category `metadata`). Default: ``AuthenticatorStatus/compromised`` (REVOKED,
    /// ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS, USER_KEY_REMOTE_COMPROMISE,
    /// USER_KEY_PHYSICAL_COMPROMISE).
    var refusedStatuses: Set<AuthenticatorStatus>
    /// When set, an authenticator must be certified at this level or better (by its
    /// ``MetadataEntry/certificationLevel(at:)``); otherwise it is refused (`metadata`).
    var minimumCertificationLevel: CertificationLevel?
    /// Refuse (`metadata`) an authenticator the BLOB has no entry for. Default false: such an
    /// authenticator is judged by the other anchors only (usually: untrusted).
    var requireEntry: Bool
    /// Accept metadata whose BLOB is past its `nextUpdate` day (reported as
    /// ``AttestationResult/metadataStale``). Default false: stale metadata refuses every
    /// registration (`metadata`) until a fresh BLOB is loaded.
    var acceptStale: Bool
    /// Unsafe: let a later status report (a re-certification, `UPDATE_AVAILABLE`) end an
    /// `ATTESTATION_KEY_COMPROMISE`, so chains from the leaked key are trusted again, as under
    /// the latest-report-only reading of MDS3. Default false: while
    /// `ATTESTATION_KEY_COMPROMISE` is among the refused statuses, every
    /// such report in the entry refuses the chains it names (its `certificate`),
    /// or every chain of the entry when it names none, whatever came after it. A leaked key
    /// stays leaked: whoever holds it can still sign attestations a re-certified model's
    /// genuine devices would.
    var trustLeakedAttestationKeysAfterLaterReport: Bool

    /// Creates a policy; the defaults are the safe ones.
    /// - Parameters:
    ///   - refusedStatuses: statuses that refuse an authenticator (default: the compromise statuses and REVOKED).
    ///   - minimumCertificationLevel: the weakest certification accepted (default: any, certified or not).
    ///   - requireEntry: refuse authenticators without an entry (default false).
    ///   - acceptStale: accept a BLOB past its nextUpdate day (default false).
    ///   - trustLeakedAttestationKeysAfterLaterReport: unsafe; let a later report end a key
    ///     compromise (default false: a compromise report counts whatever came after it).
    public init(
        refusedStatuses: Set<AuthenticatorStatus> = AuthenticatorStatus.compromised,
        minimumCertificationLevel: CertificationLevel? = nil, requireEntry: Bool = false,
        acceptStale: Bool = false, trustLeakedAttestationKeysAfterLaterReport: Bool = false
    ) {
        self.refusedStatuses = refusedStatuses
        self.minimumCertificationLevel = minimumCertificationLevel
        self.requireEntry = requireEntry
        self.acceptStale = acceptStale
        self.trustLeakedAttestationKeysAfterLaterReport = trustLeakedAttestationKeysAfterLaterReport
    }
}

/// Trust from the FIDO Metadata Service: each authenticator's chain is judged against the
/// attestation roots of its own metadata entry, and its statuses can refuse it.
///
/// Used as the source of an ``AttestationPolicy``:
/// ```swift
/// let blob = try MetadataBLOB(jws: downloaded, trustAnchor: root, at: Date())
/// let attestation = AttestationPolicy(source: MetadataTrust(blob: blob), chain: .required)
/// ```
/// For each statement of a registration (W3C L3 §7.1 step 24; a compound's sub-statements one
/// by one): the entry is found by AAGUID when the statement's signature covers it, otherwise
/// (fido-u2f; an all-zero AAGUID) by the key identifier of its attestation certificate
/// (`x5c[0]`); an identifier two entries list refuses the registration; a chain holding a key
/// that any entry reports compromised is refused; statuses and certification are checked
/// against its `policy`; the attestation
/// type must be one the statement declares (`basic_full` for Basic, `basic_surrogate` for
/// self, `attca` for AttCA, `anonca` for AnonCA; a `packed` or `fido-u2f` x5c statement, which
/// the spec leaves as "Basic, AttCA or uncertainty", fits any of `basic_full`, `attca` and
/// `anonca`; a `none` statement is not checked, since the client may strip any attestation);
/// the statement's attestation root certificates become the
/// anchors for that authenticator alone, together with its `additionalAnchors`, and no path
/// through a compromised key is trusted, whichever anchor it ends in.
public struct MetadataTrust: AttestationTrustSource {
    /// The verified BLOB.
    var blob: MetadataBLOB
    /// What is accepted.
    var policy: MetadataPolicy
    /// Anchors that count for every authenticator besides its entry's roots (default none).
    var additionalAnchors: [Certificate]

    /// Creates the source.
    /// - Parameters:
    ///   - blob: a verified BLOB.
    ///   - policy: what is accepted (default: the safe defaults).
    ///   - additionalAnchors: anchors for every authenticator, besides the entry's roots. One
    ///     whose key a compromise report of the BLOB names anchors nothing, as an entry root would not.
    public init(blob: MetadataBLOB, policy: MetadataPolicy = MetadataPolicy(), additionalAnchors: [Certificate] = []) {
        self.blob = blob
        self.policy = policy
        self.additionalAnchors = additionalAnchors
    }

    static func failure(_ message: String) -> WebAuthnError {
        WebAuthnError(.metadata, step: "§7.1 step 24", message)
    }

    /// The entry for a statement: chosen only by an identifier the statement vouches for.
    ///
    /// By the AAGUID when it is not all zero and the statement vouches for it
    /// (``AttestedAuthenticator/aaguidAttested``: its signature covers the authenticator data),
    /// or when the statement has no chain to judge (none, self: the entry then decides status
    /// and name only). Otherwise (a `fido-u2f` statement, also inside `compound`; an all-zero
    /// AAGUID) by the key identifier of its attestation certificate (`x5c[0]`) alone, never by
    /// the AAGUID, which nothing signed.
    ///
    /// A certificate further along the path never chooses the entry: anyone can append a
    /// public certificate that the BLOB lists, and the entry supplies status, declared types,
    /// trust anchors and the name reported.
    /// - Parameter authenticator: the attested authenticator.
    /// - Returns: its entry, or nil when the BLOB has none for it.
    /// - Throws: ``WebAuthnError`` `metadata` when the BLOB lists the identifier in more than one entry.
    func entry(for authenticator: AttestedAuthenticator) throws(WebAuthnError) -> MetadataEntry? {
        let unchained = authenticator.type == .none || authenticator.type == .self
        if !authenticator.aaguid.isZero, authenticator.aaguidAttested || unchained {
            return try blob.uniqueEntry(aaguid: authenticator.aaguid)
        }
        guard let attestationCertificate = authenticator.trustPath.first else { return nil }
        return try blob.uniqueEntry(attestationCertificate: attestationCertificate)
    }

    /// Finds the authenticator's entry, applies the policy, and returns its roots as anchors.
    /// - Throws: ``WebAuthnError`` `metadata` when the policy refuses the authenticator.
    public func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
        let stale = blob.isStale(at: time)
        if stale, !policy.acceptStale {
            throw Self.failure(
                "the metadata BLOB (no \(blob.number)) was due for replacement by the end of its nextUpdate day "
                    + "\(blob.nextUpdate) and the policy does not accept stale metadata")
        }
        // A leaked key is refused whichever entry reports it and whichever model the chain claims.
        let compromised = compromisedKeys(at: time)
        try Self.refuse(authenticator.trustPath, holding: compromised)
        guard let entry = try entry(for: authenticator) else {
            if policy.requireEntry {
                throw Self.failure(
                    "authenticator \(authenticator.aaguid.uuidString) (\(authenticator.format)) has no metadata entry "
                        + "and the policy requires one")
            }
            return AuthenticatorTrust(anchors: additionalAnchors, metadataStale: stale, compromisedKeys: compromised)
        }
        try check(entry, authenticator: authenticator, chain: authenticator.trustPath, at: time)
        var anchors = additionalAnchors
        for der in entry.statement?.attestationRootCertificates ?? [] {
            // A root that does not parse cannot anchor anything; the others still count. One whose
            // key a compromise report names is judged with every other anchor: no path through it
            // is trusted (``AttestationTrustEvaluator``).
            if let certificate = try? Certificate(derEncoded: der) {
                anchors.append(certificate)
            }
        }
        return AuthenticatorTrust(
            anchors: anchors, authenticatorName: entry.name, metadata: entry, metadataStale: stale,
            compromisedKeys: compromised)
    }

    /// Checks an entry against the policy at `time`: status, certification, declared attestation type.
    ///
    /// Every status report in effect counts (``MetadataEntry/currentStatusReports(at:)``): a
    /// refused status can share its date with a certification. A refused status dated after
    /// `time` counts too (a revocation announced ahead is taken at once), while a certification
    /// dated after `time` does not count yet. An `ATTESTATION_KEY_COMPROMISE` counts whatever
    /// came after it (unless the policy opts out); one naming a certificate refuses the chains
    /// holding its key, through ``compromisedKeys(at:)``, whichever entry they claim.
    /// - Parameters:
    ///   - chain: the attestation's certificates, leaf first (empty for none and self
    ///     attestation), or nil when not known (a re-check without the attestation object):
    ///     then a compromise naming a certificate refuses, as the chain cannot be shown clear of it.
    func check(
        _ entry: MetadataEntry, authenticator: AttestedAuthenticator?, chain: [Certificate]?,
        at time: Date
    ) throws(WebAuthnError) {
        let name = Self.name(of: entry)
        for report in refusingReports(entry, at: time) {
            // A known chain is judged by key against every compromise report of the BLOB (``refuse(_:holding:)``).
            if report.status == .attestationKeyCompromise, report.certificate != nil, chain != nil {
                continue
            }
            let detail =
                report.status != .attestationKeyCompromise
                ? "in effect or announced"
                : report.certificate != nil
                    ? "reported for the key of a certificate the chain may hold, whatever came after"
                    : "reported for every chain of the model, whatever came after"
            throw Self.failure("\(name): the metadata status \(report.status.rawValue) is \(detail)")
        }
        if let minimum = policy.minimumCertificationLevel {
            let level = entry.certificationLevel(at: time)
            guard let level, level >= minimum else {
                throw Self.failure(
                    "\(name) is certified at \(level.map { "\($0)" } ?? "no level"), "
                        + "the policy requires \(minimum) or better")
            }
        }
        guard let authenticator, let statement = entry.statement, authenticator.type != .none else { return }
        let fitting = Self.declarations(fitting: authenticator)
        guard statement.attestationTypes.contains(where: fitting.contains) else {
            throw Self.failure(
                "\(name): attestation type \(authenticator.type.rawValue) (\(fitting.joined(separator: " or "))) is not "
                    + "one its metadata statement declares (\(statement.attestationTypes.joined(separator: ", ")))")
        }
    }

    /// An entry's name in messages: its description, else its AAGUID, else its first key identifier.
    static func name(of entry: MetadataEntry) -> String {
        entry.name.map { "\"\($0)\"" } ?? entry.aaguid?.uuidString
            ?? entry.attestationCertificateKeyIdentifiers.first.map { "keyid \($0)" } ?? "authenticator"
    }

    /// The reports of `entry` that refuse under the policy at `time`: a refused status in effect
    /// or announced, and, sticky, every `ATTESTATION_KEY_COMPROMISE` whatever its date.
    func refusingReports(_ entry: MetadataEntry, at time: Date) -> [MetadataStatusReport] {
        let announced = entry.statusReports.filter { report in report.effectiveDate.map { $0 > time } ?? false }
        let inForce = entry.currentStatusReports(at: time) + announced
        let sticky = !policy.trustLeakedAttestationKeysAfterLaterReport
        return entry.statusReports.filter { report in
            guard policy.refusedStatuses.contains(report.status) else { return false }
            return (sticky && report.status == .attestationKeyCompromise) || inForce.contains(report)
        }
    }

    /// The keys that refusing reports of **any** entry of the BLOB name at `time`: a refusing
    /// report's `certificate` names its key, whatever the status (an
    /// `ATTESTATION_KEY_COMPROMISE`, or another refused status naming the affected batch); an
    /// `ATTESTATION_KEY_COMPROMISE` naming none leaks every key its entry lists by key identifier
    /// (and refuses every chain of its own entry through ``check(_:authenticator:chain:at:)``). A
    /// named key is refused wherever it appears, not only in chains that claim the reporting
    /// entry's model.
    func compromisedKeys(at time: Date) -> CompromisedKeys {
        var keys = CompromisedKeys()
        for entry in blob.entriesNamingKeys {
            for report in refusingReports(entry, at: time) {
                let reporter = "\(Self.name(of: entry)) (\(report.status.rawValue))"
                if let der = report.certificate {
                    // The parser kept only certificates that parse; one that does not names no key it could match.
                    if let certificate = try? Certificate(derEncoded: der) {
                        keys.bySubjectPublicKey[certificate.subjectPublicKeyInfoDER] = reporter
                    }
                } else if report.status == .attestationKeyCompromise {
                    for identifier in entry.attestationCertificateKeyIdentifiers { keys.byKeyIdentifier[identifier] = reporter }
                }
            }
        }
        return keys
    }

    /// Refuses (`metadata`) a chain that holds a certificate with a compromised key.
    static func refuse(_ chain: [Certificate], holding keys: CompromisedKeys) throws(WebAuthnError) {
        for certificate in chain {
            guard let reporter = keys.reporter(of: certificate) else { continue }
            throw failure(
                "the chain holds \(certificate.subject), whose key the metadata of \(reporter) reports compromised")
        }
    }

    /// The MDS `attestationTypes` values a verified attestation may be declared as.
    ///
    /// A `packed` or `fido-u2f` statement with `x5c` verifies as "Basic, AttCA or uncertainty"
    /// (W3C L3 §8.2, §8.6): only the metadata tells a batch certificate from one a CA issued for
    /// this credential, so the entry's declaration of either (or of an anonymization CA) fits,
    /// and the chain is still held to that entry's roots. Every other format's verification
    /// procedure names one type.
    static func declarations(fitting authenticator: AttestedAuthenticator) -> [String] {
        switch authenticator.type {
        case .basic where authenticator.format == "packed" || authenticator.format == "fido-u2f":
            return ["basic_full", "attca", "anonca"]
        case .basic: return ["basic_full"]
        case .self: return ["basic_surrogate"]
        case .attCA: return ["attca"]
        case .anonCA: return ["anonca"]
        case .none: return []
        }
    }
}
