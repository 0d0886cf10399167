import WebAuthnCoding

/// `largeBlob` (L3 §10.1.5): support at registration, read or write at authentication.
struct LargeBlobExtension: WebAuthnExtension {
    func addInput(_ inputs: RegistrationExtensionInputs, to json: inout [String: JSONValue]) throws(WebAuthnError) {
        if let largeBlob = inputs.largeBlob { json["largeBlob"] = .object(["support": .string(largeBlob.rawValue)]) }
    }

    func addInput(
        _ inputs: AuthenticationExtensionInputs, allowCredentials: [[UInt8]],
        to json: inout [String: JSONValue]
    ) throws(WebAuthnError) {
        switch inputs.largeBlob {
        case nil: break
        case .read: json["largeBlob"] = .object(["read": .bool(true)])
        case .write(let blob):
            // L3 §10.1.5: "If write is present and allowCredentials does not contain exactly one
            // element, return a DOMException whose name is NotSupportedError."
            guard allowCredentials.count == 1 else {
                throw WebAuthnError(.extension, "largeBlob.write needs exactly one credential in allowCredentials")
            }
            json["largeBlob"] = .object(["write": .string(Base64URL.encode(blob))])
        }
    }

    func asked(client name: String, _ asked: RequestedExtensions) -> Bool? {
        name == "largeBlob" ? asked.largeBlob : nil
    }

    func asked(authenticator identifier: String, _ asked: RequestedExtensions) -> Bool? {
        identifier == "largeBlobKey" ? asked.largeBlob : nil
    }

    func checkRegistration(_ exchange: ExtensionExchange, results: inout RegistrationExtensionResults) throws(WebAuthnError) {
        guard let largeBlob = exchange.client.largeBlob else { return }
        // At registration only `supported`; unasked, `supported` is reported.
        guard let support = exchange.asked.largeBlobSupport else {
            if let supported = largeBlob.supported {
                results.largeBlob = LargeBlobResult(supported: supported, blob: nil, written: nil)
            }
            return
        }
        guard largeBlob.blob == nil, largeBlob.written == nil else {
            throw WebAuthnError(.extension, "largeBlob.blob and largeBlob.written are not registration outputs")
        }
        if support == LargeBlobSupport.required.rawValue, largeBlob.supported == false {
            throw WebAuthnError(.extension, "largeBlob support was required and the client reports supported false")
        }
        results.largeBlob = LargeBlobResult(supported: largeBlob.supported, blob: nil, written: nil)
    }

    func checkAuthentication(
        _ exchange: ExtensionExchange, context: AuthenticationExtensionContext,
        results: inout AuthenticationExtensionResults
    ) throws(WebAuthnError) {
        guard exchange.asked.largeBlob, let largeBlob = exchange.client.largeBlob else { return }
        guard largeBlob.supported == nil else {
            throw WebAuthnError(.extension, "largeBlob.supported is not an authentication output")
        }
        if largeBlob.blob != nil, !exchange.asked.largeBlobRead {
            throw WebAuthnError(.extension, "largeBlob.blob arrived but read was not asked for")
        }
        if largeBlob.written != nil, !exchange.asked.largeBlobWrite {
            throw WebAuthnError(.extension, "largeBlob.written arrived but write was not asked for")
        }
        results.largeBlob = LargeBlobResult(supported: nil, blob: largeBlob.blob, written: largeBlob.written)
    }

    func traceItems(_ results: RegistrationExtensionResults) -> [(String, String)] {
        if let supported = results.largeBlob?.supported { return [("largeBlob", "supported \(supported)")] }
        return []
    }

    func traceItems(_ results: AuthenticationExtensionResults) -> [(String, String)] {
        var items: [(String, String)] = []
        if let blob = results.largeBlob?.blob { items.append(("largeBlob", "blob of \(blob.count) bytes")) }
        if let written = results.largeBlob?.written { items.append(("largeBlob", "written \(written)")) }
        return items
    }
}

/// `largeBlob.support` at registration (L3 §10.1.5).
public enum LargeBlobSupport: String, Sendable, Hashable, Codable {
    /// The credential must be created on an authenticator that can store large blobs.
    case required
    /// Large-blob support is wanted but not required.
    case preferred
}

/// The `largeBlob` input at authentication (L3 §10.1.5): read the blob, or write one.
public enum LargeBlobOperation: Sendable, Hashable {
    /// `read: true`: return the stored blob.
    case read
    /// `write`: store these bytes. `allowCredentials` must name exactly one credential.
    case write([UInt8])
}

/// The large-blob outputs of an authentication (L3 §10.1.5), each present only where its input
/// allows it. (At registration the output says whether the credential can store a blob: the
/// record's ``CredentialExtensionProperties/largeBlobSupported``.)
public struct LargeBlobResult: Sendable, Hashable {
    /// Registration: whether the credential can store a large blob.
    let supported: Bool?
    /// Authentication with `read`: the blob, when one is stored.
    public let blob: [UInt8]?
    /// Authentication with `write`: whether the blob was written.
    public let written: Bool?
}
