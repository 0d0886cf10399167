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
    /// UP flag (clear only in a conditional create, L3 §7.1 step 14).
    public var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
}
