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
        let trusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: true)
        let untrusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: false)
        /// Registers the authenticator `key` with `attestation` (packed under the vendor CA unless
        /// given); `entry` names the metadata entry (status FIDO_CERTIFIED_L1) the verdict reports.
        func register(
            _ file: inout FixtureFile, _ name: String, _ key: String, tag: String = "", attestation: Auth.Attestation? = nil,
            _ verdict: FixtureFile.Verdict, entry: String? = nil
        ) throws {
            try file.register(
                name, try authenticator(file, key, tag: tag), options: .init(attestation: attestation ?? .packed(ca: vendor)), verdict)
            if let entry { Self.addMetadataExpectation(&file, name: entry, status: "FIDO_CERTIFIED_L1") }
        }

        var judged = FixtureFile(
            "metadata/judged-by-entry.json",
            "Registration with FIDO metadata (a test MDS3 BLOB, ES256, chain under a test root): each "
                + "authenticator is trusted through its own entry's roots and named by it; a REVOKED or "
                + "USER_VERIFICATION_BYPASS latest status and an attestation type the statement does not "
                + "declare (android-key against an AttCA-only entry) are refused (metadata); a packed x5c "
                + "statement, Basic or AttCA, fits the AttCA-only entry; fido-u2f is found by its certificate's key identifier; "
                + "an unlisted authenticator is accepted untrusted; another entry's roots do not anchor it")
        judged.policyMembers = [metadataMember(blob)]
        try register(&judged, "register-listed", "listed", trusted, entry: "Metadata Test Key")
        try register(
            &judged, "register-listed-self", "listed", tag: " self", attestation: .packedSelf,
            .attested(format: "packed", type: .self, trusted: false), entry: "Metadata Test Key")
        try register(&judged, "register-revoked", "revoked", .reject(.metadata))
        try register(&judged, "register-user-verification-bypass", "bypass", .reject(.metadata))
        // android-key verifies as Basic only (§8.4): an entry declaring only AttCA refuses it.
        try register(
            &judged, "register-undeclared-attestation-type", "attca-only", attestation: .androidKey(ca: vendor), .reject(.metadata))
        // packed x5c is "Basic, AttCA or uncertainty" (§8.2): the entry's AttCA declaration fits.
        try register(&judged, "register-packed-x5c-entry-declares-attca", "attca-only", tag: " packed", trusted, entry: "AttCA Test Key")
        try register(&judged, "register-roots-of-another-vendor", "other-roots", untrusted, entry: "Other Roots Test Key")
        try register(&judged, "register-unlisted", "unlisted", untrusted)
        try judged.register(
            "register-u2f-by-key-identifier", u2f, options: .init(attestation: .fidoU2F(ca: vendor)),
            .attested(format: "fido-u2f", type: .basic, trusted: true))
        Self.addMetadataExpectation(&judged, name: "Metadata Test U2F Key", status: "FIDO_CERTIFIED_L1")

        var required = FixtureFile(
            "metadata/require-entry-and-trust.json",
            "Registration with FIDO metadata, requireEntry and requireTrustedAttestation: an unlisted "
                + "authenticator is refused (metadata); a listed one whose chain does not end in its entry's "
                + "roots is refused (trust); a listed one chaining to its roots is accepted")
        required.requireTrustedAttestation = true
        required.policyMembers = [metadataMember(blob, requireEntry: true)]
        try register(&required, "register-unlisted", "unlisted", .reject(.metadata))
        try register(&required, "register-roots-of-another-vendor", "other-roots", .reject(.trust))
        try register(&required, "register-listed", "listed", trusted, entry: "Metadata Test Key")

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
            files.append(
                try Self.refusedBLOBFile(
                    "metadata/blob-\(item.stem).json",
                    "Registration with a FIDO metadata BLOB \(item.what): the BLOB is refused, so is every registration (metadata)",
                    member: item.member, listed: ("register-listed", "listed"), vendor: vendor,
                    authenticator: { try authenticator($0, $1) }))
        }
        var clean = FixtureFile(
            "metadata/blob-crls-clean.json",
            "Registration with a FIDO metadata BLOB and CRLs for its root and intermediate that list "
                + "other serials: the BLOB verifies")
        clean.policyMembers = [metadataMember(blob, crls: [cleanCRL, rootCRL])]
        try register(&clean, "register-listed", "listed", trusted, entry: "Metadata Test Key")
        files.append(clean)
        files += try metadataPolicyFiles(mds: mds, vendor: vendor)
        files += try metadataIdentityFiles(mds: mds, vendor: vendor)
        return files
    }

    /// A BLOB every registration must be refused with.
    struct RefusedBLOB {
        let stem: String
        let what: String
        let member: (String, FixtureValue)
    }

    /// A file whose BLOB (`member`) is refused: a packed registration of the listed authenticator
    /// and a `none` one of an unlisted authenticator are both refused (metadata).
    static func refusedBLOBFile(
        _ path: String, _ description: String, member: (String, FixtureValue), listed: (name: String, key: String),
        vendor: Auth.CA, authenticator: (FixtureFile, String) throws -> TestAuthenticator
    ) throws -> FixtureFile {
        var file = FixtureFile(path, description)
        file.policyMembers = [member]
        try file.register(
            listed.name, try authenticator(file, listed.key), options: .init(attestation: .packed(ca: vendor)), .reject(.metadata))
        try file.register("register-none", try authenticator(file, "unlisted"), attestation: "none", .reject(.metadata))
        return file
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
