public import Foundation

/// What a registration's attestation must establish, and where the roots that judge it
/// come from: one value instead of separate switches, so that every combination it can
/// express is one a relying party can mean.
///
/// Two questions are answered independently:
/// - ``chain``: must an attestation that carries a certificate chain (Basic, AttCA, AnonCA)
///   end in a trust anchor (W3C L3 §7.1 step 29), or is trust only reported?
/// - ``unattested``: what happens to `none` and `self` attestations, which have no chain.
///
/// The anchors come from ``source``: fixed roots (``FixedTrustAnchors``), the FIDO Metadata
/// Service (``MetadataTrust``), or the caller's own ``AttestationTrustSource``.
public struct AttestationRequirement: Sendable {
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
    public var source: any AttestationTrustSource
    /// Whether a chain must end in an anchor.
    public var chain: Chain
    /// What an attestation without a chain means.
    public var unattested: Unattested

    /// Creates a requirement.
    /// - Parameters:
    ///   - source: where anchors come from (default: none at all).
    ///   - chain: whether a chain must end in an anchor (default: reported only).
    ///   - unattested: what `none` and `self` mean (default: accepted).
    public init(
        source: any AttestationTrustSource = FixedTrustAnchors([]), chain: Chain = .reported,
        unattested: Unattested = .accepted
    ) {
        self.source = source
        self.chain = chain
        self.unattested = unattested
    }

    /// Nothing required: any attestation that verifies (or none) is accepted, with no anchors,
    /// so every chain is reported as untrusted. The default.
    public static var none: AttestationRequirement { AttestationRequirement() }

    /// Chains must end in one of `anchors`; `none` and `self` are rejected.
    /// - Parameter anchors: the roots.
    public static func trusted(by anchors: [Certificate]) -> AttestationRequirement {
        AttestationRequirement(source: FixedTrustAnchors(anchors), chain: .required, unattested: .rejected)
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

/// The authenticator a registration's attestation speaks for, as a trust source sees it
/// after the attestation statement verified (W3C L3 §7.1 step 24).
public struct AttestedAuthenticator: Sendable {
    /// The AAGUID from the attested credential data (all zero for fido-u2f).
    public let aaguid: AAGUID
    /// The attestation statement format (`fmt`).
    public let format: String
    /// The verified attestation type.
    public let type: AttestationType
    /// The attestation trust path as presented, leaf first (empty for none and self; for
    /// compound, the paths of its components, in order).
    public let trustPath: [Certificate]

    /// Creates the description.
    /// - Parameters:
    ///   - aaguid: the AAGUID.
    ///   - format: the statement format.
    ///   - type: the attestation type.
    ///   - trustPath: the certificates presented, leaf first.
    init(aaguid: AAGUID, format: String, type: AttestationType, trustPath: [Certificate]) {
        self.aaguid = aaguid
        self.format = format
        self.type = type
        self.trustPath = trustPath
    }
}

/// What a trust source says about one authenticator: the anchors its chain may end in and,
/// when the source knows it, its name and metadata.
public struct AuthenticatorTrust: Sendable {
    /// The trust anchors for this authenticator (may be empty: then no chain is trusted).
    public var anchors: [Certificate]
    /// The authenticator's name for people (the metadata statement's description), if known.
    public var authenticatorName: String?
    /// The metadata entry the decision was taken from, if any.
    public var metadata: MetadataEntry?
    /// True when the metadata used was past its nextUpdate and the policy accepted it anyway.
    public var metadataStale: Bool

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
