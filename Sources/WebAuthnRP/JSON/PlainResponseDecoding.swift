/// Fast decoders for the response documents and client data as browsers write them,
/// in front of the general parsers. Each returns nil for anything it does not read
/// exactly as the general parser would (see ``PlainJSONScanner``); the caller then
/// runs the general parser, so accepting and rejecting stay exactly as they were.
enum PlainResponseDecoding {
    /// `AuthenticationResponseJSON` from plain JSON, or nil.
    static func authentication(_ bytes: ArraySlice<UInt8>) -> AuthenticationResponseJSON? {
        var clientDataJSON: [UInt8]?, authenticatorData: [UInt8]?, signature: [UInt8]?
        var userHandle: [UInt8]??
        let envelope = Self.envelope(bytes) { scanner, name in
            if name.is("clientDataJSON") {
                return once(&clientDataJSON) { scanner.base64URL() }
            } else if name.is("authenticatorData") {
                return once(&authenticatorData) { scanner.base64URL() }
            } else if name.is("signature") {
                return once(&signature) { scanner.base64URL() }
            } else if name.is("userHandle") {
                return once(&userHandle) { Self.optionalBase64URL(&scanner) }
            }
            return scanner.skipValue() ? .skipped : .giveUp
        }
        guard let envelope, let clientDataJSON, let authenticatorData, let signature else { return nil }
        return AuthenticationResponseJSON(
            id: envelope.id, rawId: Base64URLBytes(envelope.rawId),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(clientDataJSON), authenticatorData: Base64URLBytes(authenticatorData),
                signature: Base64URLBytes(signature), userHandle: userHandle.flatMap { $0 }.map { Base64URLBytes($0) }),
            authenticatorAttachment: envelope.attachment, clientExtensionResults: envelope.extensions,
            type: PublicKeyCredentialType(rawValue: envelope.type))
    }

    /// `RegistrationResponseJSON` from plain JSON, or nil.
    static func registration(_ bytes: ArraySlice<UInt8>) -> RegistrationResponseJSON? {
        var clientDataJSON: [UInt8]?, attestationObject: [UInt8]?
        var authenticatorData: [UInt8]??, publicKey: [UInt8]??
        var transports: [AuthenticatorTransport]??
        var publicKeyAlgorithm: Int??
        let envelope = Self.envelope(bytes) { scanner, name in
            if name.is("clientDataJSON") {
                return once(&clientDataJSON) { scanner.base64URL() }
            } else if name.is("attestationObject") {
                return once(&attestationObject) { scanner.base64URL() }
            } else if name.is("authenticatorData") {
                return once(&authenticatorData) { Self.optionalBase64URL(&scanner) }
            } else if name.is("publicKey") {
                return once(&publicKey) { Self.optionalBase64URL(&scanner) }
            } else if name.is("publicKeyAlgorithm") {
                return once(&publicKeyAlgorithm) { Self.optionalInteger(&scanner) }
            } else if name.is("transports") {
                return once(&transports) { Self.optionalTransports(&scanner) }
            }
            return scanner.skipValue() ? .skipped : .giveUp
        }
        guard let envelope, let clientDataJSON, let attestationObject else { return nil }
        return RegistrationResponseJSON(
            id: envelope.id, rawId: Base64URLBytes(envelope.rawId),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientDataJSON),
                authenticatorData: authenticatorData.flatMap { $0 }.map { Base64URLBytes($0) },
                transports: transports.flatMap { $0 },
                publicKey: publicKey.flatMap { $0 }.map { Base64URLBytes($0) },
                publicKeyAlgorithm: publicKeyAlgorithm.flatMap { $0 },
                attestationObject: Base64URLBytes(attestationObject)),
            authenticatorAttachment: envelope.attachment, clientExtensionResults: envelope.extensions,
            type: PublicKeyCredentialType(rawValue: envelope.type))
    }

    /// The members both credential documents share; `response`'s members go to the caller.
    private struct Envelope {
        var id: String
        var rawId: [UInt8]
        var type: String
        var attachment: AuthenticatorAttachment?
        var extensions: [String: JSONValue]
    }

    /// Reads `id`, `rawId`, `type`, `authenticatorAttachment` and `clientExtensionResults`,
    /// hands each member of `response` to `response`, and skips unknown plain members.
    /// Nil when anything is not plain, repeats, or is missing.
    private static func envelope(
        _ bytes: ArraySlice<UInt8>,
        response: (inout PlainJSONScanner, ArraySlice<UInt8>) -> PlainJSONScanner.Member
    ) -> Envelope? {
        var scanner = PlainJSONScanner(bytes)
        var id: String?, rawId: [UInt8]?, type: String?
        var attachment: AuthenticatorAttachment??
        var extensions: [String: JSONValue]?
        var sawResponse = false
        let parsed = scanner.object { scanner, name in
            if name.is("id") {
                return once(&id) { scanner.text() }
            } else if name.is("rawId") {
                return once(&rawId) { scanner.base64URL() }
            } else if name.is("type") {
                return once(&type) { scanner.text() }
            } else if name.is("authenticatorAttachment") {
                return once(&attachment) { Self.optionalText(&scanner).map { $0.map(AuthenticatorAttachment.init(rawValue:)) } }
            } else if name.is("clientExtensionResults") {
                return once(&extensions) { Self.extensionResults(&scanner) }
            } else if name.is("response") {
                guard !sawResponse else { return .giveUp }
                sawResponse = true
                guard scanner.object(response) else { return .giveUp }
            } else {
                return scanner.skipValue() ? .skipped : .giveUp
            }
            return .read
        }
        scanner.skipWhitespace()
        guard parsed, scanner.atEnd, let id, let rawId, let type, let extensions else { return nil }
        return Envelope(id: id, rawId: rawId, type: type, attachment: attachment.flatMap { $0 }, extensions: extensions)
    }

    /// The members of `clientDataJSON` the ceremonies read, from plain JSON, or nil.
    /// Other members are skipped; they must be plain too, and no name may repeat.
    static func clientData(_ bytes: ArraySlice<UInt8>)
        -> (type: String, challenge: String, origin: String, crossOrigin: Bool?, topOrigin: String?)? {
        guard bytes.count <= CollectedClientData.maximumLength else { return nil }
        var scanner = PlainJSONScanner(bytes)
        var type: String?, challenge: String?, origin: String?, topOrigin: String?
        var crossOrigin: Bool?
        let parsed = scanner.object { scanner, name in
            if name.is("type") {
                return once(&type) { scanner.text() }
            } else if name.is("challenge") {
                return once(&challenge) { scanner.text() }
            } else if name.is("origin") {
                return once(&origin) { scanner.text() }
            } else if name.is("crossOrigin") {
                return once(&crossOrigin) { scanner.bool() }
            } else if name.is("topOrigin") {
                return once(&topOrigin) { scanner.text() }
            }
            return scanner.skipValue() ? .skipped : .giveUp
        }
        scanner.skipWhitespace()
        guard parsed, scanner.atEnd, let type, let challenge, let origin else { return nil }
        return (type, challenge, origin, crossOrigin, topOrigin)
    }

    /// Stores a member's value in `slot` once: a member that repeats, or whose value `read`
    /// does not take as plain, gives up.
    private static func once<Value>(_ slot: inout Value?, _ read: () -> Value?) -> PlainJSONScanner.Member {
        guard slot == nil, let value = read() else { return .giveUp }
        slot = value
        return .read
    }

    /// A plain string or `null` (`.some(nil)`); nil for anything else.
    private static func optionalText(_ scanner: inout PlainJSONScanner) -> String?? {
        if scanner.null() { return .some(nil) }
        return scanner.text().map { .some($0) }
    }

    /// A plain integer or `null` (`.some(nil)`); nil for anything else.
    private static func optionalInteger(_ scanner: inout PlainJSONScanner) -> Int?? {
        if scanner.null() { return .some(nil) }
        return scanner.integer().map { .some($0) }
    }

    /// An array of plain strings, as transports, or `null` (`.some(nil)`); nil for anything else.
    private static func optionalTransports(_ scanner: inout PlainJSONScanner) -> [AuthenticatorTransport]?? {
        if scanner.null() { return .some(nil) }
        var list: [AuthenticatorTransport] = []
        let ok = scanner.array { scanner in
            guard let text = scanner.text() else { return false }
            list.append(AuthenticatorTransport(rawValue: text))
            return true
        }
        return ok ? .some(list) : nil
    }

    /// Strict base64url in a plain string, or `null` (`.some(nil)`); nil for anything else.
    private static func optionalBase64URL(_ scanner: inout PlainJSONScanner) -> [UInt8]?? {
        if scanner.null() { return .some(nil) }
        return scanner.base64URL().map { .some($0) }
    }

    /// `{}` (what browsers send when no extension ran); nil for anything else.
    /// How deep `clientExtensionResults` may nest on this path (prf's is three objects deep);
    /// anything deeper goes to the general parser, which decides.
    static let maximumExtensionDepth = 6

    /// `clientExtensionResults` as values (prf results, credProps, largeBlob…), or nil to leave
    /// the document to the general parser: a repeated name, an escape, a fraction, or nesting
    /// deeper than ``maximumExtensionDepth``.
    private static func extensionResults(_ scanner: inout PlainJSONScanner) -> [String: JSONValue]? {
        guard case .object(let members)? = plainValue(&scanner, depth: 0) else { return nil }
        return members
    }

    private static func plainValue(_ scanner: inout PlainJSONScanner, depth: Int) -> JSONValue? {
        guard depth <= maximumExtensionDepth, let next = scanner.peek() else { return nil }
        switch next {
        case UInt8(ascii: "\""):
            return scanner.text().map(JSONValue.string)
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            let plain = scanner.object { scanner, name in
                guard let value = plainValue(&scanner, depth: depth + 1),
                      members.updateValue(value, forKey: String(decoding: name, as: UTF8.self)) == nil
                else { return .giveUp }
                return .read
            }
            return plain ? .object(members) : nil
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            let plain = scanner.array { scanner in
                guard let value = plainValue(&scanner, depth: depth + 1) else { return false }
                elements.append(value)
                return true
            }
            return plain ? .array(elements) : nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return scanner.bool().map(JSONValue.bool)
        case UInt8(ascii: "n"):
            return scanner.null() ? .null : nil
        default:
            return scanner.integer().map { .number(Double($0)) }
        }
    }
}
