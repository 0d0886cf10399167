public import WebAuthnCrypto

/// What a registration's attestation must establish, where the roots that judge it come
/// from, and which formats (with their options) count: one value, fixed once made, so that
/// every combination it can express is one a relying party can mean.
///
/// Two questions are answered independently:
/// - `chain`: must an attestation that carries a certificate chain (Basic, AttCA, AnonCA)
///   end in a trust anchor (W3C L3 §7.1 step 29), or is trust only reported?
/// - `unattested`: what happens to `none` and `self` attestations, which have no chain.
///
/// The anchors come from `source`: fixed roots (``FixedTrustAnchors``), the FIDO Metadata
/// Service (``MetadataTrust``), or the caller's own ``AttestationTrustSource``.
public struct AttestationPolicy: Sendable {
    /// Whether a certificate chain must end in a trust anchor.
    public enum Chain: Sendable, Equatable {
        /// Trust is judged and reported (``AttestationResult/trusted``); an untrusted chain is accepted.
        case reported
        /// A chain that does not end in one of the source's anchors is rejected (category `trust`).
        case required
    }

    /// What a `none` or `self` attestation (no certificate chain) means.
    public enum Unattested: Sendable, Equatable {
        /// Accepted, recorded as untrusted. Platforms may send `none` even when the options
        /// asked for `direct` (privacy settings, synced passkeys).
        case accepted
        /// `none` answering options that asked for `direct` or `enterprise` attestation is
        /// rejected (category `trust`); otherwise accepted. `self` is accepted.
        case rejectedWhenRequested
        /// `none` and `self` are rejected (category `trust`).
        case rejected
    }

    /// Where the trust anchors for each authenticator come from.
    var source: any AttestationTrustSource
    /// Whether a chain must end in an anchor.
    package var chain: Chain
    /// What an attestation without a chain means.
    package var unattested: Unattested
    /// The options of the formats that have any (`android-key`, `android-safetynet`, `tpm`,
    /// `compound`), each read only by its own format.
    var formats: AttestationFormatOptions
    /// Formats accepted at all (nil: every supported format).
    var allowedFormats: Set<String>?
    /// Refuse (untrusted, so `trust` when a chain is required) an `x5c` that carries a
    /// certificate of its own trust anchor or any self-issued (root) certificate. Default false:
    /// RFC 5280 §6.1 takes the anchor as an input, not as part of the path, so a copy of it in
    /// `x5c` is redundant, and Android Key chains always end in Google's root. Only the FIDO
    /// conformance profile (``VerificationPolicy/fidoConformance(trust:)``) sets it.
    package var refusesAnchorInPath = false

    /// Creates a policy. The defaults require nothing: any attestation that verifies (or none)
    /// is accepted, with no anchors, so every chain is reported as untrusted.
    /// - Parameters:
    ///   - source: where anchors come from (default: none at all).
    ///   - chain: whether a chain must end in an anchor (default: reported only).
    ///   - unattested: what `none` and `self` mean (default: accepted).
    ///   - formats: the per-format options (default: each at its default).
    ///   - allowedFormats: formats accepted (default: every supported format).
    public init(
        source: any AttestationTrustSource = FixedTrustAnchors([]), chain: Chain = .reported,
        unattested: Unattested = .accepted, formats: AttestationFormatOptions = AttestationFormatOptions(),
        allowedFormats: Set<String>? = nil
    ) {
        self.source = source
        self.chain = chain
        self.unattested = unattested
        self.formats = formats
        self.allowedFormats = allowedFormats
    }

    /// Chains must end in one of `anchors`; `none` and `self` are rejected; every format at its defaults.
    /// - Parameter anchors: the roots.
    public static func trusted(by anchors: [Certificate]) -> AttestationPolicy {
        AttestationPolicy(source: FixedTrustAnchors(anchors), chain: .required, unattested: .rejected)
    }

    /// The step 29 decision: throws `trust` when the outcome does not meet the requirement.
    /// - Parameters:
    ///   - type: the verified attestation type.
    ///   - trusted: whether the path ended in an anchor.
    ///   - reason: why it did not, for the message.
    ///   - requested: the conveyance the options asked for.
    func check(
        type: AttestationType, trusted: Bool, reason: String?,
        requested: AttestationConveyancePreference
    ) throws(WebAuthnError) {
        let unattestedType = type == .none || type == .self
        switch unattested {
        case .accepted:
            break
        case .rejectedWhenRequested:
            if type == .none, requested == .direct || requested == .enterprise {
                throw WebAuthnError(.trust, "the options asked for \(requested.rawValue) attestation and none arrived")
            }
        case .rejected:
            if unattestedType {
                throw WebAuthnError(.trust, "attestation (\(type.rawValue)) has no certificate chain and the policy requires one")
            }
        }
        guard chain == .required, !trusted, !unattestedType else { return }
        throw WebAuthnError(.trust, "attestation (\(type.rawValue)) is not trusted: \(reason ?? "no anchor")")
    }
}
