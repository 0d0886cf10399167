// An authentication response from what the browser posted, and its client data parsed once.

public import Foundation

extension AuthenticationResponse {
    /// The decoded form of an `AuthenticationResponseJSON`.
    /// - Parameter json: the decoded JSON.
    package init(json: AuthenticationResponseJSON) {
        self.init(id: json.id, rawId: json.rawId.bytes, type: json.type.rawValue,
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
              let members = AssertionMembers(storage: plain.decoded, clientDataJSON: plain.clientDataJSON,
                                             authenticatorData: plain.authenticatorData, signature: plain.signature,
                                             // An empty user handle is none, as the public initializer has it.
                                             userHandle: plain.userHandle.flatMap { $0.isEmpty ? nil : $0 }) else { return nil }
        self.init(idText: plain.id, rawId: plain.rawId, type: plain.type, members: members,
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
            self.init(rawId: native.rawId, clientDataJSON: native.clientDataJSON, authenticatorData: native.authenticatorData,
                      signature: native.signature, userHandle: native.userHandle)
        } else {
            self.init(json: try WebAuthnJSONCoding.decode(AuthenticationResponseJSON.self, from: jsonData,
                                                                root: "AuthenticationResponseJSON"))
        }
    }

    /// Decodes the response from a larger document (a request body that carries the
    /// credential in one of its members), with the browser members and rules of
    /// ``init(jsonData:)`` apart from the strict reader, which only reads a whole body (a
    /// native app's body is read only as a whole body).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing or mistyped member.
    public init(from decoder: any Decoder) throws {
        self.init(json: try AuthenticationResponseJSON(from: decoder))
    }
}
