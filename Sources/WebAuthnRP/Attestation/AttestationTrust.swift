import Foundation
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
    /// The authenticator's name for people: the FIDO metadata statement's description when the
    /// trust source has one, else the passkey provider's name from
    /// ``VerificationPolicy/passkeyProviders`` (see ``PasskeyProviders``), else nil.
    public let authenticatorName: String?
    /// The FIDO metadata entry the trust decision used, when the source is ``MetadataTrust``
    /// and the authenticator has an entry: its status reports, certification level, statement.
    public let metadata: MetadataEntry?
    /// True when that metadata was past its nextUpdate (accepted because the policy allows stale metadata).
    public let metadataStale: Bool

    /// Builds the public result from a format's outcome, the trust verdict and what the trust source said.
    init(format: String, outcome: AttestationOutcome, verdict: AttestationTrustEvaluator.Verdict,
         authenticator: AuthenticatorTrust? = nil, providerName: String? = nil) {
        self.format = format
        self.type = outcome.type
        self.trusted = verdict.trusted
        self.trustAnchor = verdict.anchor
        self.trustPath = outcome.trustPath
        self.untrustedReason = verdict.trusted ? nil : verdict.reason
        self.details = outcome.details
        // Metadata, signed by the FIDO Alliance, names the authenticator before the community list.
        self.authenticatorName = authenticator?.authenticatorName ?? providerName
        self.metadata = authenticator?.metadata
        self.metadataStale = authenticator?.metadataStale ?? false
        // The verdict holds one verdict per component, in the same order (each chain verified once).
        self.components = zip(outcome.components, verdict.components).map { component, componentVerdict in
            AttestationResult(format: component.format, outcome: component.outcome, verdict: componentVerdict)
        }
    }
}

/// Decides trust for a verified attestation outcome (W3C L3 §7.1 steps 24-25).
enum AttestationTrustEvaluator {
    struct Verdict {
        var trusted: Bool
        var anchor: Certificate?
        var reason: String?
        /// For compound attestation: one verdict per component, in order.
        var components: [Verdict] = []
    }

    /// Steps 24-25 as a registration runs them: asks the policy's trust source for this
    /// authenticator's anchors (it may refuse the authenticator, category `metadata`), then
    /// judges the trust path against them.
    /// - Throws: ``WebAuthnError`` from the trust source.
    static func assess(_ outcome: AttestationOutcome, format: String, aaguid: AAGUID, policy: AttestationPolicy,
                       at time: Date) throws(WebAuthnError) -> (Verdict, AuthenticatorTrust) {
        let path = outcome.components.isEmpty ? outcome.trustPath : outcome.components.flatMap(\.outcome.trustPath)
        let authenticator = AttestedAuthenticator(aaguid: aaguid, format: format, type: outcome.type, trustPath: path)
        let trust = try policy.requirement.source.trust(for: authenticator, at: time)
        let verdict = evaluate(outcome, anchors: trust.anchors, compoundRequirement: policy.formats.compoundRequirement, at: time)
        return (verdict, trust)
    }

    /// Judges trust against `anchors`; a compound outcome is trusted per `compoundRequirement`.
    ///
    /// Under `.all` every component that claims a certificate chain must end in an anchor, and at
    /// least one must claim one. Self and none components make no claim to judge: they neither
    /// block nor give trust, as the compound's reported type is the first chained component's
    /// (``CompoundAttestation/reportedType(of:)``). Under `.any` one trusted component suffices.
    static func evaluate(_ outcome: AttestationOutcome, anchors: [Certificate],
                         compoundRequirement: AttestationFormatOptions.CompoundRequirement, at time: Date) -> Verdict {
        if !outcome.components.isEmpty {
            let verdicts = outcome.components.map {
                evaluate($0.outcome, anchors: anchors, compoundRequirement: compoundRequirement, at: time)
            }
            let trustedOnes = verdicts.filter(\.trusted)
            let chained = zip(outcome.components, verdicts).filter { component, _ in
                component.outcome.type != .none && component.outcome.type != .self
            }.map(\.1)
            let ok = compoundRequirement == .all ? !chained.isEmpty && chained.allSatisfy(\.trusted) : !trustedOnes.isEmpty
            let judged = compoundRequirement == .all && !chained.isEmpty ? chained : verdicts
            return Verdict(trusted: ok, anchor: trustedOnes.first?.anchor,
                           reason: ok ? nil : judged.compactMap(\.reason).joined(separator: "; "), components: verdicts)
        }
        switch outcome.type {
        case .none: return Verdict(trusted: false, anchor: nil, reason: "no attestation (fmt none)")
        case .self: return Verdict(trusted: false, anchor: nil, reason: "self attestation has no trust path")
        default: break
        }
        guard let leaf = outcome.trustPath.first else {
            return Verdict(trusted: false, anchor: nil, reason: "empty trust path")
        }
        guard !anchors.isEmpty else {
            return Verdict(trusted: false, anchor: nil, reason: "the policy has no trust anchors for this authenticator")
        }
        do {
            let chain = try CertificateChain.verify(leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()),
                                                    trustAnchors: anchors, at: time)
            return Verdict(trusted: true, anchor: chain.anchor, reason: nil)
        } catch {
            return Verdict(trusted: false, anchor: nil, reason: "\(error)")
        }
    }
}
