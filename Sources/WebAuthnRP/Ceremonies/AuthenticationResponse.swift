public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// An authentication response with its binary members decoded: from the JSON the browser
/// posted or the body a native app wrote (``init(jsonData:)``, or `Decodable` inside a larger
/// body), or built directly from what `ASAuthorizationPlatformPublicKeyCredentialAssertion`
/// gives (`credentialID`, `rawClientDataJSON`, `rawAuthenticatorData`, `signature`, `userID`):
/// pass them as `rawId`, `clientDataJSON`, `authenticatorData`, `signature` and `userHandle`
/// and leave `id` out, so that it is derived.
public struct AuthenticationResponse: Sendable {
    /// `id`: the credential id, base64url.
    public package(set) var id: String {
        get { String(decoding: idText, as: UTF8.self) }
        set { idText = Array(newValue.utf8)[...] }
    }
    /// The UTF-8 of ``id``. Decoded from a body, a slice of the body's bytes: no string is
    /// made unless ``id`` is read (the verifier compares these bytes with `rawId`).
    private(set) var idText: ArraySlice<UInt8> { didSet { receivedBody = nil } }
    /// `rawId`: the credential id bytes.
    public package(set) var rawId: [UInt8] { didSet { receivedBody = nil } }
    /// `type`: must be `public-key`.
    package var type: String { didSet { receivedBody = nil } }
    /// `clientDataJSON`, `authenticatorData`, `signature` and `userHandle`, held in one buffer
    /// (one allocation for the four; the verifier reads them as slices of it).
    private(set) var members: AssertionMembers { didSet { receivedBody = nil } }
    /// `response.clientDataJSON`, exactly as received.
    package var clientDataJSON: [UInt8] {
        get { Array(members.clientDataJSON) }
        set {
            members = AssertionMembers(
                clientDataJSON: newValue[...], authenticatorData: members.authenticatorData,
                signature: members.signature, userHandle: members.userHandle)
        }
    }
    /// `response.authenticatorData`, exactly as received.
    package var authenticatorData: [UInt8] {
        get { Array(members.authenticatorData) }
        set {
            members = AssertionMembers(
                clientDataJSON: members.clientDataJSON, authenticatorData: newValue[...],
                signature: members.signature, userHandle: members.userHandle)
        }
    }
    /// `response.signature`.
    package var signature: [UInt8] {
        get { Array(members.signature) }
        set {
            members = AssertionMembers(
                clientDataJSON: members.clientDataJSON, authenticatorData: members.authenticatorData,
                signature: newValue[...], userHandle: members.userHandle)
        }
    }
    /// `response.userHandle` (nil when absent, null or empty).
    public package(set) var userHandle: [UInt8]? {
        get { members.userHandle.map { Array($0) } }
        set {
            members = AssertionMembers(
                clientDataJSON: members.clientDataJSON, authenticatorData: members.authenticatorData,
                signature: members.signature, userHandle: newValue?[...])
        }
    }
    /// `clientExtensionResults`, as the client sent it.
    package var clientExtensionResults: [String: JSONValue] { didSet { receivedBody = nil } }
    /// The body ``init(jsonData:)`` read (browser JSON or a native app's body), kept as received
    /// for a ``CeremonyRecording``; nil when the response was built from its members, or once a
    /// member is changed (the recording then writes the members).
    private(set) var receivedBody: Data?

