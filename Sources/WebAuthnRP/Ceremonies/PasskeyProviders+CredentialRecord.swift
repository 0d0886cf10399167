// The name of a stored credential's provider sits with the record (this folder), above the
// list in Metadata/ and the trust source in Policy/.
extension PasskeyProviders {
    /// The name to show for a stored credential: the FIDO metadata statement's description
    /// when `metadata` has an entry for the record's AAGUID, else this list's name.
    /// - Parameters:
    ///   - record: the credential.
    ///   - metadata: the configured FIDO metadata, if any.
    /// - Returns: the name, or nil when neither knows the authenticator.
    public func name(for record: CredentialRecord, metadata: MetadataTrust? = nil) -> String? {
        guard let aaguid = AAGUID(uuidString: record.aaguid), !aaguid.isZero else { return nil }
        return metadata?.blob.entry(aaguid: aaguid)?.name ?? names[aaguid]
    }
}
