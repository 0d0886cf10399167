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

    /// Builds the public result from a format's outcome and the trust verdict.
    init(format: String, outcome: AttestationOutcome, verdict: AttestationTrustEvaluator.Verdict) {
        self.format = format
        self.type = outcome.type
        self.trusted = verdict.trusted
        self.trustAnchor = verdict.anchor
        self.trustPath = outcome.trustPath
        self.untrustedReason = verdict.trusted ? nil : verdict.reason
        self.details = outcome.details
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

    /// Judges trust; a compound outcome is trusted per ``AttestationPolicy/compoundRequirement``.
    static func evaluate(_ outcome: AttestationOutcome, policy: AttestationPolicy, at time: Date) -> Verdict {
        if !outcome.components.isEmpty {
            let verdicts = outcome.components.map { evaluate($0.outcome, policy: policy, at: time) }
            let trustedOnes = verdicts.filter(\.trusted)
            let ok = policy.compoundRequirement == .all ? trustedOnes.count == verdicts.count : !trustedOnes.isEmpty
            return Verdict(trusted: ok, anchor: trustedOnes.first?.anchor,
                           reason: ok ? nil : verdicts.compactMap(\.reason).joined(separator: "; "), components: verdicts)
        }
        switch outcome.type {
        case .none: return Verdict(trusted: false, anchor: nil, reason: "no attestation (fmt none)")
        case .self: return Verdict(trusted: false, anchor: nil, reason: "self attestation has no trust path")
        default: break
        }
        guard let leaf = outcome.trustPath.first else {
            return Verdict(trusted: false, anchor: nil, reason: "empty trust path")
        }
        guard !policy.trustAnchors.isEmpty else {
            return Verdict(trusted: false, anchor: nil, reason: "the policy has no trust anchors")
        }
        do {
            let chain = try CertificateChain.verify(leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()),
                                                    trustAnchors: policy.trustAnchors, at: time)
            return Verdict(trusted: true, anchor: chain.anchor, reason: nil)
        } catch {
            return Verdict(trusted: false, anchor: nil, reason: "\(error)")
        }
    }
}
