import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

extension Corpus {
    /// Registrations judged with FIDO metadata (`policy.metadata`, issue 15): a test MDS3 BLOB
    /// signed under a test root, and BLOBs that must be refused (bad signature, wrong root,
    /// expired or revoked signer), each with ceremonies made by the test authenticator.
    func metadataFiles() throws -> [FixtureFile] {
        let mds = try TestMetadataService.make(seed: "fixture metadata")
        let vendor = try Auth.CA.make(name: "Metadata Vendor Root", seed: "fixture metadata vendor")
        let aaguids = [
            "listed": "4d455441-0000-4000-8000-000000000001", "revoked": "4d455441-0000-4000-8000-000000000002",
            "bypass": "4d455441-0000-4000-8000-000000000003", "attca-only": "4d455441-0000-4000-8000-000000000004",
            "other-roots": "4d455441-0000-4000-8000-000000000005", "unlisted": "4d455441-0000-4000-8000-0000000000ff",
        ]
        func aaguid(_ key: String) -> String { aaguids[key] ?? "" }
        func entry(_ key: String, _ name: String, edit: (inout TestMetadataService.Entry) -> Void = { _ in }) -> [String: Any] {
            var entry = TestMetadataService.Entry(aaguid: aaguid(key), description: name)
            entry.roots = [vendor.certificate]
            entry.attestationTypes = ["basic_full", "basic_surrogate"]
            edit(&entry)
            return entry.json
        }
        // The fido-u2f authenticator's leaf key identifier, read from one of its registrations.
        var u2f = try TestAuthenticator(credentialId: Digest.sha256.hash(Array("metadata u2f".utf8)), seed: "fixture metadata u2f")
        u2f.aaguid = [UInt8](repeating: 0, count: 16)
        let probe = try u2f.register(challenge: [1, 2, 3], .init(attestation: .fidoU2F(ca: vendor)))
        guard let leafDER = (try? CBOR.decode(probe.attestationObject))?[textKey: "attStmt"]?[textKey: "x5c"]?.array?.first?.bytes,
            let leaf = try? Certificate(derEncoded: leafDER), let point = leaf.publicKey.ecCoordinates
        else {
            throw CryptoError(.malformedCertificate, "the u2f probe has no leaf")
        }
        // MDS3's key identifier (RFC 5280 §4.2.1.2 method 1): SHA-1 of the subjectPublicKey bits,
        // for the u2f leaf's P-256 key the uncompressed point; computed here, not by the verifier
        // that looks it up.
        let keyIdentifier = Digest.sha1.hash([0x04] + point.x + point.y).map { String(format: "%02x", $0) }.joined()
        let entries: [[String: Any]] = [
            entry("listed", "Metadata Test Key"),
            entry("revoked", "Revoked Test Key") {
                $0.statuses = [.init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init("REVOKED", effectiveDate: "2025-02-01")]
            },
            entry("bypass", "Bypassed Test Key") {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L2", effectiveDate: "2023-01-01"),
                    .init("USER_VERIFICATION_BYPASS", effectiveDate: "2025-03-01"),
                ]
            },
            entry("attca-only", "AttCA Test Key") { $0.attestationTypes = ["attca"] },
            entry("other-roots", "Other Roots Test Key") { $0.roots = [self.rogueCA.certificate] },
            {
                var entry = TestMetadataService.Entry(aaguid: nil, description: "Metadata Test U2F Key")
                entry.keyIdentifiers = [keyIdentifier]
                entry.roots = [vendor.certificate]
                entry.protocolFamily = "u2f"
                return entry.json
            }(),
        ]
        let payload = try TestMetadataService.payload(entries: entries)
        let blob = try mds.blob(payload: payload)

