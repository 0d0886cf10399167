/// An authentication that passed every check.
public struct VerifiedAuthentication: Sendable {
    /// The credential record with signCount, backup state and uvInitialized updated.
    public let updatedRecord: CredentialRecord
    /// The parsed authenticator data (for a server: the UV flag is ``userVerified``, UP is
    /// always set; counter, backup state and credential data are in the record).
    package let authenticatorData: AuthenticatorData
    /// The parsed client data.
    let clientData: CollectedClientData
    /// True when the counter did not increase and the policy accepted it anyway.
    public let counterRegressed: Bool
    /// The verified extension outputs.
    public let extensions: AuthenticationExtensionResults
    /// UP flag (always set: §7.2 step 16 refuses a login without it).
    var userPresent: Bool { authenticatorData.flags.contains(.userPresent) }
    /// UV flag.
    public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
}
