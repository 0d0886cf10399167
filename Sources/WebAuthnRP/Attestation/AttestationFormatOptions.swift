/// The options of the attestation formats that have any, in one value, fixed once made (an
/// ``AttestationPolicy`` carries it). Each option is read only by its own format's procedure
/// (W3C L3 §8), and by the trust step for `compound`; the defaults are the strict choices.
public struct AttestationFormatOptions: Sendable, Equatable {
    /// `android-key` (§8.4): which authorization lists count for origin and purpose.
    var androidKeyAuthorizations: AndroidKeyAuthorizationPolicy
    /// `android-safetynet` (§8.5): the largest accepted age (and clock skew) of the attestation
    /// `timestampMs` relative to the verification time, in seconds.
    var safetyNetMaximumAge: Double
    /// `compound` (§8.9): whether every sub-statement or at least one must verify.
    var compoundRequirement: CompoundRequirement
    /// `tpm` (§8.3): reject (category `attestation`) an AIK certificate whose TPMManufacturer is
    /// not in the TCG TPM vendor registry (see `TPMManufacturer`; the FIDO conformance and W3C
    /// test-vector identifiers count as known). On by default, as in the other relying-party
    /// libraries; `false` accepts any vendor. Either way a TPMManufacturer that is not `id:` and
    /// eight hex digits is rejected.
    var requireKnownTPMManufacturer: Bool
    /// `tpm` (§8.3): accept a `certInfo.attested.name` that is the Name of `pubArea` under the
    /// Name's own (known) hash algorithm when it is not `pubArea.nameAlg`. Default false: L3
    /// requires `nameAlg`. Only the FIDO conformance profile sets it (the tool's Resp-9 P-3).
    package var tpmNameMayUseItsOwnAlgorithm: Bool
    /// `fido-u2f` (§8.6): refuse (`attestation`) a non-zero AAGUID in the attested credential
    /// data. Default false: §8.6 does not check it and L3's own fido-u2f test vector carries one.
    /// Only the FIDO conformance profile sets it (the tool's Resp-8 F-1).
    package var fidoU2FRequiresZeroAAGUID = false

    /// Which Android Key authorization lists are consulted for origin and purpose.
    public enum AndroidKeyAuthorizationPolicy: Sendable, Equatable {
        /// Only the TEE-enforced list (hardware-backed keys only).
        case teeEnforcedOnly
        /// The union of the TEE-enforced and software-enforced lists.
        case teeOrSoftware
    }

    /// How many sub-statements of a compound attestation must verify, and then be trusted.
    public enum CompoundRequirement: Sendable, Equatable {
        /// Every sub-statement must verify, and every one that carries a certificate chain must
        /// end in a trust anchor (self and none sub-statements claim no chain to judge).
        case all
        /// At least one sub-statement must verify; one trusted chain makes the whole trusted.
        case any
    }

    /// Creates the options.
    /// - Parameters:
    ///   - androidKeyAuthorizations: which Android Key lists count (default union).
    ///   - safetyNetMaximumAge: SafetyNet timestamp window in seconds (default 60).
    ///   - compoundRequirement: all or any sub-statement (default all).
    ///   - requireKnownTPMManufacturer: reject `tpm` attestations from unregistered TPM vendors (default true).
    public init(
        androidKeyAuthorizations: AndroidKeyAuthorizationPolicy = .teeOrSoftware,
        safetyNetMaximumAge: Double = 60, compoundRequirement: CompoundRequirement = .all,
        requireKnownTPMManufacturer: Bool = true
    ) {
        self.init(
            androidKeyAuthorizations: androidKeyAuthorizations, safetyNetMaximumAge: safetyNetMaximumAge,
            compoundRequirement: compoundRequirement, requireKnownTPMManufacturer: requireKnownTPMManufacturer,
            tpmNameMayUseItsOwnAlgorithm: false)
    }

    /// The options with the conformance profile's TPM Name rule as given.
    package init(
        androidKeyAuthorizations: AndroidKeyAuthorizationPolicy = .teeOrSoftware,
        safetyNetMaximumAge: Double = 60, compoundRequirement: CompoundRequirement = .all,
        requireKnownTPMManufacturer: Bool = true, tpmNameMayUseItsOwnAlgorithm: Bool
    ) {
        self.tpmNameMayUseItsOwnAlgorithm = tpmNameMayUseItsOwnAlgorithm
        self.androidKeyAuthorizations = androidKeyAuthorizations
        self.safetyNetMaximumAge = safetyNetMaximumAge
        self.compoundRequirement = compoundRequirement
        self.requireKnownTPMManufacturer = requireKnownTPMManufacturer
    }
}
