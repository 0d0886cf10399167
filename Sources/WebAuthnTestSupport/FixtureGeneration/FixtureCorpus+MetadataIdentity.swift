import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Which entry judges a statement, and which keys anchor nothing (issue 41): a `compound`
/// `[fido-u2f, none]` statement is judged by the U2F model's entry (its certificate's key
/// identifier), not by the AAGUID it does not sign; an AAGUID two entries list refuses its
/// registrations; a key any entry reports compromised refuses a chain claiming another model, and
/// anchors nothing, not even as the relying party's own anchor. Their own BLOB (no 7, nextUpdate
/// 2025-07-01) leaves the other metadata files as they were.
extension Corpus {
    func metadataIdentityFiles(mds: TestMetadataService, vendor: Auth.CA) throws -> [FixtureFile] {
        let aaguids = [
            "claimed": "4d455441-0000-4000-8000-000000000021", "duplicate": "4d455441-0000-4000-8000-000000000022",
            "leaky": "4d455441-0000-4000-8000-000000000023", "leaked-root": "4d455441-0000-4000-8000-000000000024",
            "unlisted": "4d455441-0000-4000-8000-0000000000fd",
        ]
        func aaguid(_ key: String) -> [UInt8] { AAGUID(uuidString: aaguids[key] ?? "")?.bytes ?? [] }
        func entry(_ key: String?, _ name: String, edit: (inout TestMetadataService.Entry) -> Void = { _ in }) -> [String: Any] {
            var entry = TestMetadataService.Entry(aaguid: key.flatMap { aaguids[$0] }, description: name)
            entry.roots = [vendor.certificate]
            edit(&entry)
            return entry.json
        }
        /// MDS3's key identifier of a P-256 certificate (SHA-1 of the uncompressed point),
        /// computed here, not by the verifier that looks it up.
        func keyIdentifier(_ certificate: Certificate) throws -> String {
            guard let point = certificate.publicKey.ecCoordinates else {
                throw CryptoError(.malformedCertificate, "not an EC certificate")
            }
            return Digest.sha1.hash([0x04] + point.x + point.y).map { String(format: "%02x", $0) }.joined()
        }
        let compoundPath = "metadata/identity-compound-u2f.json"
        let anyEntryPath = "metadata/identity-compromise-any-entry.json"
        let compoundU2F = Auth.Attestation.compound([.fidoU2F(ca: vendor), .none])
        /// The authenticator `tag` of a file, claiming the AAGUID `key`.
        func authenticator(_ path: String, _ tag: String, claiming key: String) throws -> TestAuthenticator {
            var made = try FixtureFile(path, "").authenticator("metadata identity \(tag)")
            made.aaguid = aaguid(key)
            return made
        }
        // The revoked U2F model's leaf, read from a compound registration of its authenticator.
        let probe = try authenticator(compoundPath, "revoked u2f", claiming: "claimed").register(
            challenge: [1, 2, 3], .init(attestation: compoundU2F))
        guard
            let leafDER = (try? CBOR.decode(probe.attestationObject))?[textKey: "attStmt"]?.array?.first?[textKey: "attStmt"]?[
                textKey: "x5c"]?.array?.first?.bytes,
            let u2fLeaf = try? Certificate(derEncoded: leafDER)
        else { throw CryptoError(.malformedCertificate, "the compound probe has no fido-u2f leaf") }
        // A packed attestation key that leaked, reported by the "Leaky" model's entry; its
        // certificate binds the claimed model's AAGUID.
        let leakedKey = try PrivateKey.derive(.p256, seed: "fixture metadata identity leaked key")
        let leakedLeaf = try TestAuthenticator.packedLeaf(key: leakedKey, ca: vendor, aaguid: aaguid("claimed"))
        // A root the relying party pins itself (policy.trustAnchors), whose key an entry reports leaked.
        let pinned = try Auth.CA.make(name: "Relying Party Pinned Root", seed: "fixture metadata identity pinned")
        let compromise = TestMetadataService.Status("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2025-01-15")
        let payload = try TestMetadataService.payload(
            entries: [
                entry("claimed", "Claimed Model Test Key"),
                entry(nil, "Revoked U2F Test Key") {
                    $0.keyIdentifiers = [(try? keyIdentifier(u2fLeaf)) ?? ""]
                    $0.protocolFamily = "u2f"
                    $0.statuses.append(.init("REVOKED", effectiveDate: "2025-02-01"))
                },
                entry("duplicate", "Duplicate Test Key"),
                entry("leaky", "Leaky Test Key") {
                    $0.statuses.append(.init(compromise.status, effectiveDate: compromise.effectiveDate, certificate: leakedLeaf))
                },
                entry("leaked-root", "Leaked Root Test Key") {
                    $0.roots = []
                    $0.statuses.append(.init(compromise.status, effectiveDate: compromise.effectiveDate, certificate: pinned.certificate))
                },
                entry("duplicate", "Duplicate Test Key, listed again") {
                    $0.statuses.append(.init("REVOKED", effectiveDate: "2025-02-01"))
                },
            ], number: 7, nextUpdate: "2025-07-01")
        let member = Self.metadataPolicy(try mds.blob(payload: payload), anchor: mds.root.certificate, crls: [], requireEntry: false)
        let trusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: true)
        let unnamed: [(String, FixtureValue)] = [("authenticatorName", .null), ("metadataStatus", .null)]
        func expect(_ file: inout FixtureFile, _ members: [(String, FixtureValue)]) {
            file.editLastCeremony { $0.edit("expect") { expect in for (key, value) in members { expect.set(key, value) } } }
        }

