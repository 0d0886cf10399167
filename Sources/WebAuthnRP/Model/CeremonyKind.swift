/// Which ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable, Hashable, Codable {
    /// A registration (`navigator.credentials.create`).
    case registration
    /// An authentication (`navigator.credentials.get`).
    case authentication
    /// An Apple App Attest challenge (``AppAttestService/issueChallenge(now:)``), answered by
    /// one key attestation or assertion of the app; never by a passkey ceremony.
    case appAttest
    /// An Android key attestation challenge (``AndroidKeyAttestationService/issueChallenge(now:)``),
    /// answered by one key attestation or request assertion of the app; never by a passkey ceremony.
    case androidKeyAttestation
    /// A Play Integrity nonce (``PlayIntegrityService/issueChallenge(now:)``), answered by one
    /// integrity token whose verdict carries it; never by a passkey ceremony.
    case playIntegrity
}