    /// Creates a response from decoded members.
    /// - Parameters:
    ///   - id: base64url credential id as the client sent it; nil (default) derives it from
    ///     `rawId` (a native app sends no `id`).
    ///   - rawId: credential id bytes (`credentialID` on Apple platforms).
    ///   - type: credential type (`public-key`).
    ///   - clientDataJSON: client data bytes (`rawClientDataJSON`).
    ///   - authenticatorData: authenticator data bytes (`rawAuthenticatorData`).
    ///   - signature: assertion signature.
    ///   - userHandle: user handle, if the authenticator returned one (`userID`).
    ///   - clientExtensionResults: the client extension outputs.
    public init(
        id: String? = nil, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
        authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
        clientExtensionResults: [String: JSONValue] = [:]
    ) {
        self.init(
            idText: Array((id ?? Base64URL.encode(rawId)).utf8)[...], rawId: rawId, type: type,
            members: AssertionMembers(
                clientDataJSON: clientDataJSON[...], authenticatorData: authenticatorData[...],
                signature: signature[...],
                userHandle: (userHandle?.isEmpty ?? true) ? nil : userHandle?[...]),
            clientExtensionResults: clientExtensionResults)
    }

    /// A response whose binary members are already in one buffer (the plain-JSON decoder's),
    /// and whose `id` is given as its UTF-8.
    init(
        idText: ArraySlice<UInt8>, rawId: [UInt8], type: String, members: AssertionMembers,
        clientExtensionResults: [String: JSONValue]
    ) {
        self.idText = idText
        self.rawId = rawId
        self.type = type
        self.members = members
        self.clientExtensionResults = clientExtensionResults
    }

    /// Whether ``id`` is exactly the base64url of ``rawId`` (the one way both verifiers check
    /// it), compared as bytes: no string is made.
    var idEncodesRawId: Bool { Base64URL.isEncoding(utf8: idText, of: rawId) }
}

/// The four binary members of an assertion in one buffer, each a range of it. The ranges
/// are made here or by the decoder that filled the buffer, always within it.
struct AssertionMembers: Sendable {
    private let storage: [UInt8]
    private let clientDataJSONRange: Range<Int>
    private let authenticatorDataRange: Range<Int>
    private let signatureRange: Range<Int>
    private let userHandleRange: Range<Int>?

    /// Members already decoded into `storage`; nil when a range is not within it.
    init?(
        storage: [UInt8], clientDataJSON: Range<Int>, authenticatorData: Range<Int>, signature: Range<Int>,
        userHandle: Range<Int>?
    ) {
        let count = storage.count
        func within(_ range: Range<Int>) -> Bool { range.lowerBound >= 0 && range.upperBound <= count }
        guard within(clientDataJSON), within(authenticatorData), within(signature),
            userHandle.map(within) ?? true
        else { return nil }
        self.storage = storage
        clientDataJSONRange = clientDataJSON
        authenticatorDataRange = authenticatorData
        signatureRange = signature
        userHandleRange = userHandle
    }

    /// The members copied, one after another, into one new buffer.
    init(
        clientDataJSON: ArraySlice<UInt8>, authenticatorData: ArraySlice<UInt8>, signature: ArraySlice<UInt8>,
        userHandle: ArraySlice<UInt8>?
    ) {
        var storage: [UInt8] = []
        storage.reserveCapacity(clientDataJSON.count + authenticatorData.count + signature.count + (userHandle?.count ?? 0))
        storage.append(contentsOf: clientDataJSON)
        clientDataJSONRange = 0..<storage.count
        storage.append(contentsOf: authenticatorData)
        authenticatorDataRange = clientDataJSONRange.upperBound..<storage.count
        storage.append(contentsOf: signature)
        signatureRange = authenticatorDataRange.upperBound..<storage.count
        if let userHandle {
            storage.append(contentsOf: userHandle)
            userHandleRange = signatureRange.upperBound..<storage.count
        } else {
            userHandleRange = nil
        }
        self.storage = storage
    }

    /// `response.clientDataJSON`.
    var clientDataJSON: ArraySlice<UInt8> { storage[clientDataJSONRange] }
    /// `response.authenticatorData`.
    var authenticatorData: ArraySlice<UInt8> { storage[authenticatorDataRange] }
    /// `response.signature`.
    var signature: ArraySlice<UInt8> { storage[signatureRange] }
    /// `response.userHandle`.
    var userHandle: ArraySlice<UInt8>? { userHandleRange.map { storage[$0] } }
}

// An authentication response from what the browser posted, and its client data parsed once.