        var compound = FixtureFile(
            compoundPath,
            "FIDO metadata and compound [fido-u2f, none] claiming a listed model's AAGUID: the U2F statement "
                + "signs no AAGUID, so its entry is found by its certificate's key identifier: a revoked U2F model "
                + "is refused (metadata), an unlisted one is accepted untrusted and unnamed, never trusted under "
                + "the claimed model's name")
        compound.policyMembers = [member]
        try compound.register(
            "revoked-u2f-model-claiming-another-aaguid", try authenticator(compoundPath, "revoked u2f", claiming: "claimed"),
            options: .init(attestation: compoundU2F), .reject(.metadata))
        try compound.register(
            "unlisted-u2f-model-claiming-another-aaguid", try authenticator(compoundPath, "unlisted u2f", claiming: "claimed"),
            options: .init(attestation: compoundU2F), .attested(format: "compound", type: .basic, trusted: false))
        expect(&compound, unnamed)

        var duplicate = FixtureFile(
            "metadata/identity-duplicate-aaguid.json",
            "FIDO metadata listing one AAGUID in two entries (the second REVOKED): the AAGUID names no entry "
                + "and its registrations are refused (metadata); another model of the BLOB is trusted")
        duplicate.policyMembers = [member]
        try duplicate.register(
            "register-duplicated-aaguid", try authenticator(duplicate.path, "duplicate", claiming: "duplicate"),
            options: .init(attestation: .packed(ca: vendor)), .reject(.metadata))
        try duplicate.register(
            "register-other-model", try authenticator(duplicate.path, "claimed", claiming: "claimed"),
            options: .init(attestation: .packed(ca: vendor)), trusted)
        Self.addMetadataExpectation(&duplicate, name: "Claimed Model Test Key", status: "FIDO_CERTIFIED_L1")

        var anyEntry = FixtureFile(
            anyEntryPath,
            "FIDO metadata where one model's entry reports an attestation certificate compromised "
                + "(ATTESTATION_KEY_COMPROMISE naming it): a chain holding that key is refused (metadata) though "
                + "it claims another, clean model; the same model's other chains are trusted")
        anyEntry.policyMembers = [member]
        try anyEntry.register(
            "leaked-key-claiming-another-model", try authenticator(anyEntryPath, "leaked", claiming: "claimed"),
            options: .init(attestation: .packedChain(leafKey: leakedKey, chain: [leakedLeaf], alg: .es256)), .reject(.metadata))
        try anyEntry.register(
            "another-batch-of-that-model", try authenticator(anyEntryPath, "clean", claiming: "claimed"),
            options: .init(attestation: .packed(ca: vendor)), trusted)

        var anchor = FixtureFile(
            "metadata/identity-compromised-anchor.json",
            "FIDO metadata reporting the key of a root the relying party also trusts itself (policy.trustAnchors) "
                + "compromised, with trust required: a chain of an unlisted model ending in that root is refused "
                + "(trust), the report counting wherever the anchor came from")
        anchor.policyMembers = [member]
        anchor.trustAnchors = [pinned.certificate]
        anchor.requireTrustedAttestation = true
        try anchor.register(
            "chain-to-the-pinned-leaked-root", try authenticator(anchor.path, "pinned", claiming: "unlisted"),
            options: .init(attestation: .packed(ca: pinned)), .reject(.trust))
        return [compound, duplicate, anyEntry, anchor]
    }
}
