import WebAuthnCoding
import WebAuthnCrypto

/// `apple` (W3C L3 §8.8): Apple Anonymous Attestation. An Apple anonymization CA issues a
/// certificate (`credCert`) for the credential public key and binds it to this ceremony with a
/// nonce extension; there is no separate attestation signature.
struct AppleAttestation: AttestationFormat {
    let identifier = "apple"
    /// Vouches for the AAGUID: the nonce extension is SHA-256 of authenticatorData || clientDataHash.
    let attestsAAGUID = true

    /// OID of the Apple anonymous attestation nonce extension in `credCert`.
    static let nonceExtensionOID = "1.2.840.113635.100.8.2"

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        // appleStmtFormat = { x5c: [ credCert, * caCert ] }
        try context.requireMapStatement()
        let (credCert, x5c) = try context.certificates()

        // "Concatenate authenticatorData and clientDataHash to form nonceToHash."
        // "Perform SHA-256 hash of nonceToHash to produce nonce."
        let nonce = Digest.sha256.hash(context.signedData)

        // "Verify that nonce equals the value of the extension with OID 1.2.840.113635.100.8.2 in credCert."
        guard let ext = credCert.extension(oid: Self.nonceExtensionOID) else {
            throw context.failure("credCert has no nonce extension \(Self.nonceExtensionOID)")
        }
        let certifiedNonce = try Self.nonce(fromExtensionValue: ext.value, format: identifier)
        guard certifiedNonce.elementsEqual(nonce) else {
            throw context.failure("the nonce in credCert does not equal SHA-256(authenticatorData || clientDataHash)")
        }

        // "Verify that the credential public key equals the Subject Public Key of credCert."
        guard context.credentialKey.publicKey.isEqual(to: credCert.publicKey) else {
            throw context.failure("the credential public key differs from credCert's subject public key")
        }

        // "If successful, return implementation-specific values representing attestation type
        // Anonymization CA and attestation trust path x5c."
        return AttestationOutcome(type: .anonCA, trustPath: x5c)
    }

    /// Reads the nonce out of the extension value, which is the DER of
    /// `AppleAnonymousAttestation ::= SEQUENCE { nonce [1] EXPLICIT OCTET STRING }`.
    /// Strict: exactly one element, the explicit `[1]` tag, a primitive OCTET STRING of 32 bytes
    /// (a SHA-256 output), and nothing after the SEQUENCE.
    static func nonce(fromExtensionValue value: [UInt8], format: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        let elements: [DERNode]
        do {
            elements = try DER.parseSequence(value)
        } catch {
            throw AttestationContext.failure(format, "the nonce extension is not a DER SEQUENCE: \(error)")
        }
        guard elements.count == 1, let tagged = elements.first else {
            throw AttestationContext.failure(format, "the nonce extension SEQUENCE has \(elements.count) elements, expected 1")
        }
        let nonce: ArraySlice<UInt8>
        do {
            nonce = try tagged.explicitlyTagged(1).octetString()
        } catch {
            throw AttestationContext.failure(format, "the nonce extension element is not [1] EXPLICIT OCTET STRING: \(error)")
        }
        guard nonce.count == 32 else {
            throw AttestationContext.failure(format, "the nonce in credCert is \(nonce.count) bytes, expected 32")
        }
        return nonce
    }
}
