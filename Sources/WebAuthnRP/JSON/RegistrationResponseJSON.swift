/// The authenticator's part of a registration response (`AuthenticatorAttestationResponseJSON`).
///
/// `authenticatorData`, `transports`, `publicKey` and `publicKeyAlgorithm` are
/// conveniences a client adds; the ceremony relies on ``attestationObject`` alone.
package struct AuthenticatorAttestationResponseJSON: Sendable, Hashable, Codable {
    /// The `clientDataJSON` bytes, exactly as the client serialized them.
    var clientDataJSON: Base64URLBytes
    /// A copy of the authenticator data inside the attestation object, if sent.
    package var authenticatorData: Base64URLBytes?
    /// The transports the authenticator supports, if the client could tell.
    var transports: [AuthenticatorTransport]?
    /// The credential public key as a DER SubjectPublicKeyInfo, if the client could produce it.
    var publicKey: Base64URLBytes?
    /// The credential's COSE algorithm identifier, if sent.
    var publicKeyAlgorithm: Int?
    /// The attestation object (CBOR).
    var attestationObject: Base64URLBytes

    /// Creates an attestation response.
    /// - Parameters:
    ///   - clientDataJSON: the client data bytes.
    ///   - authenticatorData: the authenticator data copy, or nil.
    ///   - transports: the transports, or nil.
    ///   - publicKey: the SubjectPublicKeyInfo, or nil.
    ///   - publicKeyAlgorithm: the COSE algorithm, or nil.
    ///   - attestationObject: the attestation object bytes.
    package init(
        clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes? = nil,
        transports: [AuthenticatorTransport]? = nil, publicKey: Base64URLBytes? = nil,
        publicKeyAlgorithm: Int? = nil, attestationObject: Base64URLBytes
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.attestationObject = attestationObject
    }
}
