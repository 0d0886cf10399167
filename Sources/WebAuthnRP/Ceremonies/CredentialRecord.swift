import Foundation
import WebAuthnCoding

/// What a relying party stores for a registered credential (W3C L3 §4 "credential record").
public struct CredentialRecord: Sendable, Hashable, Codable {
    /// The credential id.
    public var id: [UInt8]
    /// The credential public key as the authenticator sent it (COSE_Key, CBOR).
    public var publicKey: [UInt8] { didSet { algorithm = Self.algorithm(of: publicKey) } }
    /// The key's COSE algorithm: the `alg` (label 3) of ``publicKey``, read from it whenever the
    /// key is set, so a record cannot hold a second value that disagrees with its key (0 when
    /// the bytes name none). Not API: the key says it; kept for the stored form's `algorithm`.
    package private(set) var algorithm: Int
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
    public init(
        id: [UInt8], publicKey: [UInt8], signCount: UInt32, userHandle: [UInt8]?,
        uvInitialized: Bool = false, backupEligible: Bool = false, backupState: Bool = false,
        transports: [String] = [], aaguid: String = "00000000-0000-0000-0000-000000000000",
        attestationFormat: String = "none", attestationType: AttestationType = .none,
        attestationTrusted: Bool = false, attestationObject: [UInt8]? = nil,
        registrationClientDataJSON: [UInt8]? = nil,
        extensions: CredentialExtensionProperties = CredentialExtensionProperties()
    ) {
        self.id = id
        self.publicKey = publicKey
        self.algorithm = Self.algorithm(of: publicKey)
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

extension CredentialRecord {
    /// The `alg` (label 3) of COSE_Key bytes, or 0 when they do not decode or name none.
    static func algorithm(of publicKey: [UInt8]) -> Int {
        (try? CBOR.decode(publicKey))?[intKey: 3]?.int ?? 0
    }
}
