import Foundation
import WebAuthnCoding
import WebAuthnCrypto

// A stored credential re-checked against a (typically newer) BLOB, with registration's rules and
// no signature work: each statement the record kept leads to its entry as at registration
// (MetadataTrust.entry(for:)), its chain is held to the keys compromise reports name, and the
// entry's statuses are judged (MetadataTrust+StatusRules.swift). The public entry point,
// `recheck(_:at:)`, takes a `CredentialRecord` and sits with the record in Ceremonies/.

extension MetadataTrust {
    /// Re-checks what a stored credential kept of its registration (``recheck(_:at:)`` reads them
    /// from the record).
    /// - Parameters:
    ///   - aaguid: the record's AAGUID, lowercase UUID text.
    ///   - format: the attestation statement format at registration.
    ///   - type: the attestation type at registration.
    ///   - attestationObject: the attestation object, when the record kept it.
    ///   - time: the current time (for staleness).
    /// - Returns: the entry, or nil when the authenticator has none (and none is required).
    /// - Throws: ``WebAuthnError`` `metadata` when the policy now refuses the authenticator.
    func recheck(
        aaguid: String, format: String, type: AttestationType, attestationObject: [UInt8]?, at time: Date
    ) throws(WebAuthnError) -> MetadataEntry? {
        if blob.isStale(at: time), !policy.acceptStale {
            throw Self.failure("the metadata BLOB (no \(blob.number)) is past its nextUpdate day \(blob.nextUpdate)")
        }
        let compromised = compromisedKeys(at: time)
        let statements = attested(aaguid: aaguid, format: format, type: type, attestationObject: attestationObject)
        var entries: [MetadataEntry?] = []
        // Each statement as registration asked about it: a kept compound, component by component.
        for (authenticator, chain) in statements {
            try Self.refuse(chain ?? [], holding: compromised)
            guard let entry = try entry(for: authenticator) else {
                if policy.requireEntry { throw Self.failure("the credential's authenticator has no metadata entry") }
                entries.append(nil)
                continue
            }
            try check(entry, authenticator: nil, chain: chain, at: time)
            entries.append(entry)
        }
        // The entry registration reported: the first chained statement's, else the first statement's.
        let reported = statements.indices.first { statements[$0].0.type != .none && statements[$0].0.type != .self } ?? 0
        return entries.indices.contains(reported) ? entries[reported] : nil
    }

    /// The record's statements, for the lookup registration uses (``entry(for:)``: the AAGUID
    /// when the statement vouches for it, else the kept statement's `x5c[0]`), each with its
    /// chain: the kept `x5c`, none for none and self attestation, nil when not known (a chain
    /// attested without its object kept), so that a key compromise naming a certificate still
    /// refuses it. A kept `compound` object gives one per sub-statement.
    private func attested(
        aaguid text: String, format: String, type: AttestationType, attestationObject: [UInt8]?
    ) -> [(AttestedAuthenticator, [Certificate]?)] {
        // The stored object was verified at registration, but a record is storage and read as
        // untrusted: an object or chain that does not parse just adds no certificates.
        let object = attestationObject.flatMap { try? AttestationObject(bytes: $0[...]) }
        let aaguid = AAGUID(uuidString: text) ?? AAGUID.zero
        let formats = AttestationFormatTable.standard
        if let object, object.format == "compound", let items = object.statement.array {
            let statements: [(AttestedAuthenticator, [Certificate]?)] = items.prefix(CompoundAttestation.maximumStatements)
                .compactMap { item in
                    guard let fmt = item[textKey: "fmt"]?.text, let statement = item[textKey: "attStmt"] else { return nil }
                    let chain = try? AttestationContext.certificates(statement[textKey: "x5c"], format: fmt, cache: nil)
                    // Without x5c: none, packed self attestation, or a chain kept elsewhere (SafetyNet's JWS): unknown.
                    let kind: AttestationType = chain == nil && fmt == "none" ? .none : chain == nil && fmt == "packed" ? .self : .basic
                    let authenticator = AttestedAuthenticator(
                        aaguid: aaguid, format: fmt, type: kind, trustPath: chain ?? [],
                        aaguidAttested: formats.format(fmt)?.attestsAAGUID ?? false)
                    return (authenticator, chain ?? (kind == .basic ? nil : []))
                }
            // As at registration: beside a chained sub-statement, a none or self one is not looked up.
            let chained = statements.filter { $0.0.type != .none && $0.0.type != .self }
            return chained.isEmpty ? statements : chained
        }
        let kept = object.flatMap {
            try? AttestationContext.certificates($0.statement[textKey: "x5c"], format: $0.format, cache: nil)
        }
        let unchained = type == .none || type == .self
        // A compound whose object was not kept: its sub-statements are unknown, so the AAGUID, the
        // only identifier left, is looked up (its statuses still refuse), its chain unknown.
        let compound = format == "compound"
        let authenticator = AttestedAuthenticator(
            aaguid: aaguid, format: format, type: type,
            trustPath: kept ?? [], aaguidAttested: compound || (formats.format(format)?.attestsAAGUID ?? false))
        return [(authenticator, unchained ? [] : kept.flatMap { $0.isEmpty ? nil : $0 })]
    }
}
