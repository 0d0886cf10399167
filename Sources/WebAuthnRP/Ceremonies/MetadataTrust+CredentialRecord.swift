public import Foundation
import WebAuthnCoding
import WebAuthnCrypto

// The metadata re-check of a stored credential sits with the record (this folder), above the
// trust source in Policy/, so Policy does not know the registry's types.
extension MetadataTrust {
    /// Re-checks a stored credential against this (typically newer) BLOB: cheap, no
    /// signature work. Use at login, or when a new BLOB arrives, to find credentials whose
    /// authenticator has since been reported compromised.
    ///
    /// The entry is found as at registration: by the record's AAGUID, else by the key
    /// identifier of a certificate of the attestation statement's `x5c`. The second way needs
    /// the attestation object in the record (registered with `keepAttestation`); it is how
    /// fido-u2f authenticators, whose AAGUID is all zero, are listed.
    /// - Parameters:
    ///   - record: the credential's record (its ``CredentialRecord/aaguid`` and, when kept,
    ///     its ``CredentialRecord/attestationObject``).
    ///   - time: the current time (for staleness).
    /// - Returns: the entry, or nil when the authenticator has none (and none is required).
    /// - Throws: ``WebAuthnError`` `metadata` when the policy now refuses the authenticator.
    public func recheck(_ record: CredentialRecord, at time: Date) throws(WebAuthnError) -> MetadataEntry? {
        if blob.isStale(at: time), !policy.acceptStale {
            throw Self.failure("the metadata BLOB (no \(blob.number)) is past its nextUpdate day \(blob.nextUpdate)")
        }
        guard let entry = entry(for: record) else {
            if policy.requireEntry { throw Self.failure("the credential's authenticator has no metadata entry") }
            return nil
        }
        try check(entry, authenticator: nil, at: time)
        return entry
    }

    private func entry(for record: CredentialRecord) -> MetadataEntry? {
        if let aaguid = AAGUID(uuidString: record.aaguid), !aaguid.isZero, let entry = blob.entry(aaguid: aaguid) {
            return entry
        }
        // The stored object was verified at registration, but a record is storage and read as
        // untrusted: anything that does not parse just finds no entry.
        guard let bytes = record.attestationObject,
              let object = try? AttestationObject(bytes: bytes[...]),
              let x5c = object.statement[textKey: "x5c"]?.array,
              x5c.count <= AttestationContext.maximumChainCertificates else { return nil }
        for element in x5c {
            guard let der = element.bytes, let certificate = try? Certificate(derEncoded: der) else { continue }
            if let entry = blob.entry(attestationCertificate: certificate) { return entry }
        }
        return nil
    }
}
