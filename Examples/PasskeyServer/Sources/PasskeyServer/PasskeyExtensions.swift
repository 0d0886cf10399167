import Crypto
import Foundation
import WebAuthnRP

/// The extensions the server asks for, and what it keeps of their answers.
///
/// - `credProps` at registration: the client says whether the new credential is discoverable
///   (`rk`). Kept per credential (`discoverable`): a non-discoverable one cannot serve a
///   usernameless or autofill sign-in, so the account page can say so.
/// - `prf` at registration and at username-first login, evaluated on a salt the server derives
///   per user (``prfSalt(userHandle:)``). The authenticator mixes the salt with a secret of the
///   credential, so the output is a 32-byte key that only this credential can produce, the same
///   at every sign-in: the page can use it (for example to unwrap a data key). The output is the
///   CLIENT's secret: the server checks that it arrived in the right shape (the library verifies
///   32 bytes per input asked), keeps only whether PRF is enabled (`prf_enabled`), never logs or
///   stores the output, and strips it from failed-ceremony recordings
///   (``redactingPRFOutputs(_:)``).
///
/// A usernameless or autofill sign-in does not ask for PRF: the salt is per user and the user
/// is only known from the response. (A per-credential salt would need `evalByCredential`, which
/// needs `allowCredentials`, so the same holds for it.)
enum PasskeyExtensions {
    /// The PRF salt of a user: SHA-256 over a fixed label and the user handle. Derived, so every
    /// node computes the same salt without a table or a shared key; not secret (the client sees
    /// it in the options, and the output is useless without the authenticator). Changing the
    /// label changes every user's PRF key, so it carries a version.
    static func prfSalt(userHandle: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("PasskeyServer PRF salt v1".utf8) + [0])
        hash.update(data: userHandle)
        return Array(hash.finalize())
    }

    /// Registration: `credProps`, and `prf` with an evaluation on the user's salt (an
    /// authenticator that can evaluate at creation answers with results, others with `enabled`).
    static func registration(userHandle: [UInt8]) -> RegistrationExtensionInputs {
        RegistrationExtensionInputs(credProps: true, prf: PRFInputs(eval: PRFValues(first: prfSalt(userHandle: userHandle))))
    }

    /// Login: `prf` on the user's salt when the user is named (username-first), nothing otherwise.
    static func authentication(userHandle: [UInt8]?) -> AuthenticationExtensionInputs {
        guard let userHandle else { return AuthenticationExtensionInputs() }
        return AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: prfSalt(userHandle: userHandle))))
    }

    /// What the passkey list and the registration answer say about a credential's extensions;
    /// a property the client did not report is left out (unknown).
    static func properties(_ record: CredentialRecord) -> [String: any Sendable] {
        var out: [String: any Sendable] = [:]
        if let discoverable = record.extensions.discoverable { out["discoverable"] = discoverable }
        if let prf = record.extensions.prfEnabled { out["prfEnabled"] = prf }
        return out
    }

    /// A response with every PRF output (`clientExtensionResults.prf.results.first/second`)
    /// replaced by zero bytes of the same length: a failed ceremony is recorded for replay
    /// without the client's secret, and the replay reaches the same verdict (the library checks
    /// the outputs' lengths and shape, never their value). A value that is not base64url is
    /// not an output the authenticator made and is kept as sent. A body that did not parse as
    /// a response is recorded as its text: there each output found by a lenient parse is
    /// replaced in the text itself, so every other byte (and so the replay's `malformed`) stays.
    static func redactingPRFOutputs(_ response: JSONValue) -> JSONValue {
        if case .string(let text) = response {
            guard text.utf8.count <= 1_048_576, let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
                  case .object(let redacted) = redactingPRFOutputs(parsed), case .object(let original) = parsed,
                  redacted != original else { return response }
            var out = text
            for (secret, zeroed) in zip(prfOutputs(.object(original)), prfOutputs(.object(redacted))) where secret != zeroed {
                out = out.replacingOccurrences(of: secret, with: zeroed)
            }
            return .string(out)
        }
        guard case .object(var credential) = response,
              case .object(var outputs)? = credential["clientExtensionResults"],
              case .object(var prf)? = outputs["prf"],
              case .object(var results)? = prf["results"] else { return response }
        for member in ["first", "second"] {
            guard case .string(let text)? = results[member],
                  let bytes = try? Base64URLBytes(base64URL: text, member: member).bytes else { continue }
            results[member] = .string(Base64URLBytes([UInt8](repeating: 0, count: bytes.count)).base64URL)
        }
        prf["results"] = .object(results)
        outputs["prf"] = .object(prf)
        credential["clientExtensionResults"] = .object(outputs)
        return .object(credential)
    }

    /// The texts of `clientExtensionResults.prf.results.first` and `second`, in that order.
    private static func prfOutputs(_ response: JSONValue) -> [String] {
        guard case .object(let credential) = response,
              case .object(let outputs)? = credential["clientExtensionResults"],
              case .object(let prf)? = outputs["prf"],
              case .object(let results)? = prf["results"] else { return [] }
        return ["first", "second"].map { member in
            if case .string(let text)? = results[member] { return text }
            return ""
        }
    }
}

extension CeremonyRecording {
    /// This recording with its response's PRF outputs zeroed (``PasskeyExtensions/redactingPRFOutputs(_:)``).
    func redactingPRFOutputs() -> CeremonyRecording {
        let redacted = PasskeyExtensions.redactingPRFOutputs(response)
        guard redacted != response else { return self }
        return CeremonyRecording(kind: kind, issued: issued, challenge: challenge, response: redacted,
                                 credentialBefore: credentialBefore, relyingParty: relyingParty, policy: policy,
                                 receivedAt: receivedAt, verdict: verdict)
    }
}
