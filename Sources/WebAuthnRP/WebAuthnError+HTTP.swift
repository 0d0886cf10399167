extension WebAuthnError {
    /// A short text that is safe to send to the client: it names what kind of check failed and
    /// nothing of the relying party's configuration (allowed origins, RP ID, trust anchors,
    /// policy) or of the bytes received. Log ``description`` instead; it says exactly what was
    /// expected and what arrived.
    public var clientMessage: String { category.clientMessage }

    /// The HTTP status a server should answer with: 400 for a request that is malformed or does
    /// not answer an outstanding challenge, 409 when the credential is already registered, 401
    /// when a login does not prove possession of a known credential, and 403 for a response that
    /// is well-formed but refused (wrong origin, flags, algorithm, attestation or trust), 503
    /// when the server could not complete the request and the client may retry
    /// (``Category/serverFault``: no random bytes, a store full or failing), and 500 for a
    /// configuration the library refuses (``Category/configuration``).
    public var httpStatus: Int { category.httpStatus }
}

extension WebAuthnError.Category {
    /// The client-safe text for this category (see ``WebAuthnError/clientMessage``).
    var clientMessage: String {
        switch self {
        case .malformed: return "The request could not be read."
        case .type: return "The response is for a different kind of ceremony."
        case .challenge: return "The challenge is unknown, expired or already used. Please try again."
        case .origin: return "The response comes from an origin this site does not accept."
        case .rpIdHash: return "The credential is scoped to a different site."
        case .userPresence: return "User presence was not confirmed."
        case .userVerification: return "User verification is required."
        case .backupFlags: return "The authenticator's backup state is inconsistent."
        case .algorithm: return "The credential's algorithm is not accepted."
        case .attestation: return "The authenticator's attestation could not be verified."
        case .trust: return "This authenticator is not accepted."
        case .credentialExists: return "This passkey is already registered."
        case .unknownCredential: return "This passkey is not recognised."
        case .userHandle: return "This passkey belongs to a different account."
        case .signature: return "The passkey's signature could not be verified."
        case .signCount: return "The authenticator's counter went backwards; it may have been cloned."
        case .metadata: return "This authenticator model is not accepted."
        case .extension: return "The authenticator's extension outputs were not accepted."
        case .serverFault: return "The service is busy. Please try again shortly."
        case .configuration: return "The server is not configured correctly."
        default: return "The request was refused."
        }
    }

    /// The suggested HTTP status for this category (see ``WebAuthnError/httpStatus``).
    var httpStatus: Int {
        switch self {
        case .malformed, .type, .challenge: return 400
        case .credentialExists: return 409
        case .unknownCredential, .userHandle, .signature, .signCount: return 401
        case .origin, .rpIdHash, .userPresence, .userVerification, .backupFlags, .algorithm, .attestation, .trust,
            .metadata,
            .extension:
            return 403
        case .serverFault: return 503
        case .configuration: return 500
        default: return 403
        }
    }
}
