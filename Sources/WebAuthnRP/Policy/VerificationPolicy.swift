public import Foundation
public import WebAuthnCrypto

/// What the relying party does when a signature counter does not increase.
public enum CounterPolicy: Sendable, Equatable {
    /// Reject the assertion (category `signCount`): the authenticator may be cloned.
    case reject
    /// Accept it, and flag the result (`VerifiedAuthentication.counterRegressed`).
    case acceptAndFlag
}

/// How a verified attestation is judged, and which roots make it trusted.
public struct AttestationPolicy: Sendable {
    /// What the attestation must establish and where its trust anchors come from (fixed
    /// roots, the FIDO Metadata Service, or the caller's own source). Default: nothing
    /// required, no anchors.
    public var requirement: AttestationRequirement
    /// The options of the formats that have any (`android-key`, `android-safetynet`, `tpm`,
    /// `compound`), each read only by its own format. Default: every option at its default.
    public var formats: AttestationFormatOptions
    /// Formats accepted at all (nil: every supported format).
    public var allowedFormats: Set<String>?

    /// Creates a policy.
    /// - Parameters:
    ///   - requirement: what the attestation must establish, and the anchors (default: nothing required).
    ///   - formats: the per-format options (default: each at its default).
    ///   - allowedFormats: formats accepted (default all supported).
    public init(requirement: AttestationRequirement = .none, formats: AttestationFormatOptions = AttestationFormatOptions(),
                allowedFormats: Set<String>? = nil) {
        self.requirement = requirement
        self.formats = formats
        self.allowedFormats = allowedFormats
    }

}

/// The relying party's standing policy for every ceremony. Per-ceremony choices
/// (challenge, user verification, algorithms offered) travel with the issued
/// challenge instead; the clock is always passed in.
public struct VerificationPolicy: Sendable {
    /// Algorithms the RP accepts at all (a credential must use one of these and one
    /// the options offered). Default: every algorithm this library verifies.
    public var acceptedAlgorithms: [COSEAlgorithm]
    /// Attestation judgement and trust anchors.
    public var attestation: AttestationPolicy
    /// What a non-increasing signature counter does.
    public var counter: CounterPolicy
    /// How long an issued challenge stays answerable, in seconds (default 300). A response
    /// verified exactly `challengeLifetime` after issue is accepted; one verified later is
    /// rejected (`challenge`). A negative or NaN lifetime makes every challenge expired.
    public var challengeLifetime: TimeInterval
    /// How extension outputs are judged (default: unsolicited outputs ignored).
    public var extensions = ExtensionPolicy()
    /// Names ``AttestationResult/authenticatorName`` when FIDO metadata has none (default:
    /// the shipped snapshot; assign a newer list loaded with ``PasskeyProviders/init(jsonData:)``).
    public var passkeyProviders = PasskeyProviders.snapshot

    /// Algorithms offered by default, most preferred first.
    public static let defaultAlgorithms: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .esp256, .es384, .esp384, .es512, .esp512, .ed448, .es256k,
        .ps256, .ps384, .ps512, .rs256, .rs384, .rs512,
    ]

    /// Creates a policy.
    /// - Parameters:
    ///   - acceptedAlgorithms: algorithms accepted for credentials.
    ///   - attestation: attestation policy.
    ///   - counter: counter policy (default reject).
    ///   - challengeLifetime: seconds an issued challenge stays valid (default 300).
    public init(acceptedAlgorithms: [COSEAlgorithm] = VerificationPolicy.defaultAlgorithms,
                attestation: AttestationPolicy = AttestationPolicy(), counter: CounterPolicy = .reject,
                challengeLifetime: TimeInterval = 300) {
        self.acceptedAlgorithms = acceptedAlgorithms
        self.attestation = attestation
        self.counter = counter
        self.challengeLifetime = challengeLifetime
    }
}

extension VerificationPolicy {
    /// `challengeLifetime` as the options' `timeout` in milliseconds: clamped to
    /// 0...UInt32.max, 0 for a negative or NaN lifetime, never a trap.
    var challengeTimeoutMilliseconds: UInt32 {
        let milliseconds = (challengeLifetime * 1000).rounded(.down)
        guard !milliseconds.isNaN, milliseconds > 0 else { return 0 }
        return milliseconds >= Double(UInt32.max) ? .max : UInt32(milliseconds)
    }
}
