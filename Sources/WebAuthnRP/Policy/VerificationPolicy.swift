public import Foundation
public import WebAuthnCrypto

/// What the relying party does when a signature counter does not increase.
public enum CounterPolicy: Sendable, Equatable {
    /// Reject the assertion (category `signCount`): the authenticator may be cloned.
    case reject
    /// Accept it, and flag the result (`VerifiedAuthentication.counterRegressed`).
    case acceptAndFlag
}

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

/// The relying party's standing policy for every ceremony, fixed once made (the service reads
/// it; a server sets it through the initializer). Per-ceremony choices (challenge, user
/// verification, algorithms offered) travel with the issued challenge instead; the clock is
/// always passed in.
public struct VerificationPolicy: Sendable {
    /// Algorithms the RP accepts at all (a credential must use one of these and one the options offered).
    package var acceptedAlgorithms: [COSEAlgorithm]
    /// Attestation judgement and trust anchors.
    package var attestation: AttestationPolicy
    /// What a non-increasing signature counter does.
    package var counter: CounterPolicy
    /// How long an issued challenge stays answerable, in seconds (default 300). A response
    /// verified exactly `challengeLifetime` after issue is accepted; one verified later is
    /// rejected (`challenge`). A negative or NaN lifetime makes every challenge expired.
    public internal(set) var challengeLifetime: TimeInterval
    /// Whether an extension output nothing asked for is refused (`extension`).
    var rejectUnsolicitedExtensionOutputs: Bool
    /// Names ``AttestationResult/claimedProviderName`` (a claim, apart from the metadata name).
    var passkeyProviders: PasskeyProviders
    /// Accept an assertion whose UP flag is clear (skipping W3C L3 §7.2 step 16). Default false:
    /// L3 refuses it. Only the FIDO conformance profile sets it, as the conformance tool's
    /// Resp-3 P-2, P-4, P-6 and P-7 expect such assertions accepted.
    package var userPresenceOptionalInAssertions = false
    /// Refuse (`malformed`) client data whose `tokenBinding` member lacks its Level 2 shape (an
    /// object with `status` `present`, `supported` or `not-supported`, and an `id` when
    /// present). Default false: L3 keeps the member reserved and verifies nothing of it, and
    /// real clients have written other shapes (`"tokenBinding":"unused"`). Only the FIDO
    /// conformance profile sets it, as the conformance tool expects those refused.
    package var checksTokenBindingShape = false

    /// Algorithms offered by default, most preferred first.
    public static let defaultAlgorithms: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .esp256, .es384, .esp384, .es512, .esp512, .ed448, .es256k,
        .ps256, .ps384, .ps512, .rs256, .rs384, .rs512,
    ]

    /// Creates a policy.
    /// - Parameters:
    ///   - acceptedAlgorithms: algorithms accepted for credentials (default: every algorithm
    ///     this library verifies).
    ///   - attestation: attestation policy (default: nothing required).
    ///   - counter: counter policy (default reject).
    ///   - challengeLifetime: seconds an issued challenge stays valid (default 300).
    ///   - rejectUnsolicitedExtensionOutputs: reject (`extension`) any output of an extension
    ///     the options did not ask for. Default false: L3 §9 lets a relying party ignore
    ///     unsolicited outputs, and clients add some on their own (Chromium asks security keys
    ///     for `credProtect` when it creates a discoverable credential), so strict servers
    ///     should expect those to be refused.
    ///   - passkeyProviders: names an authenticator when FIDO metadata has none (default: the
    ///     shipped snapshot; pass a newer list loaded with ``PasskeyProviders/init(jsonData:)``).
    public init(
        acceptedAlgorithms: [COSEAlgorithm] = VerificationPolicy.defaultAlgorithms,
        attestation: AttestationPolicy = AttestationPolicy(), counter: CounterPolicy = .reject,
        challengeLifetime: TimeInterval = 300, rejectUnsolicitedExtensionOutputs: Bool = false,
        passkeyProviders: PasskeyProviders = .snapshot
    ) {
        self.acceptedAlgorithms = acceptedAlgorithms
        self.attestation = attestation
        self.counter = counter
        self.challengeLifetime = challengeLifetime
        self.rejectUnsolicitedExtensionOutputs = rejectUnsolicitedExtensionOutputs
        self.passkeyProviders = passkeyProviders
    }
}

extension VerificationPolicy {
    /// The FIDO Alliance server conformance tool's verdicts, **for conformance runs only**:
    /// a production relying party keeps the default, which is W3C WebAuthn Level 3.
    ///
    /// Where the tool departs from L3, this policy departs with it, one member each
    /// (the FIDO conformance article lists them):
    /// - an assertion with the UP flag clear is accepted (L3 §7.2 step 16 refuses it);
    /// - a `tpm` `certInfo.attested.name` may be the Name of `pubArea` under its own hash
    ///   algorithm rather than `pubArea.nameAlg` (L3 §8.3 requires `nameAlg`);
    /// - a chain must end in an anchor of `trust` (``AttestationPolicy/Chain/required``) while
    ///   `self` and `none` are accepted (``AttestationPolicy/Unattested/accepted``), and an
    ///   `x5c` that carries its own root is refused;
    /// - a `fido-u2f` attestation with a non-zero AAGUID is refused (L3 §8.6 does not check it);
    /// - client data whose `tokenBinding` lacks its Level 2 shape is refused (L3 keeps the
    ///   member reserved and verifies nothing of it);
    /// - RS1 (RSASSA-PKCS1-v1_5 with SHA-1) is accepted besides the default algorithms.
    /// - Parameter trust: where the anchors come from: the metadata statements the tool hands
    ///   out, or fixed roots.
    /// - Returns: the conformance policy.
    public static func fidoConformance(trust: any AttestationTrustSource) -> VerificationPolicy {
        var formats = AttestationFormatOptions(tpmNameMayUseItsOwnAlgorithm: true)
        formats.fidoU2FRequiresZeroAAGUID = true
        var attestation = AttestationPolicy(
            source: trust, chain: .required, unattested: .accepted, formats: formats)
        attestation.refusesAnchorInPath = true
        var policy = VerificationPolicy(
            acceptedAlgorithms: VerificationPolicy.defaultAlgorithms + [.rs1], attestation: attestation)
        policy.userPresenceOptionalInAssertions = true
        policy.checksTokenBindingShape = true
        return policy
    }

    /// `challengeLifetime` as the options' `timeout` in milliseconds: clamped to
    /// 0...UInt32.max, 0 for a negative or NaN lifetime, never a trap.
    var challengeTimeoutMilliseconds: UInt32 {
        let milliseconds = (challengeLifetime * 1000).rounded(.down)
        guard !milliseconds.isNaN, milliseconds > 0 else { return 0 }
        return milliseconds >= Double(UInt32.max) ? .max : UInt32(milliseconds)
    }
}
