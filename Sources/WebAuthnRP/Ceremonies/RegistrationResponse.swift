public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// A registration response with its binary members decoded: from the JSON the browser posted
/// or the body a native app wrote (``init(jsonData:)``, or `Decodable` inside a larger body),
/// or built directly from what `ASAuthorizationPlatformPublicKeyCredentialRegistration` gives
/// (`credentialID`, `rawClientDataJSON`, `rawAttestationObject`): pass them as `rawId`,
/// `clientDataJSON` and `attestationObject` and leave `id` out, so that it is derived.
public struct RegistrationResponse: Sendable {
    /// `id`: the credential id, base64url, as the client sent it.
    public package(set) var id: String { didSet { receivedBody = nil } }
    /// `rawId`: the credential id bytes.
    public package(set) var rawId: [UInt8] { didSet { receivedBody = nil } }
    /// `type`: must be `public-key`.
    package var type: String { didSet { receivedBody = nil } }
    /// `response.clientDataJSON`, exactly as received.
    package var clientDataJSON: [UInt8] { didSet { receivedBody = nil } }
    /// `response.attestationObject`, exactly as received.
    package var attestationObject: [UInt8] { didSet { receivedBody = nil } }
    /// `response.transports`.
    package var transports: [String] { didSet { receivedBody = nil } }
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
    ///   - attestationObject: attestation object bytes (`rawAttestationObject`).
    ///   - transports: reported transports.
    ///   - clientExtensionResults: the client extension outputs.
    public init(
        id: String? = nil, rawId: [UInt8], type: String = "public-key", clientDataJSON: [UInt8],
        attestationObject: [UInt8], transports: [String] = [],
        clientExtensionResults: [String: JSONValue] = [:]
    ) {
        self.id = id ?? Base64URL.encode(rawId)
        self.rawId = rawId
        self.type = type
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.clientExtensionResults = clientExtensionResults
    }

    /// Whether ``id`` is exactly the base64url of ``rawId`` (the one way both verifiers check it).
    var idEncodesRawId: Bool { Base64URL.isEncoding(id, of: rawId) }
}

// A registration response from what the browser posted, and its client data parsed once.

extension RegistrationResponse {
    /// The decoded form of a `RegistrationResponseJSON` (what `PublicKeyCredential.toJSON()` sent).
    /// - Parameter json: the decoded JSON.
    package init(json: RegistrationResponseJSON) {
        self.init(
            id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
            clientDataJSON: json.response.clientDataJSON.bytes,
            attestationObject: json.response.attestationObject.bytes,
            transports: (json.response.transports ?? []).map(\.rawValue),
            clientExtensionResults: json.clientExtensionResults)
    }
}

extension RegistrationResponse: Decodable {
    /// Decodes the body the client posted: the response `PublicKeyCredential.toJSON()`
    /// produced, or what a native app encoded with `JSONEncoder` from
    /// `ASAuthorizationPlatformPublicKeyCredentialRegistration`: `credentialID`,
    /// `rawClientDataJSON`, `rawAttestationObject` (standard base64, as `JSONEncoder` writes
    /// `Data`), optional `transports` and `attachment`, no `id` (derived). Either is read by
    /// the strict reader (duplicate names, invalid UTF-8 and oversized members refused); browser
    /// JSON that is not plain is read by the same reader into a tree and typed from that.
    /// - Parameter jsonData: the JSON the client posted.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the member that is
    ///   missing, mistyped, unknown (in a native body) or not base64url (standard base64).
    public init(jsonData: Data) throws(WebAuthnError) {
        let bytes = [UInt8](jsonData)[...]
        if let plain = PlainResponseDecoding.registration(bytes) {
            self.init(json: plain)
        } else if let native = try NativeResponseBody.members(bytes, kind: .registration) {
            self.init(
                rawId: native.rawId, clientDataJSON: native.clientDataJSON, attestationObject: native.attestationObject,
                transports: native.transports)
        } else {
            self.init(
                json: try WebAuthnJSONCoding.decode(
                    RegistrationResponseJSON.self, from: bytes,
                    root: "RegistrationResponseJSON"))
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
        self = try WebAuthnJSONCoding.decodeMember(decoder, root: "RegistrationResponseJSON") { (data) throws(WebAuthnError) in
            try RegistrationResponse(jsonData: data)
        }
    }
}
