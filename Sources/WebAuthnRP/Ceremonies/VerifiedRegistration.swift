import WebAuthnCrypto

/// A registration that passed every check.
public struct VerifiedRegistration: Sendable {
    /// The record to store (the registry stores it when it runs the ceremony).
    public let record: CredentialRecord
    /// Format, type and trust of the attestation.
    public let attestation: AttestationResult
    /// The parsed authenticator data (for a server: the UP flag is ``userPresent``; UV, counter,
    /// backup state and credential data are in the record, UV as its
    /// ``CredentialRecord/uvInitialized``).
    package let authenticatorData: AuthenticatorData
    /// The parsed client data.
    let clientData: CollectedClientData
    /// The credential public key, built once.
    let credentialKey: COSEKey
    /// The verified extension outputs.
    public let extensions: RegistrationExtensionResults
    /// The user handle (`user.id`) of the user entity the options were made for, as the
    /// ceremony's challenge bound it (stored or sealed, so a server need not keep it beside
    /// the challenge): the account the new credential belongs to, and the same bytes as
    /// ``CredentialRecord/userHandle`` in ``record``. The user's name is not in the challenge;
    /// a server that needs it keeps it with its own ceremony state.
    public var userHandle: [UInt8] { record.userHandle ?? [] }
    /// UP flag (clear only in a conditional create, L3 §7.1 step 14).
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
}
