public import Foundation
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

/// A record's storable form: byte members as base64url text (RFC 4648 §5, unpadded), so a JSON
/// column stays compact and readable. Records written by earlier versions, with bytes as arrays
/// of numbers, still decode, and a member added later decodes from an older row with its default.
/// `algorithm` is written for earlier readers but not read: it comes from the key.
extension CredentialRecord {
    private enum CodingKeys: String, CodingKey {
        case id, publicKey, algorithm, signCount, userHandle, uvInitialized, backupEligible, backupState, transports
        case aaguid, attestationFormat, attestationType, attestationTrusted, attestationObject, registrationClientDataJSON
        case extensions
    }

    /// Decodes a record written by this or an earlier version.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing required member or bytes that are neither base64url
    ///   text nor an array of byte values.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try Self.bytes(c, .id),
            publicKey: try Self.bytes(c, .publicKey),
            signCount: try c.decode(UInt32.self, forKey: .signCount),
            userHandle: try Self.optionalBytes(c, .userHandle),
            uvInitialized: try c.decodeIfPresent(Bool.self, forKey: .uvInitialized) ?? false,
            backupEligible: try c.decodeIfPresent(Bool.self, forKey: .backupEligible) ?? false,
            backupState: try c.decodeIfPresent(Bool.self, forKey: .backupState) ?? false,
            transports: try c.decodeIfPresent([String].self, forKey: .transports) ?? [],
            aaguid: try c.decodeIfPresent(String.self, forKey: .aaguid) ?? "00000000-0000-0000-0000-000000000000",
            attestationFormat: try c.decodeIfPresent(String.self, forKey: .attestationFormat) ?? "none",
            attestationType: try c.decodeIfPresent(AttestationType.self, forKey: .attestationType) ?? .none,
            attestationTrusted: try c.decodeIfPresent(Bool.self, forKey: .attestationTrusted) ?? false,
            attestationObject: try Self.optionalBytes(c, .attestationObject),
            registrationClientDataJSON: try Self.optionalBytes(c, .registrationClientDataJSON),
            extensions: try c.decodeIfPresent(CredentialExtensionProperties.self, forKey: .extensions) ?? CredentialExtensionProperties())
    }

    /// Encodes the record with every byte member as base64url text.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Base64URL.encode(id), forKey: .id)
        try c.encode(Base64URL.encode(publicKey), forKey: .publicKey)
        // Still written (read from the key) for readers of earlier versions, which require it;
        // this version reads the algorithm from the key and ignores the member.
        try c.encode(algorithm, forKey: .algorithm)
        try c.encode(signCount, forKey: .signCount)
        try c.encodeIfPresent(userHandle.map { Base64URL.encode($0) }, forKey: .userHandle)
        try c.encode(uvInitialized, forKey: .uvInitialized)
        try c.encode(backupEligible, forKey: .backupEligible)
        try c.encode(backupState, forKey: .backupState)
        try c.encode(transports, forKey: .transports)
        try c.encode(aaguid, forKey: .aaguid)
        try c.encode(attestationFormat, forKey: .attestationFormat)
        try c.encode(attestationType, forKey: .attestationType)
        try c.encode(attestationTrusted, forKey: .attestationTrusted)
        try c.encodeIfPresent(attestationObject.map { Base64URL.encode($0) }, forKey: .attestationObject)
        try c.encodeIfPresent(registrationClientDataJSON.map { Base64URL.encode($0) }, forKey: .registrationClientDataJSON)
        if !extensions.isEmpty { try c.encode(extensions, forKey: .extensions) }
    }

    private static func optionalBytes(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8]? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        return try bytes(c, key)
    }

    /// Base64url text (this version) or an array of byte values (records from before it).
    private static func bytes(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8] {
        if let text = try? c.decode(String.self, forKey: key) {
            do {
                return try Base64URL.decode(text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not base64url: \(error)")
            }
        }
        return try c.decode([UInt8].self, forKey: key)
    }
}

// The metadata re-check of a stored credential: the record's fields go to the re-check in
// Trust/ (MetadataTrust+Recheck.swift), which runs registration's rules on what the record kept.

extension MetadataTrust {
    /// Re-checks a stored credential against this (typically newer) BLOB: cheap, no
    /// signature work. Use at login, or when a new BLOB arrives, to find credentials whose
    /// authenticator has since been reported compromised.
    ///
    /// The entry is found as at registration: by the record's AAGUID when the statement vouches
    /// for it, otherwise (fido-u2f, also inside compound; an all-zero AAGUID) by the key
    /// identifier of the attestation statement's `x5c[0]`. The second way needs the attestation
    /// object in the record (registered with `keepAttestation`); it is how fido-u2f
    /// authenticators are listed. A kept compound statement is re-checked sub-statement by
    /// sub-statement, and the entry returned is that of its first chained one; a compound whose
    /// object was not kept is looked up by its AAGUID, the only identifier left. A chain holding a
    /// key any entry's compromise report names is refused, as at registration.
    /// - Parameters:
    ///   - record: the credential's record (its ``CredentialRecord/aaguid`` and, when kept,
    ///     its ``CredentialRecord/attestationObject``).
    ///   - time: the current time (for staleness).
    /// - Returns: the entry, or nil when the authenticator has none (and none is required).
    /// - Throws: ``WebAuthnError`` `metadata` when the policy now refuses the authenticator.
    public func recheck(_ record: CredentialRecord, at time: Date) throws(WebAuthnError) -> MetadataEntry? {
        try recheck(
            aaguid: record.aaguid, format: record.attestationFormat, type: record.attestationType,
            attestationObject: record.attestationObject, at: time)
    }
}

// The name of a stored credential's provider sits with the record (this folder), above the
// list in Metadata/ and the trust source in Trust/.

extension PasskeyProviders {
    /// The name to show for a stored credential: the FIDO metadata statement's description
    /// when `metadata` has an entry for the record's AAGUID and the registration's attestation
    /// vouched for it (not `none`, whose AAGUID is a claim), else this list's name (a claim).
    /// Registration reports the two apart (``AttestationResult/metadataName``,
    /// ``AttestationResult/claimedProviderName``).
    /// - Parameters:
    ///   - record: the credential.
    ///   - metadata: the configured FIDO metadata, if any.
    /// - Returns: the name, or nil when neither knows the authenticator.
    public func name(for record: CredentialRecord, metadata: MetadataTrust? = nil) -> String? {
        guard let aaguid = AAGUID(uuidString: record.aaguid), !aaguid.isZero else { return nil }
        let vouched = record.attestationType != .none
        return (vouched ? metadata?.blob.entry(aaguid: aaguid)?.name : nil) ?? names[aaguid]
    }
}

extension PublicKeyCredentialDescriptorJSON {
    /// A stored credential as `excludeCredentials` and `allowCredentials` name it, transports included.
    /// - Parameter record: the stored credential.
    public init(_ record: CredentialRecord) {
        self.init(id: Base64URLBytes(record.id), transports: record.transports.map { AuthenticatorTransport(rawValue: $0) })
    }
}
