public import Foundation
public import WebAuthnCrypto

extension MetadataTrust {
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
}
