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
///   stores the output; the library zeroes it in every ceremony recording (`CeremonyRecording`
///   keeps no secret extension output), so failed-ceremony files never hold it either.
///
/// A usernameless or autofill sign-in does not ask for PRF: the salt is per user and the user
/// is only known from the response. (A per-credential salt would need `evalByCredential`, which
/// needs `allowCredentials`, so the same holds for it.)
package enum PasskeyExtensions {
    /// The PRF salt of a user: SHA-256 over a fixed label and the user handle. Derived, so every
    /// node computes the same salt without a table or a shared key; not secret (the client sees
    /// it in the options, and the output is useless without the authenticator). Changing the
    /// label changes every user's PRF key, so it carries a version.
    package static func prfSalt(userHandle: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("PasskeyServer PRF salt v1".utf8) + [0])
        hash.update(data: userHandle)
        return Array(hash.finalize())
    }

    /// Registration: `credProps`, and `prf` with an evaluation on the user's salt (an
    /// authenticator that can evaluate at creation answers with results, others with `enabled`).
    package static func registration(userHandle: [UInt8]) -> RegistrationExtensionInputs {
        RegistrationExtensionInputs(credProps: true, prf: PRFInputs(eval: PRFValues(first: prfSalt(userHandle: userHandle))))
    }

    /// Login: `prf` on the user's salt when the user is named (username-first), nothing otherwise.
    package static func authentication(userHandle: [UInt8]?) -> AuthenticationExtensionInputs {
        guard let userHandle else { return AuthenticationExtensionInputs() }
        return AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: prfSalt(userHandle: userHandle))))
    }

    /// What the passkey list and the registration answer say about a credential's extensions;
    /// a property the client did not report is left out (unknown).
    package static func properties(_ record: CredentialRecord) -> [String: any Sendable] {
        var out: [String: any Sendable] = [:]
        if let discoverable = record.extensions.discoverable { out["discoverable"] = discoverable }
        if let prf = record.extensions.prfEnabled { out["prfEnabled"] = prf }
        return out
    }
}
