public import Foundation
public import WebAuthnCrypto

// The metadata source's decision for one statement, in order: the BLOB's freshness, the keys
// compromise reports name (CompromisedKeys.swift), the one entry the statement leads to, that
// entry's statuses and declared types (MetadataTrust+StatusRules.swift), then its roots as the
// anchors the evaluator judges the path against (AttestationTrustEvaluator.swift).

/// Trust from the FIDO Metadata Service: each authenticator's chain is judged against the
/// attestation roots of its own metadata entry, and its statuses can refuse it.
///
/// Used as the source of an ``AttestationPolicy``:
/// ```swift
/// let blob = try MetadataBLOB(jws: downloaded, trustAnchor: root, at: Date())
/// let attestation = AttestationPolicy(source: MetadataTrust(blob: blob), chain: .required)
/// ```
/// For each statement of a registration (W3C L3 §7.1 step 24; a compound's sub-statements one
/// by one): the entry is found by AAGUID when the statement's signature covers it, otherwise
/// (fido-u2f; an all-zero AAGUID) by the key identifier of its attestation certificate
/// (`x5c[0]`); an identifier two entries list refuses the registration; a chain holding a key
/// that any entry reports compromised is refused; statuses and certification are checked
/// against its `policy`; the attestation
/// type must be one the statement declares (`basic_full` for Basic, `basic_surrogate` for
/// self, `attca` for AttCA, `anonca` for AnonCA; a `packed` or `fido-u2f` x5c statement, which
/// the spec leaves as "Basic, AttCA or uncertainty", fits any of `basic_full`, `attca` and
/// `anonca`; a `none` statement is not checked, since the client may strip any attestation);
/// the statement's attestation root certificates become the
/// anchors for that authenticator alone, together with its `additionalAnchors`, and no path
/// through a compromised key is trusted, whichever anchor it ends in.
public struct MetadataTrust: AttestationTrustSource {
    /// The verified BLOB.
    var blob: MetadataBLOB
    /// What is accepted.
    var policy: MetadataPolicy
    /// Anchors that count for every authenticator besides its entry's roots (default none).
    var additionalAnchors: [Certificate]

    /// Creates the source.
    /// - Parameters:
    ///   - blob: a verified BLOB.
    ///   - policy: what is accepted (default: the safe defaults).
    ///   - additionalAnchors: anchors for every authenticator, besides the entry's roots. One
    ///     whose key a compromise report of the BLOB names anchors nothing, as an entry root would not.
    public init(blob: MetadataBLOB, policy: MetadataPolicy = MetadataPolicy(), additionalAnchors: [Certificate] = []) {
        self.blob = blob
        self.policy = policy
        self.additionalAnchors = additionalAnchors
    }

    /// Trust from unsigned MDS3 metadata statements (the JSON files a vendor publishes, or the
    /// FIDO conformance tool hands a server), judged exactly as entries of a BLOB: found by
    /// AAGUID or, for fido-u2f, by the attestation certificate's key identifier; the declared
    /// `attestationTypes` and the `statusReports` a statement carries are checked against
    /// `policy`; its `attestationRootCertificates` are that authenticator's anchors.
    ///
    /// Nothing vouches for an unsigned statement but whoever gave it: load only statements from a
    /// source you trust as you would trust its roots. They have no `nextUpdate`, so they are
    /// never stale.
    /// - Parameters:
    ///   - statements: each statement's JSON, which must name an `aaguid` or
    ///     `attestationCertificateKeyIdentifiers` and carry `attestationTypes` and
    ///     `attestationRootCertificates` (base64 DER); descriptive members that do not read are
    ///     left empty.
    ///   - policy: what is accepted (default: the safe defaults).
    ///   - additionalAnchors: anchors for every authenticator, besides the statement's roots.
    /// - Throws: ``WebAuthnError`` `metadata` for a statement that does not read.
    public init(
        statements: [Data], policy: MetadataPolicy = MetadataPolicy(), additionalAnchors: [Certificate] = []
    ) throws(WebAuthnError) {
        self.init(blob: try MetadataBLOB(statements: statements.map { Array($0) }), policy: policy, additionalAnchors: additionalAnchors)
    }

    static func failure(_ message: String) -> WebAuthnError {
        WebAuthnError(.metadata, step: "§7.1 step 24", message)
    }

    /// Finds the authenticator's entry, applies the policy, and returns its roots as anchors.
    /// - Throws: ``WebAuthnError`` `metadata` when the policy refuses the authenticator.
    public func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
        let stale = blob.isStale(at: time)
        if stale, !policy.acceptStale {
            throw Self.failure(
                "the metadata BLOB (no \(blob.number)) was due for replacement by the end of its nextUpdate day "
                    + "\(blob.nextUpdate) and the policy does not accept stale metadata")
        }
        // A leaked key is refused whichever entry reports it and whichever model the chain claims.
        let compromised = compromisedKeys(at: time)
        try Self.refuse(authenticator.trustPath, holding: compromised)
        guard let entry = try entry(for: authenticator) else {
            if policy.requireEntry {
                throw Self.failure(
                    "authenticator \(authenticator.aaguid.uuidString) (\(authenticator.format)) has no metadata entry "
                        + "and the policy requires one")
            }
            return AuthenticatorTrust(anchors: additionalAnchors, metadataStale: stale, compromisedKeys: compromised)
        }
        try check(entry, authenticator: authenticator, chain: authenticator.trustPath, at: time)
        var anchors = additionalAnchors
        for der in entry.statement?.attestationRootCertificates ?? [] {
            // A root that does not parse cannot anchor anything; the others still count. One whose
            // key a compromise report names is judged with every other anchor: no path through it
            // is trusted (``AttestationTrustEvaluator``).
            if let certificate = try? Certificate(derEncoded: der) {
                anchors.append(certificate)
            }
        }
        return AuthenticatorTrust(
            anchors: anchors, authenticatorName: entry.name, metadata: entry, metadataStale: stale,
            compromisedKeys: compromised)
    }

    /// The entry for a statement: chosen only by an identifier the statement vouches for.
    ///
    /// By the AAGUID when it is not all zero and the statement vouches for it
    /// (``AttestedAuthenticator/aaguidAttested``: its signature covers the authenticator data),
    /// or when the statement has no chain to judge (none, self: the entry then decides status
    /// and name only). Otherwise (a `fido-u2f` statement, also inside `compound`; an all-zero
    /// AAGUID) by the key identifier of its attestation certificate (`x5c[0]`) alone, never by
    /// the AAGUID, which nothing signed.
    ///
    /// A certificate further along the path never chooses the entry: anyone can append a
    /// public certificate that the BLOB lists, and the entry supplies status, declared types,
    /// trust anchors and the name reported.
    /// - Parameter authenticator: the attested authenticator.
    /// - Returns: its entry, or nil when the BLOB has none for it.
    /// - Throws: ``WebAuthnError`` `metadata` when the BLOB lists the identifier in more than one entry.
    func entry(for authenticator: AttestedAuthenticator) throws(WebAuthnError) -> MetadataEntry? {
        let unchained = authenticator.type == .none || authenticator.type == .self
        if !authenticator.aaguid.isZero, authenticator.aaguidAttested || unchained {
            return try blob.uniqueEntry(aaguid: authenticator.aaguid)
        }
        guard let attestationCertificate = authenticator.trustPath.first else { return nil }
        return try blob.uniqueEntry(attestationCertificate: attestationCertificate)
    }
}
