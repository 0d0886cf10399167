/// The list behind ``AttestationFormatTable/standard``: one entry per supported
/// W3C L3 §8 format. Adding a format is adding a line here.
enum AttestationFormatRegistry {
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
}
