/// The attestation statement formats this library verifies (W3C L3 §8): the one list of them.
/// The table `fmt` is looked up in (``AttestationFormatTable/standard``), the fuzz targets, the
/// test authenticator's formats and the fixture generator all derive from it, so adding a
/// format is one new file and one line here.
package enum AttestationFormatList {
    static let all: [any AttestationFormat] = [
        NoneAttestation(),
        PackedAttestation(),
        FIDOU2FAttestation(),
        TPMAttestation(),
        AndroidKeyAttestation(),
        AndroidSafetyNetAttestation(),
        AppleAttestation(),
        CompoundAttestation(),
    ]

    /// The `fmt` identifier of each format, in list order (what the fuzz targets and the test
    /// authenticator enumerate).
    package static let identifiers: [String] = all.map(\.identifier)
}
