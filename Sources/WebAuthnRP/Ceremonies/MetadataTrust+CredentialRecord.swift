public import Foundation
import WebAuthnCoding

// The metadata re-check of a stored credential sits with the record (this folder), above the
// trust source in Policy/, so Policy does not know the registry's types.
extension MetadataTrust {
    /// Re-checks a stored credential against this (typically newer) BLOB: cheap, no
    /// signature work. Use at login, or when a new BLOB arrives, to find credentials whose
    /// authenticator has since been reported compromised.
    ///
    /// The entry is found as at registration: by the record's AAGUID, or, when it is all zero,
    /// by the key identifier of the attestation statement's `x5c[0]`. The second way needs
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
        let (authenticator, chain) = attested(record)
        guard let entry = entry(for: authenticator) else {
            if policy.requireEntry { throw Self.failure("the credential's authenticator has no metadata entry") }
            return nil
        }
        try check(entry, authenticator: nil, chain: chain, at: time)
        return entry
    }

    /// The record's authenticator, for the lookup registration uses (``entry(for:)``: its AAGUID,
    /// or, for an all-zero one, the kept attestation statement's `x5c[0]`), and its chain: the
    /// kept `x5c`, none for none and self attestation, nil when not known (a chain attested
    /// without its object kept), so that a key compromise naming a certificate still refuses it.
    private func attested(_ record: CredentialRecord) -> (AttestedAuthenticator, [Certificate]?) {
        // The stored object was verified at registration, but a record is storage and read as
        // untrusted: an object or chain that does not parse just adds no certificates.
        let object = record.attestationObject.flatMap { try? AttestationObject(bytes: $0[...]) }
        let kept = object.flatMap {
            try? AttestationContext.certificates($0.statement[textKey: "x5c"], format: $0.format, cache: nil)
        }
        let unchained = record.attestationType == .none || record.attestationType == .self
        let authenticator = AttestedAuthenticator(
            aaguid: AAGUID(uuidString: record.aaguid) ?? AAGUID.zero,
            format: record.attestationFormat, type: record.attestationType,
            trustPath: kept ?? [])
        return (authenticator, unchained ? [] : kept.flatMap { $0.isEmpty ? nil : $0 })
    }
}
