/// The attestation types of W3C WebAuthn L3 §6.5.4, spelled as the fixture format does.
public enum AttestationType: String, Sendable, Hashable, Codable, CaseIterable {
    /// No attestation (`fmt: "none"`).
    case none
    /// Self attestation: signed by the credential key itself.
    case `self` = "self"
    /// Basic attestation: an attestation key shared by a batch of authenticators.
    case basic
    /// Attestation CA (for example TPM AIK certificates).
    case attCA = "attca"
    /// Anonymization CA (for example Apple).
    case anonCA = "anoncatrust"
}
