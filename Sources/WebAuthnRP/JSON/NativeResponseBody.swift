import WebAuthnCoding

/// The body a native app writes with `JSONEncoder` from what AuthenticationServices gives:
/// the credential's properties under their Apple names, `Data` as standard base64 with
/// padding (`JSONEncoder`'s default, slashes escaped as `\/`):
///
///     registration:   {"credentialID", "rawClientDataJSON", "rawAttestationObject", "transports"?, "attachment"?}
///     authentication: {"credentialID", "rawClientDataJSON", "rawAuthenticatorData", "signature", "userID"?, "attachment"?}
///
/// Read by the one strict reader (duplicate names, invalid UTF-8, depth and size refused),
/// then held to exactly these members: an unknown member, a missing or mistyped one, base64
/// that is not standard and padded, or an oversized credential id is `malformed`, naming it.
/// There is no `id`: it is derived from `credentialID`.
enum NativeResponseBody {
    enum Kind {
        case registration, authentication

        var root: String { self == .registration ? "NativeRegistrationBody" : "NativeAuthenticationBody" }
        var allowed: Set<String> {
            switch self {
            case .registration: ["credentialID", "rawClientDataJSON", "rawAttestationObject", "transports", "attachment"]
            case .authentication: ["credentialID", "rawClientDataJSON", "rawAuthenticatorData", "signature", "userID", "attachment"]
            }
        }
    }

    /// The decoded members (those the kind does not have are empty).
    struct Members {
        var rawId: [UInt8] = []
        var clientDataJSON: [UInt8] = []
        var attestationObject: [UInt8] = []
        var transports: [String] = []
        var authenticatorData: [UInt8] = []
        var signature: [UInt8] = []
        var userHandle: [UInt8]?
    }

    /// The whole body, as the browser forms are bounded; nesting is at most the transports array.
    static let limits = JSONReader.Limits(maximumDepth: 2, maximumBytes: 1 << 20)
    static let transportCountLimit = 16
    static let transportByteLimit = 64

    /// The members of a native body, or nil when `bytes` is not one: a document whose top-level
    /// object has no `credentialID` member is left to the browser-JSON readers.
    /// - Throws: ``WebAuthnError`` `malformed` for a native body that does not read.
    static func members(_ bytes: ArraySlice<UInt8>, kind: Kind) throws(WebAuthnError) -> Members? {
        // A browser body has a rawId and no top-level credentialID; most skip the parse below.
        guard contains(bytes, Array("\"credentialID\"".utf8)), !contains(bytes, Array("\"rawId\"".utf8)) else { return nil }
        let value: JSONValue
        do throws(JSONReader.ParseError) {
            value = try JSONReader.parse(bytes, limits: limits)
        } catch {
            throw WebAuthnError(.malformed, "\(kind.root): \(error)", bodyFault: .init("", .notJSON))
        }
        guard let object = value.objectValue, object["credentialID"] != nil else { return nil }
        let root = kind.root
        for name in object.keys.sorted() where !kind.allowed.contains(name) {
            throw WebAuthnError(
                .malformed, "\(root): unknown member \"\(name.prefix(64))\"",
                bodyFault: .init(codingPath: [JSONMemberKey(stringValue: name)], .unknown))
        }
        var members = Members()
        members.rawId = try binary(object, "credentialID", root)
        guard members.rawId.count <= AuthenticatorData.maximumCredentialIdLength, !members.rawId.isEmpty else {
            throw WebAuthnError(
                .malformed,
                "\(root).credentialID is \(members.rawId.count) bytes; a credential id is 1 to "
                    + "\(AuthenticatorData.maximumCredentialIdLength) bytes", bodyFault: .init("credentialID", .outOfBounds))
        }
        members.clientDataJSON = try binary(object, "rawClientDataJSON", root)
        switch kind {
        case .registration:
            members.attestationObject = try binary(object, "rawAttestationObject", root)
            members.transports = try transports(object["transports"], root)
        case .authentication:
            members.authenticatorData = try binary(object, "rawAuthenticatorData", root)
            members.signature = try binary(object, "signature", root)
            if let userID = object["userID"], userID != .null { members.userHandle = try binary(object, "userID", root) }
        }
        switch object["attachment"] {
        case nil, .null?, .string("platform")?, .string("cross-platform")?: break
        default: throw refusedAttachment(root)
        }
        return members
    }

    /// `attachment` is neither absent, null, `platform` nor `cross-platform`.
    private static func refusedAttachment(_ root: String) -> WebAuthnError {
        WebAuthnError(.malformed, "\(root).attachment is not \"platform\" or \"cross-platform\"", bodyFault: .init("attachment", .invalid))
    }

    /// A required `Data` member: a string of standard, padded base64.
    private static func binary(_ object: [String: JSONValue], _ name: String, _ root: String) throws(WebAuthnError) -> [UInt8] {
        guard let member = object[name] else {
            throw WebAuthnError(.malformed, "\(root).\(name) is missing", bodyFault: .init(name, .missing))
        }
        guard case .string(let text) = member else {
            throw WebAuthnError(.malformed, "\(root).\(name) is not a string", bodyFault: .init(name, .mistyped))
        }
        return try standardBase64(text, member: name, root: root)
    }

    /// Standard base64 (RFC 4648 §4) as `JSONEncoder` writes `Data`: padded to a multiple of
    /// four, `+` and `/`; decoded by the strict base64url decoder once the two characters are
    /// swapped, so non-zero trailing bits and wrong padding are refused the same way.
    static func standardBase64(_ text: String, member: String, root: String) throws(WebAuthnError) -> [UInt8] {
        func refuse(_ reason: String) -> WebAuthnError {
            WebAuthnError(.malformed, "\(root).\(member): \(reason)", bodyFault: .init(member, .notStandardBase64))
        }
        var utf8 = Array(text.utf8)
        guard utf8.count % 4 == 0 else {
            throw refuse("\(utf8.count) characters is not padded standard base64 (a multiple of 4)")
        }
        for index in utf8.indices {
            switch utf8[index] {
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                throw refuse("character at \(index) is base64url, not standard base64")
            case UInt8(ascii: "+"): utf8[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): utf8[index] = UInt8(ascii: "_")
            default: break
            }
        }
        do throws(Base64URL.DecodingError) {
            return try Base64URL.decode(String(decoding: utf8, as: UTF8.self), allowPadding: true)
        } catch {
            throw refuse("not standard base64 (\(error.reason) at \(error.offset))")
        }
    }

    /// `transports`: absent, null, or at most 16 strings of at most 64 bytes.
    private static func transports(_ value: JSONValue?, _ root: String) throws(WebAuthnError) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value, items.count <= transportCountLimit else {
            throw WebAuthnError(
                .malformed, "\(root).transports is not an array of at most \(transportCountLimit) strings",
                bodyFault: .init("transports", .outOfBounds))
        }
        var out: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item, text.utf8.count <= transportByteLimit else {
                throw WebAuthnError(
                    .malformed, "\(root).transports[\(index)] is not a string of at most \(transportByteLimit) bytes",
                    bodyFault: .init("transports[\(index)]", .outOfBounds))
            }
            out.append(text)
        }
        return out
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while start <= haystack.endIndex - needle.count {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}
