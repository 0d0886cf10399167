package import Foundation
package import WebAuthnCoding
import WebAuthnCrypto

/// One attestation statement format's verification procedure (§7.1 step 23) and the trust
/// assessment (steps 24-25) run on their own, without the rest of a registration.
///
/// Package access only: the fuzz targets (`WebAuthnFuzzing`) feed a hostile `attStmt` to a
/// single format through this, against a fixed authenticator data and client data hash.
/// Servers verify whole registrations with ``RegistrationVerifier``.
package enum AttestationStatementCheck {
    /// Verifies `statement` as a `format` statement over `authenticatorData` and `clientDataHash`.
    /// - Parameters:
    ///   - format: the `fmt` whose procedure runs (a format this library does not know is rejected).
    ///   - statement: the `attStmt` item.
    ///   - authenticatorData: authenticator data with attested credential data.
    ///   - clientDataHash: SHA-256 of the client data.
    ///   - policy: anchors and format choices.
    ///   - time: the clock for certificates and timestamps.
    /// - Returns: the attestation result, trust judged against the anchors of `policy.source`.
    /// - Throws: ``WebAuthnError``: `malformed` for authenticator data without a usable credential
    ///   key or a certificate that does not parse, `attestation` for a statement that does not verify.
    package static func verify(
        format: String, statement: CBORItem, authenticatorData: AuthenticatorData,
        clientDataHash: [UInt8], policy: AttestationPolicy,
        at time: Date
    ) throws(WebAuthnError) -> AttestationResult {
        guard let attested = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.malformed, "authenticator data has no attested credential data")
        }
        let key: COSEKey
        do throws(CryptoError) {
            key = try COSEKey(item: attested.credentialPublicKey)
        } catch {
            throw CeremonyChecks.coseKeyError(error, context: "credential public key")
        }
        let formats = AttestationFormatTable.standard
        guard let verifier = formats.format(format) else {
            throw WebAuthnError(.attestation, "unsupported attestation format \"\(format)\"")
        }
        let context = AttestationContext(
            format: format, statement: statement, authenticatorData: authenticatorData,
            clientDataHash: clientDataHash, credentialKey: key,
            attestedCredential: attested, options: policy.formats, allowedFormats: policy.allowedFormats,
            verificationTime: time, formats: formats)
        let outcome = try verifier.verify(context)
        let (verdict, trust) = try AttestationTrustEvaluator.assess(
            outcome, format: format, aaguid: attested.aaguid,
            policy: policy, at: time)
        return AttestationResult(format: format, outcome: outcome, verdict: verdict, authenticator: trust)
    }
}