extension AuthenticationResponse {
    /// The decoded form of an `AuthenticationResponseJSON`.
    /// - Parameter json: the decoded JSON.
    package init(json: AuthenticationResponseJSON) {
        self.init(
            id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
            clientDataJSON: json.response.clientDataJSON.bytes,
            authenticatorData: json.response.authenticatorData.bytes,
            signature: json.response.signature.bytes, userHandle: json.response.userHandle?.bytes,
            clientExtensionResults: json.clientExtensionResults)
    }
}

extension AuthenticationResponse {
    /// The response `AuthenticationResponse(json:)` makes of plain JSON (what browsers send),
    /// built straight from the decoded members, or nil when the document is not plain. The
    /// response keeps the decoder's one buffer of binary members with their ranges.
    init?(plainJSON bytes: ArraySlice<UInt8>) {
        guard let plain = PlainResponseDecoding.assertion(bytes),
            let members = AssertionMembers(
                storage: plain.decoded, clientDataJSON: plain.clientDataJSON,
                authenticatorData: plain.authenticatorData, signature: plain.signature,
                // An empty user handle is none, as the public initializer has it.
                userHandle: plain.userHandle.flatMap { $0.isEmpty ? nil : $0 })
        else { return nil }
        self.init(
            idText: plain.id, rawId: plain.rawId, type: plain.type, members: members,
            clientExtensionResults: plain.extensions)
    }
}

extension AuthenticationResponse: Decodable {
    /// Decodes the body the client posted: the response `PublicKeyCredential.toJSON()`
    /// produced, or what a native app encoded with `JSONEncoder` from
    /// `ASAuthorizationPlatformPublicKeyCredentialAssertion`: `credentialID`,
    /// `rawClientDataJSON`, `rawAuthenticatorData`, `signature`, optional `userID` and
    /// `attachment` (standard base64, as `JSONEncoder` writes `Data`), no `id` (derived). What
    /// browsers send is read in one pass of the strict reader, straight into the response; a
    /// native body is read by the same reader; anything else is read by it into a tree and typed
    /// from that (a member given twice or invalid UTF-8 is refused either way).
    /// - Parameter jsonData: the JSON the client posted.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the member that is
    ///   missing, mistyped, unknown (in a native body) or not base64url (standard base64).
    public init(jsonData: Data) throws(WebAuthnError) {
        let bytes = [UInt8](jsonData)[...]
        if let plain = AuthenticationResponse(plainJSON: bytes) {
            self = plain
        } else if let native = try NativeResponseBody.members(bytes, kind: .authentication) {
            self.init(
                rawId: native.rawId, clientDataJSON: native.clientDataJSON, authenticatorData: native.authenticatorData,
                signature: native.signature, userHandle: native.userHandle)
        } else {
            self.init(
                json: try WebAuthnJSONCoding.decode(
                    AuthenticationResponseJSON.self, from: bytes,
                    root: "AuthenticationResponseJSON"))
        }
        receivedBody = jsonData
    }

    /// Decodes the response from a larger document (a request body such as
    /// `{"state": "…", "credential": {…}}` that carries the credential in one of its members):
    /// the member is written back as JSON text and read by ``init(jsonData:)``, so it accepts
    /// exactly the same forms (browser JSON, Credential Manager's, a native app's body) with the
    /// same rules and errors. What the outer decoder already did is its own: a member given
    /// twice in the outer document was resolved by it before this reads the credential.
    /// - Parameter decoder: the decoder, at the credential member.
    /// - Throws: ``WebAuthnError`` `malformed` for a credential that does not read (as
    ///   ``init(jsonData:)`` throws it); the decoder's `DecodingError` when the member is not
    ///   a JSON value.
    public init(from decoder: any Decoder) throws {
        self = try WebAuthnJSONCoding.decodeMember(decoder, root: "AuthenticationResponseJSON") { (data) throws(WebAuthnError) in
            try AuthenticationResponse(jsonData: data)
        }
    }
}