        let root = mds.root.certificate
        func metadataMember(
            _ blob: String, anchor: Certificate? = nil, crls: [CertificateRevocationList] = [],
            requireEntry: Bool = false
        ) -> (String, FixtureValue) {
            Self.metadataPolicy(blob, anchor: anchor ?? root, crls: crls, requireEntry: requireEntry)
        }
        func authenticator(_ file: FixtureFile, _ key: String, tag: String = "") throws -> TestAuthenticator {
            var made = try file.authenticator("metadata \(key)\(tag)")
            made.aaguid = AAGUID(uuidString: aaguid(key))?.bytes ?? []
            return made
        }
        func expectMetadata(_ file: inout FixtureFile, name: String, status: String) {
            Self.addMetadataExpectation(&file, name: name, status: status)
        }
        let trusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: true)

        var judged = FixtureFile(
            "metadata/judged-by-entry.json",
            "Registration with FIDO metadata (a test MDS3 BLOB, ES256, chain under a test root): each "
                + "authenticator is trusted through its own entry's roots and named by it; a REVOKED or "
                + "USER_VERIFICATION_BYPASS latest status and an attestation type the statement does not "
                + "declare (android-key against an AttCA-only entry) are refused (metadata); a packed x5c "
                + "statement, Basic or AttCA, fits the AttCA-only entry; fido-u2f is found by its certificate's key identifier; "
                + "an unlisted authenticator is accepted untrusted; another entry's roots do not anchor it")
        judged.policyMembers = [metadataMember(blob)]
        try judged.register(
            "register-listed", try authenticator(judged, "listed"), options: .init(attestation: .packed(ca: vendor)), trusted)
        expectMetadata(&judged, name: "Metadata Test Key", status: "FIDO_CERTIFIED_L1")
        try judged.register(
            "register-listed-self", try authenticator(judged, "listed", tag: " self"), options: .init(attestation: .packedSelf),
            .attested(format: "packed", type: .self, trusted: false))
        expectMetadata(&judged, name: "Metadata Test Key", status: "FIDO_CERTIFIED_L1")
        try judged.register(
            "register-revoked", try authenticator(judged, "revoked"), options: .init(attestation: .packed(ca: vendor)),
            .reject(.metadata))
        try judged.register(
            "register-user-verification-bypass", try authenticator(judged, "bypass"),
            options: .init(attestation: .packed(ca: vendor)), .reject(.metadata))
        // android-key verifies as Basic only (§8.4): an entry declaring only AttCA refuses it.
        try judged.register(
            "register-undeclared-attestation-type", try authenticator(judged, "attca-only"),
            options: .init(attestation: .androidKey(ca: vendor)), .reject(.metadata))
        // packed x5c is "Basic, AttCA or uncertainty" (§8.2): the entry's AttCA declaration fits.
        try judged.register(
            "register-packed-x5c-entry-declares-attca", try authenticator(judged, "attca-only", tag: " packed"),
            options: .init(attestation: .packed(ca: vendor)), trusted)
        expectMetadata(&judged, name: "AttCA Test Key", status: "FIDO_CERTIFIED_L1")
        try judged.register(
            "register-roots-of-another-vendor", try authenticator(judged, "other-roots"),
            options: .init(attestation: .packed(ca: vendor)), .attested(format: "packed", type: .basic, trusted: false))
        expectMetadata(&judged, name: "Other Roots Test Key", status: "FIDO_CERTIFIED_L1")
        try judged.register(
            "register-unlisted", try authenticator(judged, "unlisted"), options: .init(attestation: .packed(ca: vendor)),
            .attested(format: "packed", type: .basic, trusted: false))
        try judged.register(
            "register-u2f-by-key-identifier", u2f, options: .init(attestation: .fidoU2F(ca: vendor)),
            .attested(format: "fido-u2f", type: .basic, trusted: true))
        expectMetadata(&judged, name: "Metadata Test U2F Key", status: "FIDO_CERTIFIED_L1")

        var required = FixtureFile(
            "metadata/require-entry-and-trust.json",
            "Registration with FIDO metadata, requireEntry and requireTrustedAttestation: an unlisted "
                + "authenticator is refused (metadata); a listed one whose chain does not end in its entry's "
                + "roots is refused (trust); a listed one chaining to its roots is accepted")
        required.requireTrustedAttestation = true
        required.policyMembers = [metadataMember(blob, requireEntry: true)]
        try required.register(
            "register-unlisted", try authenticator(required, "unlisted"),
            options: .init(attestation: .packed(ca: vendor)), .reject(.metadata))
        try required.register(
            "register-roots-of-another-vendor", try authenticator(required, "other-roots"),
            options: .init(attestation: .packed(ca: vendor)), .reject(.trust))
        try required.register(
            "register-listed", try authenticator(required, "listed"), options: .init(attestation: .packed(ca: vendor)),
            trusted)
        expectMetadata(&required, name: "Metadata Test Key", status: "FIDO_CERTIFIED_L1")

        // BLOBs that must not be used: every registration is refused with metadata.
        let start = TestMetadataService.reference, end = start.addingTimeInterval(86_400 * 365)
        let other = try TestMetadataService.make(seed: "fixture metadata other root")
        let expired = try TestMetadataService.make(seed: "fixture metadata", signerNotAfter: start.addingTimeInterval(86_400 * 59))
        let revokingCRL = try TestMetadataService.crl(
            issuer: mds.intermediate, revokedSerials: [[0x03]], thisUpdate: start, nextUpdate: end)
        let cleanCRL = try TestMetadataService.crl(issuer: mds.intermediate, revokedSerials: [[0x09]], thisUpdate: start, nextUpdate: end)
        let rootCRL = try TestMetadataService.crl(issuer: mds.root, revokedSerials: [], thisUpdate: start, nextUpdate: end)
        let refused: [RefusedBLOB] = [
            RefusedBLOB(
                stem: "bad-signature", what: "signed by a key that is not the x5c leaf's",
                member: metadataMember(
                    try mds.blob(
                        payload: payload,
                        signingKey: try PrivateKey.derive(.p256, seed: "fixture metadata forger")))),
            RefusedBLOB(
                stem: "wrong-root", what: "whose chain does not end in the given trust anchor",
                member: metadataMember(blob, anchor: other.root.certificate)),
            RefusedBLOB(
                stem: "expired-signer", what: "whose signing certificate expired before verificationTime",
                member: metadataMember(try expired.blob(payload: payload))),
            RefusedBLOB(
                stem: "revoked-signer", what: "whose signing certificate is listed in the intermediate's CRL",
                member: metadataMember(blob, crls: [revokingCRL, rootCRL])),
        ]
        var files = [judged, required]
        for item in refused {
            let (stem, what, member) = (item.stem, item.what, item.member)
            var file = FixtureFile(
                "metadata/blob-\(stem).json",
                "Registration with a FIDO metadata BLOB \(what): the BLOB is refused, so is every registration (metadata)")
            file.policyMembers = [member]
            try file.register(
                "register-listed", try authenticator(file, "listed"), options: .init(attestation: .packed(ca: vendor)),
                .reject(.metadata))
            try file.register("register-none", try authenticator(file, "unlisted"), attestation: "none", .reject(.metadata))
            files.append(file)
        }
        var clean = FixtureFile(
            "metadata/blob-crls-clean.json",
            "Registration with a FIDO metadata BLOB and CRLs for its root and intermediate that list "
                + "other serials: the BLOB verifies")
        clean.policyMembers = [metadataMember(blob, crls: [cleanCRL, rootCRL])]
        try clean.register("register-listed", try authenticator(clean, "listed"), options: .init(attestation: .packed(ca: vendor)), trusted)
        expectMetadata(&clean, name: "Metadata Test Key", status: "FIDO_CERTIFIED_L1")
        files.append(clean)
        files += try metadataPolicyFiles(mds: mds, vendor: vendor)
        return files
    }

    /// A BLOB every registration must be refused with.
    struct RefusedBLOB {
        let stem: String
        let what: String
        let member: (String, FixtureValue)
    }

    /// The `policy.metadata` member.
    static func metadataPolicy(
        _ blob: String, anchor: Certificate, crls: [CertificateRevocationList],
        requireEntry: Bool
    ) -> (String, FixtureValue) {
        var members: [(String, FixtureValue)] = [("blob", .string(blob)), ("trustAnchor", .bytes(anchor.derBytes))]
        if !crls.isEmpty { members.append(("crls", .array(crls.map { FixtureValue.bytes($0.derBytes) }))) }
        members.append(("requireEntry", .bool(requireEntry)))
        return ("metadata", .object(members))
    }

    /// Adds `authenticatorName` and `metadataStatus` to the expectation of the ceremony recorded last.
    static func addMetadataExpectation(_ file: inout FixtureFile, name: String, status: String) {
        file.editLastCeremony { ceremony in
            guard case .object(var members) = ceremony,
                let index = members.firstIndex(where: { $0.0 == "expect" }),
                case .object(var expect) = members[index].1
            else { return }
            expect.append(("authenticatorName", FixtureValue.string(name)))
            expect.append(("metadataStatus", FixtureValue.string(status)))
            members[index].1 = .object(expect)
            ceremony = .object(members)
        }
    }
}
