import Foundation

/// What a relying party stores for a registered credential (W3C L3 §4 "credential record").
public struct CredentialRecord: Sendable, Hashable, Codable {
    /// The credential id.
    public var id: [UInt8]
    /// The credential public key as the authenticator sent it (COSE_Key, CBOR).
    public var publicKey: [UInt8]
    /// The key's COSE algorithm.
    public var algorithm: Int
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The user handle (`user.id`) the credential belongs to.
    public var userHandle: [UInt8]?
    /// Whether any ceremony with this credential had UV set.
    public var uvInitialized: Bool
    /// Backup eligibility (BE), fixed at registration.
    public var backupEligible: Bool
    /// Backup state (BS), updated on each login.
    public var backupState: Bool
    /// Transports the client reported.
    public var transports: [String]
    /// The authenticator's AAGUID, lowercase UUID text.
    public var aaguid: String
    /// The attestation statement format at registration.
    public var attestationFormat: String
    /// The attestation type at registration.
    public var attestationType: AttestationType
    /// Whether the attestation trust path ended at one of the policy's anchors.
    public var attestationTrusted: Bool
    /// The raw attestation object, kept when the caller asked for it (for later re-verification).
    public var attestationObject: [UInt8]?
    /// The raw clientDataJSON of the registration, kept with the attestation object.
    public var registrationClientDataJSON: [UInt8]?
    /// What extension outputs said about the credential (discoverable, credProtect, PRF, ...).
    public var extensions: CredentialExtensionProperties

    /// Creates a record.
    /// - Parameters:
    ///   - id: credential id.
    ///   - publicKey: COSE_Key bytes.
    ///   - algorithm: COSE algorithm.
    ///   - signCount: last counter.
    ///   - userHandle: owner's user handle.
    ///   - uvInitialized: UV seen.
    ///   - backupEligible: BE.
    ///   - backupState: BS.
    ///   - transports: reported transports.
    ///   - aaguid: AAGUID text.
    ///   - attestationFormat: format at registration.
    ///   - attestationType: type at registration.
    ///   - attestationTrusted: whether trust was established.
    ///   - attestationObject: optional raw attestation object.
    ///   - registrationClientDataJSON: optional raw client data.
    ///   - extensions: what extension outputs said about the credential.
    public init(id: [UInt8], publicKey: [UInt8], algorithm: Int, signCount: UInt32, userHandle: [UInt8]?,
                uvInitialized: Bool = false, backupEligible: Bool = false, backupState: Bool = false,
                transports: [String] = [], aaguid: String = "00000000-0000-0000-0000-000000000000",
                attestationFormat: String = "none", attestationType: AttestationType = .none,
                attestationTrusted: Bool = false, attestationObject: [UInt8]? = nil,
                registrationClientDataJSON: [UInt8]? = nil,
                extensions: CredentialExtensionProperties = CredentialExtensionProperties()) {
        self.id = id
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.userHandle = userHandle
        self.uvInitialized = uvInitialized
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.transports = transports
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.attestationType = attestationType
        self.attestationTrusted = attestationTrusted
        self.attestationObject = attestationObject
        self.registrationClientDataJSON = registrationClientDataJSON
        self.extensions = extensions
    }
}
