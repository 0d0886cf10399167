import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// The `policy.metadata` members that set the ``MetadataPolicy`` a BLOB is judged with
/// (`acceptStale`, `refusedStatuses`, `minimumCertificationLevel`) or say which BLOB the relying
/// party held before (`previousNumber`), and the `null` expectations of an authenticator the
/// BLOB does not list. Their own BLOB (no 7, nextUpdate 2025-07-01) leaves the other metadata
/// files as they were.
extension Corpus {
    func metadataPolicyFiles(mds: TestMetadataService, vendor: Auth.CA) throws -> [FixtureFile] {
        let aaguids = [
            "level-1": "4d455441-0000-4000-8000-000000000011", "level-2": "4d455441-0000-4000-8000-000000000012",
            "update-available": "4d455441-0000-4000-8000-000000000013", "revoked": "4d455441-0000-4000-8000-000000000014",
            "compromised": "4d455441-0000-4000-8000-000000000015",
            "unlisted": "4d455441-0000-4000-8000-0000000000fe",
        ]
        func entry(_ key: String, _ name: String, _ statuses: [TestMetadataService.Status]) -> [String: Any] {
            var entry = TestMetadataService.Entry(aaguid: aaguids[key], description: name)
            entry.roots = [vendor.certificate]
            entry.statuses = statuses
            return entry.json
        }
        let payload = try TestMetadataService.payload(
            entries: [
                entry("level-1", "Level 1 Test Key", [.init("FIDO_CERTIFIED_L1", effectiveDate: "2024-01-01")]),
                entry("level-2", "Level 2 Test Key", [.init("FIDO_CERTIFIED_L2", effectiveDate: "2024-01-01")]),
                entry(
                    "update-available", "Update Available Test Key",
                    [
                        .init("FIDO_CERTIFIED_L2", effectiveDate: "2024-01-01"),
                        .init("UPDATE_AVAILABLE", effectiveDate: "2025-03-01"),
                    ]),
                entry(
                    "revoked", "Revoked Policy Test Key",
                    [
                        .init("FIDO_CERTIFIED_L1", effectiveDate: "2024-01-01"),
                        .init("REVOKED", effectiveDate: "2025-02-01"),
                    ]),
                // A leaked attestation key, then a later report (an update, as a re-certification would be).
                entry(
                    "compromised", "Leaked Key Test Key",
                    [
                        .init("FIDO_CERTIFIED_L1", effectiveDate: "2024-01-01"),
                        .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2025-01-15"),
                        .init("UPDATE_AVAILABLE", effectiveDate: "2025-03-01"),
                    ]),
            ], number: 7, nextUpdate: "2025-07-01")
        let blob = try mds.blob(payload: payload)
        let root = mds.root.certificate
        func policy(_ extra: [(String, FixtureValue)]) -> (String, FixtureValue) {
            var member = Self.metadataPolicy(blob, anchor: root, crls: [], requireEntry: false)
            for (key, value) in extra { member.1.set(key, value) }
            return member
        }
        func authenticator(_ file: FixtureFile, _ key: String, tag: String = "") throws -> TestAuthenticator {
            var made = try file.authenticator("metadata policy \(key)\(tag)")
            made.aaguid = AAGUID(uuidString: aaguids[key] ?? "")?.bytes ?? []
            return made
        }
        let trusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: true)
        let untrusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: false)
        /// A packed registration of the authenticator `key`; `expect` adds members to its expectation.
        func register(
            _ file: inout FixtureFile, _ name: String, _ key: String, tag: String = "", _ verdict: FixtureFile.Verdict,
            expect members: [(String, FixtureValue)] = []
        ) throws {
            try file.register(name, try authenticator(file, key, tag: tag), options: .init(attestation: .packed(ca: vendor)), verdict)
            if !members.isEmpty {
                file.editLastCeremony { $0.edit("expect") { expect in for (key, value) in members { expect.set(key, value) } } }
            }
        }
        /// The expectation members of an authenticator the BLOB lists: its entry's name and latest status.
        func named(_ name: String, _ status: String) -> [(String, FixtureValue)] {
            [("authenticatorName", .string(name)), ("metadataStatus", .string(status))]
        }
        var files: [FixtureFile] = []
        /// A file whose `policy.metadata` is the BLOB's with `extra` members.
        func add(
            _ path: String, _ description: String, policy extra: [(String, FixtureValue)],
            _ ceremonies: (inout FixtureFile) throws -> Void
        ) throws {
            var file = FixtureFile(path, description)
            file.policyMembers = [policy(extra)]
            try ceremonies(&file)
            files.append(file)
        }

        // The two names of a registration, never merged: `authenticatorName` is a verified entry's
        // description only, and the community AAGUID list's name is a claim
        // (`claimedProviderName`, a member the specification does not define, ignored elsewhere).
        try add(
            "metadata/claimed-provider-name.json",
            "FIDO metadata and the community AAGUID list: a packed registration of a listed authenticator "
                + "is named by its entry (authenticatorName); a none registration whose AAGUID the BLOB lists "
                + "has no metadata name (its AAGUID is a claim); a none registration claiming Google Password "
                + "Manager's AAGUID has that name as claimedProviderName only, never as authenticatorName",
            policy: []
        ) { file in
            try register(
                &file, "register-packed-listed", "level-1", trusted,
                expect: named("Level 1 Test Key", "FIDO_CERTIFIED_L1") + [("claimedProviderName", .null)])
            try file.register("register-none-listed-aaguid", try authenticator(file, "level-1", tag: " none"), .accept)
            file.editLastCeremony {
                $0.edit("expect") {
                    $0.set("authenticatorName", .null)
                    $0.set("claimedProviderName", .null)
                }
            }
            var claiming = try file.authenticator("metadata policy claimed provider")
            claiming.aaguid = AAGUID(uuidString: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4")?.bytes ?? []
            try file.register("register-none-claiming-a-provider", claiming, .accept)
            file.editLastCeremony {
                $0.edit("expect") {
                    $0.set("authenticatorName", .null)
                    $0.set("claimedProviderName", .string("Google Password Manager"))
                }
            }
        }

        try add(
            "metadata/policy-refused-statuses.json",
            "FIDO metadata with policy.metadata.refusedStatuses [\"UPDATE_AVAILABLE\"]: the list replaces "
                + "the default one, so UPDATE_AVAILABLE is refused (metadata) and a REVOKED entry is accepted",
            policy: [("refusedStatuses", .array([.string("UPDATE_AVAILABLE")]))]
        ) { file in
            try register(&file, "register-update-available", "update-available", .reject(.metadata))
            try register(&file, "register-revoked-not-refused", "revoked", trusted, expect: named("Revoked Policy Test Key", "REVOKED"))
            try register(&file, "register-level-1", "level-1", trusted, expect: named("Level 1 Test Key", "FIDO_CERTIFIED_L1"))
        }

        try add(
            "metadata/policy-minimum-certification-level.json",
            "FIDO metadata with policy.metadata.minimumCertificationLevel FIDO_CERTIFIED_L2: a level 1 "
                + "entry is refused (metadata), a level 2 one accepted; an unlisted authenticator has no entry "
                + "to hold to it and is accepted untrusted, with no name and no status (null expectations)",
            policy: [("minimumCertificationLevel", .string("FIDO_CERTIFIED_L2"))]
        ) { file in
            try register(&file, "register-level-1", "level-1", .reject(.metadata))
            try register(&file, "register-level-2", "level-2", trusted, expect: named("Level 2 Test Key", "FIDO_CERTIFIED_L2"))
            try register(
                &file, "register-unlisted", "unlisted", untrusted, expect: [("authenticatorName", .null), ("metadataStatus", .null)])
        }

        // nextUpdate 2025-07-01: the BLOB is stale from 2025-07-02T00:00:00Z. Each ceremony is
        // issued ten seconds before it is received, so only the BLOB's age decides.
        try add(
            "metadata/policy-stale-refused.json",
            "FIDO metadata with policy.metadata.acceptStale false: a registration received on the BLOB's "
                + "nextUpdate day (its last millisecond) is accepted, one received the next day is refused "
                + "(metadata), listed or not",
            policy: [("acceptStale", .bool(false))]
        ) { file in
            try register(&file, "received-on-next-update-day", "level-2", trusted, expect: [("metadataStale", .bool(false))])
            file.stamp(issuedAt: "2025-07-01T23:59:49.999Z", receivedAt: "2025-07-01T23:59:59.999Z")
            try register(&file, "received-the-day-after", "level-2", tag: " late", .reject(.metadata))
            file.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
            try register(&file, "unlisted-received-the-day-after", "unlisted", .reject(.metadata))
            file.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
        }

        try add(
            "metadata/policy-stale-accepted.json",
            "FIDO metadata with policy.metadata.acceptStale true (the default of the replay): a "
                + "registration received after the nextUpdate day is judged by the stale BLOB and "
                + "reported with metadataStale",
            policy: [("acceptStale", .bool(true))]
        ) { file in
            try register(
                &file, "received-the-day-after", "level-2", trusted,
                expect: [("authenticatorName", .string("Level 2 Test Key")), ("metadataStale", .bool(true))])
            file.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
        }

        files.append(
            try Self.refusedBLOBFile(
                "metadata/blob-rollback.json",
                "FIDO metadata BLOB no 7 where the relying party already held no 8 "
                    + "(policy.metadata.previousNumber): an older BLOB is refused, so is every registration (metadata)",
                member: policy([("previousNumber", .int(8))]), listed: ("register-level-2", "level-2"), vendor: vendor,
                authenticator: { try authenticator($0, $1) }))

        try add(
            "metadata/policy-compromise-sticky.json",
            "FIDO metadata: an ATTESTATION_KEY_COMPROMISE report naming no certificate, followed by "
                + "UPDATE_AVAILABLE, still refuses every chain of the entry (metadata); the leaked key stays leaked",
            policy: []
        ) { file in
            try register(&file, "register-after-later-report", "compromised", .reject(.metadata))
        }

        try add(
            "metadata/policy-compromise-latest-report.json",
            "FIDO metadata with policy.metadata.trustLeakedAttestationKeysAfterLaterReport true: the "
                + "latest report (UPDATE_AVAILABLE) alone decides, so the same authenticator is accepted",
            policy: [("trustLeakedAttestationKeysAfterLaterReport", .bool(true))]
        ) { file in
            try register(
                &file, "register-after-later-report", "compromised", trusted, expect: named("Leaked Key Test Key", "UPDATE_AVAILABLE"))
        }

        try add(
            "metadata/blob-previous-number.json",
            "FIDO metadata BLOB no 7 where the relying party held no 7 (the same BLOB downloaded again, "
                + "policy.metadata.previousNumber): accepted",
            policy: [("previousNumber", .int(7))]
        ) { file in
            try register(&file, "register-level-2", "level-2", trusted)
        }
        return files
    }
}
