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
    /// Decodes the response `PublicKeyCredential.toJSON()` produced, as the body the client
    /// posted. What browsers send is read in one pass of the strict reader (duplicate names,
    /// invalid UTF-8 and oversized members refused); anything else goes through `JSONDecoder`.
    /// - Parameter jsonData: the JSON the client posted.
    /// - Throws: ``WebAuthnError`` with category `malformed` naming the member that is
    ///   missing, mistyped or not base64url.
    public init(jsonData: Data) throws(WebAuthnError) {
        self.init(json: try RegistrationResponseJSON(jsonData: jsonData))
    }

    /// Decodes the response from a larger document (a request body that carries the
    /// credential in one of its members), with the same members and rules as
    /// ``init(jsonData:)`` apart from the strict reader, which only reads a whole body.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a missing or mistyped member.
    public init(from decoder: any Decoder) throws {
        self.init(json: try RegistrationResponseJSON(from: decoder))
    }
}
