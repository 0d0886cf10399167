package import Foundation
import WebAuthnCrypto

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
