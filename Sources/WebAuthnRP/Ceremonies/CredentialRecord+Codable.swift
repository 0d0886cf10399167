import Foundation
import WebAuthnCoding

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
