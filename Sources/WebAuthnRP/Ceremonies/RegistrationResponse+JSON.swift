// A registration response from what the browser posted, and its client data parsed once.

public import Foundation

extension RegistrationResponse {
    /// The decoded form of a `RegistrationResponseJSON` (what `PublicKeyCredential.toJSON()` sent).
    /// - Parameter json: the decoded JSON.
    package init(json: RegistrationResponseJSON) {
        self.init(id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
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
            self.init(rawId: native.rawId, clientDataJSON: native.clientDataJSON, attestationObject: native.attestationObject,
                      transports: native.transports)
        } else {
            self.init(json: try WebAuthnJSONCoding.decode(RegistrationResponseJSON.self, from: jsonData,
                                                                  root: "RegistrationResponseJSON"))
        }
    }

    /// Decodes the response from a larger document (a request body that carries the
    /// credential in one of its members), with the browser members and rules of
    /// ``init(jsonData:)`` apart from the strict reader, which only reads a whole body (a
    /// native app's body is read only as a whole body).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing or mistyped member.
    public init(from decoder: any Decoder) throws {
        self.init(json: try RegistrationResponseJSON(from: decoder))
    }
}
