import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// A JSON value that keeps its members in the order they were written, so the
/// generated fixture files read top-down (format, description, relying party,
/// policy, ceremonies) and stay byte-stable apart from key material.
indirect enum FixtureValue: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    /// `null`: in an expectation, "must be absent".
    case null
    case array([FixtureValue])
    case object([(String, FixtureValue)])

    static func bytes(_ bytes: [UInt8]) -> FixtureValue { .string(Base64URL.encode(bytes)) }

    /// Pretty-printed JSON text with two-space indentation and a final newline.
    var text: String {
        var out = ""
        write(into: &out, indent: "")
        return out + "\n"
    }

    private func write(into out: inout String, indent: String) {
        // Scalars, and short containers of scalars, stay on one line.
        if let inline = inlineText, inline.count <= 80 {
            out += inline
            return
        }
        let inner = indent + "  "
        switch self {
        case .string, .int, .bool, .null:
            out += inlineText ?? ""
        case .array(let items):
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.write(into: &out, indent: inner)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            out += "{\n"
            for (i, (key, value)) in members.enumerated() {
                out += inner + JSONValue.quoted(key) + ": "
                value.write(into: &out, indent: inner)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    /// The one-line form of a scalar or of a container holding only scalars; nil otherwise.
    private var inlineText: String? {
        switch self {
        case .string(let s): return JSONValue.quoted(s)
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            let parts = items.compactMap { $0.isScalar ? $0.inlineText : nil }
            guard parts.count == items.count else { return nil }
            return "[" + parts.joined(separator: ", ") + "]"
        case .object(let members):
            let parts = members.compactMap { key, value in
                value.isScalar ? value.inlineText.map { JSONValue.quoted(key) + ": " + $0 } : nil
            }
            guard parts.count == members.count else { return nil }
            return parts.isEmpty ? "{}" : "{ " + parts.joined(separator: ", ") + " }"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    /// Sets (or, with nil, removes) `key` of an object; other values are unchanged.
    mutating func set(_ key: String, _ value: FixtureValue?) {
        guard case .object(var members) = self else { return }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            if let value { members[index].1 = value } else { members.remove(at: index) }
        } else if let value {
            members.append((key, value))
        }
        self = .object(members)
    }

    /// Edits the object member `key` in place.
    mutating func edit(_ key: String, _ body: (inout FixtureValue) -> Void) {
        guard case .object(var members) = self, let index = members.firstIndex(where: { $0.0 == key }) else { return }
        body(&members[index].1)
        self = .object(members)
    }
}

/// The JSON forms the fixture format uses, written in the order a browser or a
/// server would write them.
enum FixtureJSONForms {
    static func registrationResponse(_ r: RegistrationResponse) -> FixtureValue {
        .object([
            ("id", .string(r.id)),
            ("rawId", .bytes(r.rawId)),
            (
                "response",
                .object([
                    ("clientDataJSON", .bytes(r.clientDataJSON)),
                    ("attestationObject", .bytes(r.attestationObject)),
                    ("transports", .array(r.transports.map(FixtureValue.string))),
                ])
            ),
            ("type", .string(r.type)),
            ("clientExtensionResults", .object([])),
        ])
    }

    /// `Data` as `JSONEncoder` writes it: standard base64 with padding.
    static func standardBase64(_ bytes: [UInt8]) -> FixtureValue { .string(Data(bytes).base64EncodedString()) }

    /// The body an iOS app posts after a registration: the
    /// `ASAuthorizationPlatformPublicKeyCredentialRegistration` members under their Apple names.
    static func nativeRegistrationBody(_ r: RegistrationResponse) -> FixtureValue {
        .object([
            ("credentialID", standardBase64(r.rawId)),
            ("rawClientDataJSON", standardBase64(r.clientDataJSON)),
            ("rawAttestationObject", standardBase64(r.attestationObject)),
            ("attachment", .string("platform")),
        ])
    }

    /// The body an iOS app posts after an assertion (`ASAuthorizationPlatformPublicKeyCredentialAssertion`).
    static func nativeAuthenticationBody(_ r: AuthenticationResponse) -> FixtureValue {
        var members: [(String, FixtureValue)] = [
            ("credentialID", standardBase64(r.rawId)),
            ("rawClientDataJSON", standardBase64(r.clientDataJSON)),
            ("rawAuthenticatorData", standardBase64(r.authenticatorData)),
            ("signature", standardBase64(r.signature)),
        ]
        if let handle = r.userHandle { members.append(("userID", standardBase64(handle))) }
        members.append(("attachment", .string("platform")))
        return .object(members)
    }

    static func authenticationResponse(_ r: AuthenticationResponse) -> FixtureValue {
        var inner: [(String, FixtureValue)] = [
            ("clientDataJSON", .bytes(r.clientDataJSON)),
            ("authenticatorData", .bytes(r.authenticatorData)),
            ("signature", .bytes(r.signature)),
        ]
        if let handle = r.userHandle { inner.append(("userHandle", .bytes(handle))) }
        return .object([
            ("id", .string(r.id)),
            ("rawId", .bytes(r.rawId)),
            ("response", .object(inner)),
            ("type", .string(r.type)),
            ("clientExtensionResults", .object([])),
        ])
    }

    static func creationOptions(
        challenge: [UInt8], rpId: String, user: [UInt8], userName: String,
        algorithms: [COSEAlgorithm], userVerification: UserVerificationRequirement,
        attestation: String, parameters: [FixtureValue]? = nil
    ) -> FixtureValue {
        .object([
            ("rp", .object([("id", .string(rpId)), ("name", .string("Example"))])),
            ("user", .object([("id", .bytes(user)), ("name", .string(userName)), ("displayName", .string(userName))])),
            ("challenge", .bytes(challenge)),
            (
                "pubKeyCredParams",
                .array(
                    parameters
                        ?? algorithms.map {
                            .object([("type", .string("public-key")), ("alg", .int($0.rawValue))])
                        })
            ),
            ("timeout", .int(60_000)),
            ("excludeCredentials", .array([])),
            ("authenticatorSelection", .object([("userVerification", .string(userVerification.rawValue))])),
            ("attestation", .string(attestation)),
        ])
    }

    static func requestOptions(
        challenge: [UInt8], rpId: String, allowCredentials: [[UInt8]],
        userVerification: UserVerificationRequirement
    ) -> FixtureValue {
        .object([
            ("challenge", .bytes(challenge)),
            ("timeout", .int(60_000)),
            ("rpId", .string(rpId)),
            (
                "allowCredentials",
                .array(
                    allowCredentials.map {
                        .object([("type", .string("public-key")), ("id", .bytes($0))])
                    })
            ),
            ("userVerification", .string(userVerification.rawValue)),
        ])
    }
}
