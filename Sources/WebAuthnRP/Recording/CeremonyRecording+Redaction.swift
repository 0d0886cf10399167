import Foundation
import WebAuthnCoding

/// Removes the client's secret extension outputs from a recorded response, so that a
/// `webauthn-ceremonies/1` file can be kept and shared while replaying to the same verdict.
///
/// Redacted members of `clientExtensionResults` (every other byte of the response is kept):
/// - `prf.results.first` and `prf.results.second` (L3 §10.1.4): keys the client derives.
/// - `largeBlob.blob` (L3 §10.1.5): user data the authenticator stored (often key material).
/// - `getCredBlob` (CTAP 2.2 §12.2): the blob stored with the credential.
/// - `hmacGetSecret.output1` and `output2` (CTAP 2.2 §12.5): the raw hmac-secret outputs (the
///   library does not read them; a client that reports them hands over the same secrets).
///
/// A value that is base64url text becomes zero bytes of the same decoded length, so of the
/// same text length: the verifier checks only lengths and shape (32 bytes per PRF output),
/// never content, so the replay takes the same path. A value that is not base64url (which the
/// verifier refuses as `extension` in the same way) becomes ``notBase64URLMarker``.
///
/// Not redacted, because they are signed or are statements rather than secrets: the
/// authenticator data (its `hmac-secret` output is encrypted to the client's ephemeral key,
/// and its `credBlob` is covered by the signature), `prf.enabled`, `hmacCreateSecret`,
/// `largeBlob.supported` and `written`, and `credBlob` at registration (booleans).
enum SecretOutputRedaction {
    /// What replaces a secret output that is not base64url text: not base64url either (the
    /// parentheses are in no base64 alphabet), so the verifier refuses it as it refused the original.
    static let notBase64URLMarker = "(redacted)"

    /// What replaces a body recorded as text (it did not decode as a response) that holds a
    /// secret output which cannot be zeroed in place. It is not JSON, so it replays as `malformed`,
    /// as every body that does not decode does.
    static let placeholder =
        "(redacted: this body did not decode as a response and carried secret extension outputs that could not be zeroed in place)"

    /// The members of a response object, from `clientExtensionResults`, whose values are secret.
    private static let paths: [[String]] = [
        ["prf", "results", "first"], ["prf", "results", "second"],
        ["largeBlob", "blob"],
        ["getCredBlob"],
        ["hmacGetSecret", "output1"], ["hmacGetSecret", "output2"],
    ]

    /// The names whose presence in a body that is not JSON means it may carry a secret output.
    private static let names = ["\"prf\"", "\"largeBlob\"", "\"getCredBlob\"", "\"hmacGetSecret\""]

    /// The response with every secret output redacted. A response recorded as text is redacted
    /// in the text (``redactingText(_:kind:)``); any other value that is not an object is kept.
    static func redacting(_ response: JSONValue, kind: CeremonyKind) -> JSONValue {
        switch response {
        case .string(let text): return .string(redactingText(text, kind: kind))
        case .object: return redactingObject(response)
        default: return response
        }
    }

    /// A response object with each secret output replaced (base64url: zeros of the same length;
    /// anything else: the marker).
    static func redactingObject(_ response: JSONValue) -> JSONValue {
        guard case .object(var credential) = response,
            case .object(var outputs)? = credential["clientExtensionResults"]
        else { return response }
        var changed = false
        for path in paths {
            guard let first = path.first, let member = outputs[first] else { continue }
            let redacted = replacing(path.dropFirst(), in: member)
            if redacted != member {
                outputs[first] = redacted
                changed = true
            }
        }
        guard changed else { return response }
        credential["clientExtensionResults"] = .object(outputs)
        return .object(credential)
    }

    /// `value` with the member at `path` (relative to it) redacted; `value` itself when the
    /// path is empty. A container on the way that is not an object is kept.
    private static func replacing(_ path: ArraySlice<String>, in value: JSONValue) -> JSONValue {
        guard let key = path.first else { return redactedLeaf(value) }
        guard case .object(var object) = value, let member = object[key] else { return value }
        object[key] = replacing(path.dropFirst(), in: member)
        return .object(object)
    }

    /// Zero bytes of the same length for base64url text; the marker for anything else.
    private static func redactedLeaf(_ value: JSONValue) -> JSONValue {
        if case .string(let text) = value, let bytes = try? Base64URL.decode(text) {
            return .string(Base64URL.encode([UInt8](repeating: 0, count: bytes.count)))
        }
        return .string(notBase64URLMarker)
    }

    /// Whether every secret output of `response` is already redacted.
    private static func isRedacted(_ response: JSONValue) -> Bool {
        redactingObject(response) == response
    }

    /// A body recorded as text. When it is a JSON object (read strictly: no duplicate names,
    /// at most 1 MiB and 32 levels), each secret output that is base64url text is zeroed in the
    /// text itself, so every other byte (and with it the reason it did not decode) stays; the
    /// result must read back with nothing left to redact and decode (or not) as the original
    /// did. Otherwise, when it may carry a secret output (a JSON body with one that cannot be
    /// zeroed in place, or a body that is not JSON but names a secret-bearing extension), the
    /// whole text becomes ``placeholder``. A text without secret outputs is kept as it is.
    static func redactingText(_ text: String, kind: CeremonyKind) -> String {
        guard let parsed: JSONValue = try? JSONReader.parse(Array(text.utf8)[...]), case .object = parsed else {
            return names.contains(where: { text.contains($0) }) ? placeholder : text
        }
        let redacted = redactingObject(parsed)
        guard redacted != parsed else { return text }
        var out = text
        for (secret, zeroed) in zip(leaves(parsed), leaves(redacted)) where secret != zeroed {
            guard case .string(let secretText) = secret, case .string(let zeroedText) = zeroed,
                zeroedText != notBase64URLMarker, !secretText.isEmpty
            else { return placeholder }
            out = out.replacingOccurrences(of: "\"\(secretText)\"", with: "\"\(zeroedText)\"")
        }
        guard let reread: JSONValue = try? JSONReader.parse(Array(out.utf8)[...]), isRedacted(reread),
            decodes(text, kind: kind) == decodes(out, kind: kind)
        else { return placeholder }
        return out
    }

    /// The values at the secret paths, in ``paths`` order (null where absent).
    private static func leaves(_ response: JSONValue) -> [JSONValue] {
        paths.map { path in
            var value: JSONValue? = response["clientExtensionResults"]
            for key in path { value = value?[key] }
            return value ?? .null
        }
    }

    /// Whether `text` decodes as the response of `kind`.
    private static func decodes(_ text: String, kind: CeremonyKind) -> Bool {
        let data = Data(text.utf8)
        switch kind {
        case .registration: return (try? RegistrationResponseJSON(jsonData: data)) != nil
        case .authentication: return (try? AuthenticationResponseJSON(jsonData: data)) != nil
        case .appAttest, .androidKeyAttestation, .playIntegrity: return false  // no passkey response answers an app's challenge
        }
    }
}
