import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// The storable form of an issued challenge, for a database-backed ``ChallengeStore``: compact
/// (bytes as base64url text, times as seconds since 1970 whatever the encoder's date strategy)
/// and versioned (`v`). A member added in a later version decodes from an older row with its
/// default, and a row from a newer version than this library knows is refused rather than
/// read partly. Store it whole and hand it back unchanged; its members are not for editing.
extension IssuedChallenge: Codable {
    /// The version this library writes.
    static let storageVersion = 1

    private enum CodingKeys: String, CodingKey {
        case version = "v", challenge, kind, rpId, userHandle, allowCredentials, userVerification
        case offeredAlgorithms, conditionalCreate, attestation, extensions, issuedAt, expiresAt
    }

    /// Decodes a challenge this or an earlier version stored.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing member, bytes that are not base64url, or a row
    ///   written by a newer version.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard (1...Self.storageVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c,
                debugDescription: "issued challenge version \(version) is not one this library reads")
        }
        func bytes(_ text: String, _ key: CodingKeys) throws -> [UInt8] {
            do { return try Base64URL.decode(text) } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not base64url: \(error)")
            }
        }
        self.init(
            challenge: try bytes(try c.decode(String.self, forKey: .challenge), .challenge),
            kind: try c.decode(CeremonyKind.self, forKey: .kind),
            rpId: try c.decode(String.self, forKey: .rpId),
            userHandle: try c.decodeIfPresent(String.self, forKey: .userHandle).map { try bytes($0, .userHandle) },
            allowCredentials: try (c.decodeIfPresent([String].self, forKey: .allowCredentials) ?? []).map {
                try bytes($0, .allowCredentials)
            },
            userVerification: try c.decodeIfPresent(UserVerificationRequirement.self, forKey: .userVerification) ?? .preferred,
            offeredAlgorithms: (try c.decodeIfPresent([Int].self, forKey: .offeredAlgorithms) ?? []).map(COSEAlgorithm.init(rawValue:)),
            conditionalCreate: try c.decodeIfPresent(Bool.self, forKey: .conditionalCreate) ?? false,
            attestation: try c.decodeIfPresent(AttestationConveyancePreference.self, forKey: .attestation),
            extensions: try c.decodeJSONObjectIfPresent(forKey: .extensions),
            issuedAt: try c.decodeIfPresent(Double.self, forKey: .issuedAt).map(Date.init(timeIntervalSince1970:)),
            expiresAt: Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .expiresAt)))
    }

    /// Encodes the challenge in its storable form.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.storageVersion, forKey: .version)
        try c.encode(Base64URL.encode(challenge), forKey: .challenge)
        try c.encode(kind, forKey: .kind)
        try c.encode(rpId, forKey: .rpId)
        try c.encodeIfPresent(userHandle.map { Base64URL.encode($0) }, forKey: .userHandle)
        if !allowCredentials.isEmpty { try c.encode(allowCredentials.map { Base64URL.encode($0) }, forKey: .allowCredentials) }
        try c.encode(userVerification, forKey: .userVerification)
        if !offeredAlgorithms.isEmpty { try c.encode(offeredAlgorithms.map(\.rawValue), forKey: .offeredAlgorithms) }
        if conditionalCreate { try c.encode(true, forKey: .conditionalCreate) }
        try c.encodeIfPresent(attestation, forKey: .attestation)
        try c.encodeIfPresent(extensions, forKey: .extensions)
        try c.encodeIfPresent(issuedAt?.timeIntervalSince1970, forKey: .issuedAt)
        try c.encode(expiresAt.timeIntervalSince1970, forKey: .expiresAt)
    }
}
