/// The authenticator's part of an authentication response (`AuthenticatorAssertionResponseJSON`).
package struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    var clientDataJSON: Base64URLBytes
    /// The authenticator data the signature covers.
    var authenticatorData: Base64URLBytes
    /// The assertion signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    var signature: Base64URLBytes
    /// The user handle, sent by discoverable credentials (absent or null otherwise).
    var userHandle: Base64URLBytes?

    /// Creates an assertion response.
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes.
    ///   - authenticatorData: the authenticator data bytes.
    ///   - signature: the signature bytes.
    ///   - userHandle: the user handle, or nil.
    package init(
        clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes, signature: Base64URLBytes,
        userHandle: Base64URLBytes? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
