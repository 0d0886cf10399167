public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// A challenge the relying party issued, bound to the ceremony it was issued for.
///
/// ``RelyingPartyService``'s `begin…` methods make these and its `finish…` methods take one
/// back (after the challenge store consumed it) to check the response against exactly what was
/// asked. A ``ChallengeStore`` keys it by ``challenge``, may evict it after ``expiresAt``, and
/// persists it whole through its `Codable` form; what it binds (user, allowed credentials,
/// algorithms, extension inputs) is the library's to read.
public struct IssuedChallenge: Sendable, Hashable {
    /// The challenge bytes sent in the options.
    public let challenge: [UInt8]
    /// The ceremony it belongs to.
    public let kind: CeremonyKind
    /// The RP ID the options named (an App Attest challenge: the app's App ID).
    public let rpId: String
    /// Registration: `user.id`. Authentication: the user identified before the
    /// ceremony, or nil for a discoverable (usernameless) login.
    let userHandle: [UInt8]?
    /// Authentication: the credential ids offered in `allowCredentials` (empty: any).
    let allowCredentials: [[UInt8]]
    /// The user-verification requirement the options carried.
    let userVerification: UserVerificationRequirement
    /// Registration: the algorithms the client may create the credential with, in order of
    /// preference: the `public-key` entries of `pubKeyCredParams`, or ES256 and RS256 when that
    /// list was empty (L3 §5.1.3). Empty: nothing usable was offered, so every response is
    /// refused (`algorithm`).
    let offeredAlgorithms: [COSEAlgorithm]
    /// Registration: `mediation: "conditional"` was requested (UP is then not required).
    let conditionalCreate: Bool
    /// Registration: the attestation conveyance the options asked for (nil: not stated, meaning `none`).
    let attestation: AttestationConveyancePreference?
    /// The client extension inputs the options carried (their `extensions` member), against
    /// which the extension outputs are verified; nil when none were sent.
    let extensions: [String: JSONValue]?
    /// When the challenge was issued, if the issuer recorded it. A response verified
    /// before this instant is rejected (`challenge`): the clock went back between issue and
    /// verification, so the challenge's age cannot be known.
    let issuedAt: Date?
    /// The last instant at which a response is accepted: one verified at `expiresAt` is
    /// accepted, one verified after it is rejected (`challenge`). ``RelyingPartyService``
    /// sets it to the issue time plus ``VerificationPolicy/challengeLifetime``.
    public let expiresAt: Date

    /// Creates an issued challenge. ``RelyingPartyService``'s `begin…` methods and
    /// ``AppAttestService/issueChallenge(now:)`` make the ones a server uses; the replay and the
    /// tests make their own.
    /// - Parameters:
    ///   - challenge: the challenge bytes.
    ///   - kind: registration, authentication or App Attest.
    ///   - rpId: the RP ID of the options.
    ///   - userHandle: the user the ceremony is for, if known.
    ///   - allowCredentials: credential ids offered (authentication).
    ///   - userVerification: the UV requirement.
    ///   - offeredAlgorithms: registration: the algorithms the client may use, in order of
    ///     preference (the service derives them from the options' `pubKeyCredParams`). Empty for
    ///     a registration: nothing is accepted.
    ///   - conditionalCreate: conditional mediation was requested (registration).
    ///   - attestation: the attestation conveyance requested (registration).
    ///   - extensions: the client extension inputs the options carried.
    ///   - issuedAt: when the challenge was issued (nil: not recorded, no clock check).
    ///   - expiresAt: the last instant a response is accepted.
    package init(
        challenge: [UInt8], kind: CeremonyKind, rpId: String, userHandle: [UInt8]? = nil,
        allowCredentials: [[UInt8]] = [], userVerification: UserVerificationRequirement = .preferred,
        offeredAlgorithms: [COSEAlgorithm] = [], conditionalCreate: Bool = false,
        attestation: AttestationConveyancePreference? = nil, extensions: [String: JSONValue]? = nil,
        issuedAt: Date? = nil, expiresAt: Date
    ) {
        self.challenge = challenge
        self.kind = kind
        self.rpId = rpId
        self.userHandle = userHandle
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.offeredAlgorithms = offeredAlgorithms
        self.conditionalCreate = conditionalCreate
        self.attestation = attestation
        self.extensions = (extensions?.isEmpty ?? true) ? nil : extensions
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The storable form of an issued challenge, for a database-backed ``ChallengeStore``: compact
/// (bytes as base64url text, times as seconds since 1970 whatever the encoder's date strategy)
/// and versioned (`v`). A member added in a later version decodes from an older row with its
/// default, and a row from a newer version than this library knows is refused rather than
/// read partly. Store it whole and hand it back unchanged; its members are not for editing.
extension IssuedChallenge: Codable {
    /// The version this library writes. Version 2 keeps the extension inputs as JSON text read by
    /// the library's reader: decoding an object of arbitrary values through `JSONDecoder` tries
    /// each JSON kind in turn, and its refusals made a stored login with PRF inputs several times
    /// dearer to read than one without. Version 1 rows (an object there) are still read.
    static let storageVersion = 2

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
            extensions: version == 1 ? try c.decodeJSONObjectIfPresent(forKey: .extensions) : try Self.extensions(c),
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
        try c.encodeIfPresent(try extensions.map { (inputs) throws(WebAuthnError) in try JSONTextWriter.text(inputs) }, forKey: .extensions)
        try c.encodeIfPresent(issuedAt?.timeIntervalSince1970, forKey: .issuedAt)
        try c.encode(expiresAt.timeIntervalSince1970, forKey: .expiresAt)
    }
}

extension IssuedChallenge {
    /// The storable form (the document ``encode(to:)`` gives, members in the same order) written
    /// by the library's JSON writer: a sealed `begin…` seals one per ceremony, and `JSONEncoder`
    /// costs several times more. A test holds the two to the same document.
    /// - Throws: ``WebAuthnError`` `malformed` for a time JSON cannot carry (not finite).
    func storedJSON() throws(WebAuthnError) -> [UInt8] {
        var writer = JSONTextWriter()
        func number(_ writer: inout JSONTextWriter, _ value: Double) throws(WebAuthnError) {
            do { try writer.number(value) } catch { throw WebAuthnError(.malformed, "\(error)") }
        }
        try writer.object { (writer) throws(WebAuthnError) in
            writer.key(CodingKeys.version.stringValue)
            writer.integer(Self.storageVersion)
            writer.member(CodingKeys.challenge.stringValue, Base64URL.encode(challenge))
            writer.member(CodingKeys.kind.stringValue, kind.rawValue)
            writer.member(CodingKeys.rpId.stringValue, rpId)
            writer.member(CodingKeys.userHandle.stringValue, userHandle.map { Base64URL.encode($0) })
            if !allowCredentials.isEmpty {
                writer.key(CodingKeys.allowCredentials.stringValue)
                writer.array(allowCredentials) { (writer, id) in writer.string(Base64URL.encode(id)) }
            }
            writer.member(CodingKeys.userVerification.stringValue, userVerification)
            if !offeredAlgorithms.isEmpty {
                writer.key(CodingKeys.offeredAlgorithms.stringValue)
                writer.array(offeredAlgorithms) { (writer, algorithm) in writer.integer(algorithm.rawValue) }
            }
            if conditionalCreate { writer.member(CodingKeys.conditionalCreate.stringValue, true) }
            writer.member(CodingKeys.attestation.stringValue, attestation)
            writer.member(
                CodingKeys.extensions.stringValue, try extensions.map { (inputs) throws(WebAuthnError) in try JSONTextWriter.text(inputs) })
            if let issuedAt {
                writer.key(CodingKeys.issuedAt.stringValue)
                try number(&writer, issuedAt.timeIntervalSince1970)
            }
            writer.key(CodingKeys.expiresAt.stringValue)
            try number(&writer, expiresAt.timeIntervalSince1970)
        }
        return writer.bytes
    }

