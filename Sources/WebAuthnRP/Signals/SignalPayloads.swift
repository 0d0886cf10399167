import Foundation
import WebAuthnCoding

// A payload is for the page, not for the server to read: encode it (`JSONEncoder`) and pass the
// object to the JavaScript call it names; its members are that call's argument members.

/// The argument of `PublicKeyCredential.signalUnknownCredential()` (L3 §5.1.10, "Signal
/// Credential Changes to the Authenticator"): the credential is not known to the relying party,
/// so the authenticator may hide or delete it.
public struct UnknownCredentialSignal: Sendable, Hashable, Codable {
    /// The RP ID.
    let rpId: String
    /// The credential id, base64url.
    let credentialId: String
}

/// The argument of `PublicKeyCredential.signalAllAcceptedCredentials()`: every credential id the
/// relying party accepts for a user, so the authenticator may hide the others.
public struct AllAcceptedCredentialsSignal: Sendable, Hashable, Codable {
    /// The RP ID.
    let rpId: String
    /// The user handle, base64url.
    let userId: String
    /// The accepted credential ids, base64url.
    let allAcceptedCredentialIds: [String]
}

/// The argument of `PublicKeyCredential.signalCurrentUserDetails()`: the user's current name and
/// display name, so the authenticator can update what it shows.
public struct CurrentUserDetailsSignal: Sendable, Hashable, Codable {
    /// The RP ID.
    let rpId: String
    /// The user handle, base64url.
    let userId: String
    /// The user name.
    let name: String
    /// The display name.
    let displayName: String
}

extension RelyingPartyService {
    /// The `signalUnknownCredential` payload after a login failed: only when the error is
    /// `unknownCredential` and the store has no record for the id at all. A credential that
    /// exists but belongs to another user, or was merely left out of `allowCredentials`, is not
    /// unknown, and signalling it would make the authenticator discard a working passkey.
    /// - Parameters:
    ///   - error: the rejection.
    ///   - response: the response that was rejected.
    /// - Returns: the payload to hand to the page, or nil.
    /// - Throws: the store's error.
    public func unknownCredentialSignal(
        after error: WebAuthnError,
        response: AuthenticationResponse
    ) async throws -> UnknownCredentialSignal? {
        guard error.category == .unknownCredential, !response.rawId.isEmpty,
            try await credentials.credential(id: response.rawId) == nil
        else { return nil }
        return UnknownCredentialSignal(rpId: relyingParty.id, credentialId: Base64URL.encode(response.rawId))
    }

    /// The `signalAllAcceptedCredentials` payload for a user: every credential the store holds for them.
    /// - Parameter userHandle: the user handle.
    /// - Returns: the payload.
    /// - Throws: the store's error.
    public func allAcceptedCredentialsSignal(userHandle: [UInt8]) async throws -> AllAcceptedCredentialsSignal {
        let records = try await credentials.credentials(userHandle: userHandle)
        return AllAcceptedCredentialsSignal(
            rpId: relyingParty.id, userId: Base64URL.encode(userHandle),
            allAcceptedCredentialIds: records.map { Base64URL.encode($0.id) })
    }

    /// The `signalCurrentUserDetails` payload after a rename.
    /// - Parameter user: the user entity with the current name and display name.
    /// - Returns: the payload.
    public func currentUserDetailsSignal(user: PublicKeyCredentialUserEntityJSON) -> CurrentUserDetailsSignal {
        CurrentUserDetailsSignal(rpId: relyingParty.id, userId: user.id.base64URL, name: user.name, displayName: user.displayName)
    }
}
