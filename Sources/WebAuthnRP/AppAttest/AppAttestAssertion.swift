import WebAuthnCrypto

extension AppAttestVerifier {
    /// Verifies an assertion (`DCAppAttestService.generateAssertion`) against a stored key,
    /// recording each step in `trace`.
    ///
    /// Apple's step 6 (the challenge embedded in the client data) belongs to the app's own
    /// protocol: ``AppAttestService`` runs the caller's ``AppAttestClientDataCheck``.
    /// - Parameters:
    ///   - assertion: the assertion the app sent (CBOR `{signature, authenticatorData}`).
    ///   - clientData: the bytes whose SHA-256 the app passed to `generateAssertion`.
    ///   - key: the stored key.
    ///   - trace: receives each step.
    /// - Returns: the key with its new counter (not stored).
    /// - Throws: ``WebAuthnError``: `malformed`, `signature`, `rpIdHash` or `signCount`;
    ///   `attestation` when the key was attested in the other ``AppAttestEnvironment``.
    package func verifyAssertion(
        _ assertion: [UInt8], clientData: [UInt8], key: AttestedAppKey,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedAppAssertion {
        let parsed = try trace.check("App Attest assertion object", "the assertion parses: {signature, authenticatorData}") {
            () throws(WebAuthnError) in try AppAttestAssertionObject(bytes: assertion[...])
        }
        let authData = parsed.authenticatorData

        // Not one of Apple's steps: a key attested in the other environment (a development build's
        // key in a store shared with a development server) was never this verifier's to accept, as
        // attestation step 8 would have refused it here.
        try trace.check(
            "App Attest key", "the key was attested in the \(environment.rawValue) environment",
            detail: key.environment.rawValue
        ) { () throws(WebAuthnError) in
            guard key.environment == environment else {
                throw WebAuthnError(
                    .attestation,
                    "the key was attested in the \(key.environment.rawValue) environment, "
                        + "this verifier accepts \(environment.rawValue)")
            }
        }

        // 1. "Compute clientDataHash as the SHA256 hash of clientData."
        // 2. "Concatenate authenticatorData and clientDataHash, and apply a SHA256 hash over the
        //    result to form nonce."
        let nonce = Digest.sha256.hash(authData.rawBytes + Digest.sha256.hash(clientData))
        trace.note(AppAttestStep.assertion(1), "clientDataHash = SHA-256(clientData)")
        trace.note(AppAttestStep.assertion(2), "nonce = SHA-256(authenticatorData ‖ clientDataHash)")

        // 3. "Use the public key that you store from the attestation object to verify that the
        //    assertion's signature is valid for nonce."
        try trace.check(AppAttestStep.assertion(3), "the signature over nonce verifies with the stored key (ES256)") {
            () throws(WebAuthnError) in
            let publicKey = try VerificationCache.p256Key(key.publicKey, cache: cache)
            let valid: Bool
            do {
                valid = try publicKey.verify(signature: parsed.signature, over: nonce[...], algorithm: .es256)
            } catch {
                throw WebAuthnError(.signature, "the signature could not be checked: \(error)")
            }
            guard valid else { throw WebAuthnError(.signature, "the signature does not verify over the nonce") }
        }

        // 4. "Compute the SHA256 hash of the client's App ID, and verify that it matches the RP ID in
        //    the authenticator data."
        try trace.check(AppAttestStep.assertion(4), "rpIdHash is SHA-256 of the App ID", detail: app.appID) {
            () throws(WebAuthnError) in
            guard authData.rpIdHash.elementsEqual(app.rpIdHash) else {
                throw WebAuthnError(.rpIdHash, "rpIdHash is not SHA-256 of \"\(app.appID)\"")
            }
        }

        // 5. "Verify that the authenticator data's counter value is greater than the value from the
        //    previous assertion, or greater than 0 on the first assertion."
        try trace.check(
            AppAttestStep.assertion(5), "the counter is greater than the stored one",
            detail: "stored \(key.signCount), received \(authData.signCount)"
        ) { () throws(WebAuthnError) in
            guard authData.signCount > key.signCount else {
                throw WebAuthnError(.signCount, "the counter \(authData.signCount) is not greater than the stored \(key.signCount)")
            }
        }

        var updated = key
        updated.signCount = authData.signCount
        return VerifiedAppAssertion(updatedKey: updated, authenticatorData: authData)
    }
}