    /// Version 2's extension inputs: JSON text of an object, read by the library's reader.
    private static func extensions(_ c: KeyedDecodingContainer<CodingKeys>) throws -> [String: JSONValue]? {
        guard let text = try c.decodeIfPresent(String.self, forKey: .extensions) else { return nil }
        let value: JSONValue
        do { value = try JSONReader.parse(Array(text.utf8)[...]) } catch {
            throw DecodingError.dataCorruptedError(forKey: .extensions, in: c, debugDescription: "not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw DecodingError.dataCorruptedError(forKey: .extensions, in: c, debugDescription: "not a JSON object")
        }
        return members
    }
}

extension IssuedChallenge {
    /// The issued challenge that creation options describe.
    /// - Parameters:
    ///   - options: the options sent to the client.
    ///   - relyingParty: supplies the RP ID when `options.rp.id` is absent.
    ///   - issuedAt: when the challenge was issued (nil: not recorded).
    ///   - expiresAt: the last instant a response is accepted.
    ///   - conditional: whether the creation uses conditional mediation.
    package init(
        creationOptions options: PublicKeyCredentialCreationOptionsJSON, relyingParty: RelyingParty,
        issuedAt: Date? = nil, expiresAt: Date, conditional: Bool = false
    ) {
        self.init(
            challenge: options.challenge.bytes, kind: .registration, rpId: options.rp.id ?? relyingParty.id,
            userHandle: options.user.id.bytes, allowCredentials: [],
            userVerification: options.authenticatorSelection?.userVerification ?? .preferred,
            offeredAlgorithms: Self.clientAlgorithms(options.pubKeyCredParams),
            conditionalCreate: conditional, attestation: options.attestation, extensions: options.extensions,
            issuedAt: issuedAt,
            expiresAt: expiresAt)
    }

    /// The algorithms a client may create a credential with for these `pubKeyCredParams`
    /// (L3 §5.1.3, createCredential): an empty list means ES256 and RS256; otherwise the
    /// entries whose `type` the client knows (`public-key`), in order. When every entry had an
    /// unknown type the client throws `NotSupportedError`, so no credential can be answered:
    /// the result is empty.
    static func clientAlgorithms(_ parameters: [PublicKeyCredentialParameters]) -> [COSEAlgorithm] {
        if parameters.isEmpty { return [.es256, .rs256] }
        return parameters.filter { $0.type == .publicKey }.map(\.algorithm)
    }

    /// The issued challenge that request options describe.
    /// - Parameters:
    ///   - options: the options sent to the client.
    ///   - relyingParty: supplies the RP ID when `options.rpId` is absent.
    ///   - userHandle: the user identified before the ceremony (username-first login: §7.2
    ///     step 6 then requires the credential to be that user's), or nil (discoverable login).
    ///   - issuedAt: when the challenge was issued (nil: not recorded).
    ///   - expiresAt: the last instant a response is accepted.
    package init(
        requestOptions options: PublicKeyCredentialRequestOptionsJSON, relyingParty: RelyingParty,
        userHandle: [UInt8]? = nil, issuedAt: Date? = nil, expiresAt: Date
    ) {
        self.init(
            challenge: options.challenge.bytes, kind: .authentication, rpId: options.rpId ?? relyingParty.id,
            userHandle: userHandle, allowCredentials: (options.allowCredentials ?? []).map(\.id.bytes),
            userVerification: options.userVerification ?? .preferred, extensions: options.extensions,
            issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
