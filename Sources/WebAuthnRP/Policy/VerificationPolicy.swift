public import Foundation
public import WebAuthnCrypto

/// What the relying party does when a signature counter does not increase.
public enum CounterPolicy: Sendable, Equatable {
    /// Reject the assertion (category `signCount`): the authenticator may be cloned.
    case reject
    /// Accept it, and flag the result (`VerifiedAuthentication.counterRegressed`).
    case acceptAndFlag
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
