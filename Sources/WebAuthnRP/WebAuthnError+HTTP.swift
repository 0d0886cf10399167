extension WebAuthnError {
    /// A short text that is safe to send to the client: it names what kind of check failed and
    /// nothing of the relying party's configuration (allowed origins, RP ID, trust anchors,
    /// policy) or of the bytes received. Log ``description`` instead; it says exactly what was
    /// expected and what arrived.
    ///
    /// When the client's own body did not read (`malformed`: not JSON, a member missing,
    /// mistyped, unknown, or not base64url), the text also names the member in the body's own
    /// terms and what is wrong with it, in fixed words: `The request could not be read:
    /// response.clientDataJSON is not valid base64url.` Nothing of the received value is repeated.
    public var clientMessage: String {
        guard category == .malformed, let bodyFault else { return category.clientMessage }
        return "The request could not be read: \(bodyFault)."
    }

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

extension WebAuthnError {
    /// Which member of the client's body did not read, and how, for ``clientMessage``.
    struct BodyFault: Sendable, CustomStringConvertible {
        /// What is wrong with a member, in the fixed words the client is told.
        enum Problem: String, Sendable {
            case notJSON = "is not valid JSON"
            case missing = "is missing"
            case mistyped = "is not of the expected type"
            case null = "is null"
            case notBase64URL = "is not valid base64url"
            case notStandardBase64 = "is not padded standard base64"
            case unknown = "is not a member this body may have"
            case outOfBounds = "has a length or value this body does not allow"
            case invalid = "is not valid"
        }

        /// The member's path in the body (`response.clientDataJSON`, `transports[2]`); empty for
        /// the body itself. Names the client chose are kept only when plain
        /// (``isPlainName(_:)``), so nothing but a short identifier is ever repeated.
        let member: String
        let problem: Problem

        /// The fault at `member` (a path the library built from names it checked, or the
        /// client's names when plain).
        init(_ member: String, _ problem: Problem) {
            self.member = member
            self.problem = problem
        }

        /// The fault at a decoder's coding path, each name kept only when plain.
        init(codingPath: [any CodingKey], _ problem: Problem) {
            var path = ""
            for key in codingPath {
                if let index = key.intValue {
                    path += "[\(index)]"
                } else {
                    let name = Self.isPlainName(key.stringValue) ? key.stringValue : "(a member)"
                    path += path.isEmpty ? name : "." + name
                }
            }
            self.init(path, problem)
        }

        /// The same fault inside a larger body, under the member that held it (`credential`).
        func within(_ codingPath: [any CodingKey]) -> BodyFault {
            let outer = BodyFault(codingPath: codingPath, problem).member
            guard !outer.isEmpty else { return self }
            return BodyFault(member.isEmpty ? outer : member.hasPrefix("[") ? outer + member : outer + "." + member, problem)
        }

        /// A member name the client may be told back: 1 to 64 ASCII letters, digits, `_` or `-`.
        static func isPlainName(_ name: String) -> Bool {
            (1...64).contains(name.utf8.count)
                && name.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                        true
                    default: false
                    }
                }
        }

        /// `response.clientDataJSON is not valid base64url`, or `the body is not valid JSON`.
        var description: String { "\(member.isEmpty ? "the body" : member) \(problem.rawValue)" }
    }
}
