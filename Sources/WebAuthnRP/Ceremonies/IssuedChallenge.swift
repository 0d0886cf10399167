public import Foundation

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
    /// The RP ID the options named.
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

    /// Creates an issued challenge, for a challenge the server checks itself (an App Attest
    /// challenge, say); the service's `begin…` methods make the ones its ceremonies take.
    /// - Parameters:
    ///   - challenge: the challenge bytes.
    ///   - kind: registration or authentication.
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
    public init(
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
