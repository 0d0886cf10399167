import WebAuthnCoding
import WebAuthnCrypto

/// `packed` (W3C L3 §8.2): a WebAuthn-optimized format, either with an attestation
/// certificate chain (`x5c`) or self attestation.
struct PackedAttestation: AttestationFormat {
    let identifier = "packed"
    /// Vouches for the AAGUID: sig covers authenticatorData.
    let attestsAAGUID = true

    /// OID of the FIDO AAGUID certificate extension.
    static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        try context.requireMapStatement()
        let alg = try context.algorithm()
        let sig = try context.signature()

        if context.statement[textKey: "x5c"] != nil {
            let (attestnCert, chain) = try context.certificates()
            // "Verify that sig is a valid signature over the concatenation of authenticatorData and
            // clientDataHash using the attestation public key in attestnCert with the algorithm specified in alg."
            try context.requireSignature(
                sig, over: context.signedData, key: attestnCert.publicKey, algorithm: alg,
                signer: "attestation certificate")
            // "Verify that attestnCert meets the requirements in § 8.2.1."
            try Self.checkCertificateRequirements(
                attestnCert, aaguid: context.attestedCredential.aaguid,
                format: identifier)
            // "Optionally, inspect x5c ... to determine whether attStmt conveys a Basic or AttCA
            // attestation." Without metadata the two are indistinguishable; report Basic.
            return AttestationOutcome(type: .basic, trustPath: chain)
        }

        // "If x5c is not present, self attestation is in use."
        // "Validate that alg matches the algorithm of the credentialPublicKey in authenticatorData."
        guard alg == context.credentialKey.algorithm else {
            throw context.failure("self attestation alg \(alg) differs from the credential key's \(context.credentialKey.algorithm)")
        }
        // "Verify that sig is a valid signature over the concatenation of authenticatorData and
        // clientDataHash using the credential public key with alg."
        let valid: Bool
        do {
            valid = try context.credentialKey.verify(signature: sig, over: context.signedData[...])
        } catch {
            throw context.failure("self attestation signature could not be checked: \(error)")
        }
        guard valid else { throw context.failure("self attestation signature does not verify") }
        return AttestationOutcome(type: .self, trustPath: [])
    }

    /// §8.2.1 Certificate Requirements for Packed Attestation Statements.
    static func checkCertificateRequirements(_ cert: Certificate, aaguid: AAGUID, format: String) throws(WebAuthnError) {
        // "Version MUST be set to 3 (which is indicated by an ASN.1 INTEGER with value 2)."
        guard cert.version == 3 else {
            throw AttestationContext.failure(format, "attestation certificate version is \(cert.version), not 3")
        }
        // "Subject field MUST be set to: Subject-C ISO 3166 code ..., Subject-O legal name of the
        // authenticator vendor, Subject-OU literal string “Authenticator Attestation”, Subject-CN."
        let subject = cert.subject
        guard let country = subject.country, country.utf8.count == 2,
            country.utf8.allSatisfy({ (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) })
        else {
            throw AttestationContext.failure(format, "attestation certificate subject lacks a two-letter C")
        }
        guard let organization = subject.organization, !organization.isEmpty else {
            throw AttestationContext.failure(format, "attestation certificate subject lacks O")
        }
        guard subject.organizationalUnit == "Authenticator Attestation" else {
            throw AttestationContext.failure(
                format,
                "attestation certificate subject OU is \(subject.organizationalUnit ?? "absent"), not \"Authenticator Attestation\"")
        }
        guard let commonName = subject.commonName, !commonName.isEmpty else {
            throw AttestationContext.failure(format, "attestation certificate subject lacks CN")
        }
        // "If the related attestation root certificate is used for multiple authenticator models, the
        // Extension OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid) MUST be present, containing the
        // AAGUID as a 16-byte OCTET STRING. The extension MUST NOT be marked as critical."
        // §8.2: "If attestnCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4 verify that the
        // value of this extension matches the aaguid in authenticatorData."
        if let ext = cert.extension(oid: aaguidExtensionOID) {
            try checkAAGUIDExtension(ext, aaguid: aaguid, format: format)
        }
        // "The Basic Constraints extension MUST have the CA component set to false."
        // An absent extension does not "have the CA component set to false": both are refused,
        // each with its own message.
        guard let constraints = cert.basicConstraints else {
            throw AttestationContext.failure(format, "attestation certificate has no Basic Constraints extension")
        }
        guard !constraints.isCA else {
            throw AttestationContext.failure(format, "attestation certificate Basic Constraints has CA=true")
        }
    }

    /// Checks the id-fido-gen-ce-aaguid extension: not critical, an OCTET STRING of the AAGUID.
    static func checkAAGUIDExtension(_ ext: CertificateExtension, aaguid: AAGUID, format: String) throws(WebAuthnError) {
        guard !ext.isCritical else {
            throw AttestationContext.failure(format, "the AAGUID extension is marked critical")
        }
        // The only DER encoding of a 16-byte OCTET STRING is 04 10 followed by the 16 bytes.
        let value = ext.value
        guard value.count == 18, value.first == 0x04, value.dropFirst().first == 0x10 else {
            throw AttestationContext.failure(format, "the AAGUID extension is not a 16-byte OCTET STRING")
        }
        guard value.dropFirst(2).elementsEqual(aaguid.bytes) else {
            throw AttestationContext.failure(format, "the AAGUID extension does not match authenticator data's AAGUID \(aaguid)")
        }
    }
}
