public import Foundation

// The metadata re-check of a stored credential sits with the record (this folder), above the
// trust source in Policy/, so Policy does not know the registry's types.
extension MetadataTrust {
    /// Re-checks a stored credential against this (typically newer) BLOB: cheap, no
    /// signature work. Use at login, or when a new BLOB arrives, to find credentials whose
    /// authenticator has since been reported compromised.
    /// - Parameters:
    ///   - record: the credential's record (its ``CredentialRecord/aaguid``).
    ///   - time: the current time (for staleness).
    /// - Returns: the entry, or nil when the authenticator has none (and none is required).
    /// - Throws: ``WebAuthnError`` `metadata` when the policy now refuses the authenticator.
    public func recheck(_ record: CredentialRecord, at time: Date) throws(WebAuthnError) -> MetadataEntry? {
        if blob.isStale(at: time), !policy.acceptStale {
            throw Self.failure("the metadata BLOB (no \(blob.number)) is past its nextUpdate")
        }
        guard let aaguid = AAGUID(uuidString: record.aaguid), !aaguid.isZero,
              let entry = blob.entry(aaguid: aaguid) else {
            if policy.requireEntry { throw Self.failure("the credential's authenticator has no metadata entry") }
            return nil
        }
        try check(entry, authenticator: nil, at: time)
        return entry
    }
}
