import WebAuthnCoding

/// `none` (W3C L3 §8.7): the authenticator or client gave no attestation.
struct NoneAttestation: AttestationFormat {
    let identifier = "none"
    /// Does not vouch for the AAGUID: no signature at all.
    let attestsAAGUID = false

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        // "attStmt ... is an empty CBOR map."
        guard let entries = context.statement.mapEntries, entries.isEmpty else {
            throw context.failure("attStmt must be an empty map")
        }
        return AttestationOutcome(type: .none, trustPath: [])
    }
}
