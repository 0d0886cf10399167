package import Foundation
import WebAuthnCrypto

extension AppAttestVerifier {
    /// Verifies a key attestation (`DCAppAttestService.attestKey`), recording each step in `trace`.
    /// - Parameters:
    ///   - attestation: the attestation object the app sent (CBOR).
    ///   - keyId: the key identifier the app sent (32 bytes, decoded from its base64).
    ///   - clientDataHash: the bytes the app passed to `attestKey` (SHA-256 of the server's
    ///     one-time challenge, or the app's own bytes that commit to it), as the server recomputes them.
    ///   - time: the clock for certificate validity.
    ///   - trace: receives each step.
    /// - Returns: the key to store, with the receipt.
    /// - Throws: ``WebAuthnError``: `malformed`, `attestation`, `trust` or `rpIdHash`.
    package func verifyAttestation(
        _ attestation: [UInt8], keyId: [UInt8], clientDataHash: [UInt8],
        at time: Date, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedAppAttestation {
        let parsed = try trace.check(
            "App Attest attestation object",
            "the attestation object parses: fmt apple-appattest, attStmt {x5c, receipt}, authData"
        ) {
            () throws(WebAuthnError) in try AppAttestAttestationObject(bytes: attestation[...], certificateCache: cache?.certificates)
        }
        let authData = parsed.object.authenticatorData
        guard let credCert = parsed.certificates.first else {  // the parser requires two; never trap on it
            throw trace.fail(AppAttestStep.attestation(1), "x5c holds credCert", .attestation, "attStmt.x5c is empty")
        }

        // 1. "Verify that the x5c array contains the intermediate and leaf certificates for App Attest,
        //    starting from the credential certificate in the first data buffer in the array (credcert).
        //    Verify the validity of the certificates using Apple's App Attest root certificate."
        let chain = try trace.check(
            AppAttestStep.attestation(1),
            "x5c chains credCert → intermediate → an App Attest root at the verification time"
        ) {
            () throws(WebAuthnError) in
            do {
                return try CertificateChain.verify(
                    leaf: credCert, intermediates: Array(parsed.certificates.dropFirst()),
                    trustAnchors: trustAnchors, at: time)
            } catch {
                throw WebAuthnError(.trust, "x5c does not chain to a trusted App Attest root: \(error)")
            }
        }

        // 2. "Create clientDataHash as the SHA256 hash of the one-time challenge … and append that
        //    hash to the end of the authenticator data."  3. "Generate a new SHA256 hash of the
        //    composite item to create nonce."
        let nonce = Digest.sha256.hash(authData.rawBytes + clientDataHash)
        trace.note(AppAttestStep.attestation(2), "clientDataHash appended to authData")
        trace.note(AppAttestStep.attestation(3), "nonce = SHA-256(authData ‖ clientDataHash)")

        // 4. "Obtain the value of the credCert extension with OID 1.2.840.113635.100.8.2, which is a
        //    DER-encoded ASN.1 sequence. Decode the sequence and extract the single octet string that
        //    it contains. Verify that the string equals nonce."
        try trace.check(AppAttestStep.attestation(4), "credCert's extension 1.2.840.113635.100.8.2 holds the nonce") {
            () throws(WebAuthnError) in
            guard let ext = credCert.extension(oid: AppleAttestation.nonceExtensionOID) else {
                throw WebAuthnError(.attestation, "credCert has no nonce extension \(AppleAttestation.nonceExtensionOID)")
            }
            let certified: ArraySlice<UInt8>
            do throws(WebAuthnError) {
                certified = try AppleAttestation.nonce(fromExtensionValue: ext.value, format: AppAttestAttestationObject.format)
            } catch {
                throw WebAuthnError(.attestation, error.message)
            }
            guard certified.elementsEqual(nonce) else {
                throw WebAuthnError(.attestation, "the nonce in credCert does not equal SHA-256(authData ‖ clientDataHash)")
            }
        }

        // 5. "Create the SHA256 hash of the public key in credCert with X9.62 uncompressed point
        //    format, and verify that it matches the key identifier from your app."
        let point = try trace.check(AppAttestStep.attestation(5), "SHA-256 of credCert's public key is the key id") {
            () throws(WebAuthnError) in
            let key = credCert.publicKey
            guard key.curve == .p256, let coordinates = key.ecCoordinates else {
                throw WebAuthnError(.attestation, "credCert's key is \(key.keyKind), expected EC P-256")
            }
            let point = [0x04] + coordinates.x + coordinates.y
            guard Digest.sha256.hash(point) == keyId else {
                throw WebAuthnError(.attestation, "SHA-256 of credCert's public key differs from the key id")
            }
            return point
        }

        // 6. "Compute the SHA256 hash of your app's App ID, and verify that it's the same as the
        //    authenticator data's RP ID hash."
        try trace.check(AppAttestStep.attestation(6), "rpIdHash is SHA-256 of the App ID", detail: app.appID) {
            () throws(WebAuthnError) in
            guard authData.rpIdHash.elementsEqual(app.rpIdHash) else {
                throw WebAuthnError(.rpIdHash, "rpIdHash is not SHA-256 of \"\(app.appID)\"")
            }
        }

        // 7. "Verify that the authenticator data's counter field equals 0."
        try trace.check(AppAttestStep.attestation(7), "the counter is 0") { () throws(WebAuthnError) in
            guard authData.signCount == 0 else {
                throw WebAuthnError(.attestation, "the counter of an attestation is \(authData.signCount), expected 0")
            }
        }

        // 8. "Verify that the authenticator data's aaguid field is either appattestdevelop if
        //    operating in the development environment, or appattest followed by seven 0x00 bytes if
        //    operating in the production environment."
        try trace.check(AppAttestStep.attestation(8), "the AAGUID is the \(environment.rawValue) environment's") {
            () throws(WebAuthnError) in
            guard let attested = parsed.attested else {
                throw WebAuthnError(.attestation, "authData has no attested credential data (the AT flag is clear), so no AAGUID")
            }
            let aaguid = attested.aaguid.bytes
            guard aaguid == environment.aaguid else {
                let other = AppAttestEnvironment.allCases.first { $0.aaguid == aaguid }
                throw WebAuthnError(
                    .attestation,
                    other.map { "the AAGUID is the \($0.rawValue) environment's, expected \(environment.rawValue)" }
                        ?? "the AAGUID \(attested.aaguid) is not an App Attest environment's")
            }
        }

        // 9. "Verify that the authenticator data's credentialId field is the same as the key identifier."
        try trace.check(AppAttestStep.attestation(9), "the credential id is the key id") { () throws(WebAuthnError) in
            guard let attested = parsed.attested, attested.credentialId.elementsEqual(keyId) else {
                throw WebAuthnError(.attestation, "the credential id differs from the key id")
            }
        }

        let key = AttestedAppKey(
            keyId: keyId, publicKey: point, signCount: 0, receipt: parsed.receipt,
            environment: environment)
        return VerifiedAppAttestation(key: key, authenticatorData: authData, certificateChain: chain.certificates)
    }
}
