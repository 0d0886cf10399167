import WebAuthnCoding
import WebAuthnCrypto

/// `fido-u2f` (W3C L3 §8.6): attestation from FIDO U2F authenticators.
struct FIDOU2FAttestation: AttestationFormat {
    let identifier = "fido-u2f"
    /// Does not vouch for the AAGUID: the U2F signature covers rpIdHash, clientDataHash, the credential id and key, not the AAGUID.
    let attestsAAGUID = false

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        try context.requireMapStatement()
        let sig = try context.signature()
        // "Check that x5c has exactly one element and let attCert be that element."
        let (attCert, chain) = try context.certificates()
        guard chain.count == 1 else {
            throw context.failure("x5c must have exactly one certificate, has \(chain.count)")
        }
        // "Let certificate public key be the public key conveyed by attCert. If certificate public key
        // is not an Elliptic Curve (EC) public key over the P-256 curve, terminate this algorithm and
        // return an appropriate error."
        guard let certPoint = attCert.publicKey.ecCoordinates, certPoint.x.count == 32, certPoint.y.count == 32,
            attCert.publicKey.curve == .p256
        else {
            throw context.failure("attestation certificate key is \(attCert.publicKey.keyKind), not EC P-256")
        }
        // The FIDO conformance profile only (Resp-8 F-1): CTAP 2.1 ("Interoperating with CTAP1/U2F
        // authenticators") has the client write the zero AAGUID for a U2F device, and the U2F
        // signature below does not cover it. L3 §8.6 does not check it, and L3's own fido-u2f test
        // vector carries a non-zero AAGUID, so the default accepts it (and `MetadataTrust` never
        // chooses a fido-u2f entry by AAGUID).
        if context.options.fidoU2FRequiresZeroAAGUID, !context.attestedCredential.aaguid.isZero {
            throw context.failure(
                "the AAGUID is \(context.attestedCredential.aaguid.uuidString); the policy (FIDO conformance) requires "
                    + "the zero AAGUID a CTAP2 client writes for a U2F device")
        }
        // "Extract the claimed rpIdHash from authenticatorData, and the claimed credentialId and
        // credentialPublicKey from authenticatorData.attestedCredentialData."
        // "Convert the COSE_KEY formatted credentialPublicKey to Raw ANSI X9.62 public key format":
        // x and y must each be 32 bytes (checked when the COSE key was built for P-256).
        guard context.credentialKey.keyType == .ec2, context.credentialKey.curve == .p256,
            let point = context.credentialKey.ec2Coordinates, point.x.count == 32, point.y.count == 32
        else {
            throw context.failure("the credential key is not an EC2 P-256 key")
        }
        // "Let verificationData be the concatenation of (0x00 || rpIdHash || clientDataHash ||
        // credentialId || publicKeyU2F)."
        var verificationData: [UInt8] = [0x00]
        verificationData += context.authenticatorData.rpIdHash
        verificationData += context.clientDataHash
        verificationData += context.attestedCredential.credentialId
        verificationData += [0x04] + point.x + point.y
        // "Verify the sig using verificationData and the certificate public key per section 4.1.4 of
        // [SEC1] with SHA-256 as the hash function used in step two."
        try context.requireSignature(
            sig, over: verificationData, key: attCert.publicKey, algorithm: .es256,
            signer: "attestation certificate")
        // "Optionally, inspect x5c ... to determine whether attStmt conveys a Basic or AttCA attestation."
        return AttestationOutcome(type: .basic, trustPath: chain)
    }
}
