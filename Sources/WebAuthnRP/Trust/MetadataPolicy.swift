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
