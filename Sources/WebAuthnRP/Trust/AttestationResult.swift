public import WebAuthnCrypto

/// The attestation part of a verified registration: which format and type, and
/// whether (and through which anchor) the claim chains to a root the RP trusts.
public struct AttestationResult: Sendable {
    /// The `fmt` of the statement.
    public let format: String
    /// The attestation type.
    public let type: AttestationType
    /// True when the trust path ended at one of the policy's trust anchors.
    public let trusted: Bool
    /// The anchor the path ended at, when trusted.
    public let trustAnchor: Certificate?
    /// The attestation trust path as presented (`x5c`, leaf first).
    public let trustPath: [Certificate]
    /// Why the path is not trusted, when it is not.
    public let untrustedReason: String?
    /// Facts the format established about the authenticator, for example the TPM
    /// manufacturer, model and firmware version (`tpmManufacturer`, `tpmModel`, `tpmVersion`).
    public let details: [String: String]
    /// For `compound`: the result of each sub-statement that verified, with its own trust.
    public let components: [AttestationResult]
    /// The authenticator's name from a verified FIDO metadata entry (the statement's
    /// description, as the trust source reports it), or nil. The entry is the one the trust
    /// source chose by an identifier the attestation statement vouches for; a `none` attestation
    /// vouches for nothing (its AAGUID is the client's claim), so it has no metadata name.
    /// Never the community list's name: that is ``claimedProviderName``.
    public let metadataName: String?
    /// The passkey provider's name for the AAGUID in the policy's `passkeyProviders` (the
    /// community AAGUID list, ``PasskeyProviders``), or nil: always a claim, never a statement.
    /// An AAGUID without a verified attestation is whatever the authenticator or client says;
    /// show it as "claims to be", never decide trust by it.
    public let claimedProviderName: String?
    /// The FIDO metadata entry the trust decision used, when the source is ``MetadataTrust``
    /// and the authenticator has an entry: its status reports, certification level, statement.
    public let metadata: MetadataEntry?
    /// True when that metadata was past its nextUpdate (accepted because the policy allows stale metadata).
    public let metadataStale: Bool

    /// Builds the public result from a format's outcome, the trust verdict and what the trust source said.
    init(
        format: String, outcome: AttestationOutcome, verdict: AttestationTrustEvaluator.Verdict,
        authenticator: AuthenticatorTrust? = nil, providerName: String? = nil
    ) {
        self.format = format
        self.type = outcome.type
        self.trusted = verdict.trusted
        self.trustAnchor = verdict.anchor
        self.trustPath = outcome.trustPath
        self.untrustedReason = verdict.trusted ? nil : verdict.reason
        self.details = outcome.details
        // Two names, never merged: metadata's, signed by the FIDO Alliance, and only for an entry
        // an attestation statement led to; the community list's, a claim by AAGUID.
        self.metadataName = outcome.type == .none ? nil : authenticator?.authenticatorName
        self.claimedProviderName = providerName
        self.metadata = authenticator?.metadata
        self.metadataStale = authenticator?.metadataStale ?? false
        // The verdict holds one verdict per component, in the same order (each chain verified once).
        self.components = zip(outcome.components, verdict.components).map { component, componentVerdict in
            AttestationResult(
                format: component.format, outcome: component.outcome, verdict: componentVerdict,
                authenticator: componentVerdict.trust)
        }
    }
}
