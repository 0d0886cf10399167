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
        let packed = Auth.RegistrationOptions(attestation: .packed(ca: vendor))
        let trusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: true)
        let untrusted = FixtureFile.Verdict.attested(format: "packed", type: .basic, trusted: false)
        func expect(_ file: inout FixtureFile, _ members: [(String, FixtureValue)]) {
            file.editLastCeremony { $0.edit("expect") { expect in for (key, value) in members { expect.set(key, value) } } }
        }
        var files: [FixtureFile] = []

        var statuses = FixtureFile(
            "metadata/policy-refused-statuses.json",
            "FIDO metadata with policy.metadata.refusedStatuses [\"UPDATE_AVAILABLE\"]: the list replaces "
                + "the default one, so UPDATE_AVAILABLE is refused (metadata) and a REVOKED entry is accepted")
        statuses.policyMembers = [policy([("refusedStatuses", .array([.string("UPDATE_AVAILABLE")]))])]
        try statuses.register(
            "register-update-available", try authenticator(statuses, "update-available"), options: packed,
            .reject(.metadata))
        try statuses.register("register-revoked-not-refused", try authenticator(statuses, "revoked"), options: packed, trusted)
        expect(&statuses, [("authenticatorName", .string("Revoked Policy Test Key")), ("metadataStatus", .string("REVOKED"))])
        try statuses.register("register-level-1", try authenticator(statuses, "level-1"), options: packed, trusted)
        expect(&statuses, [("authenticatorName", .string("Level 1 Test Key")), ("metadataStatus", .string("FIDO_CERTIFIED_L1"))])
        files.append(statuses)

        var level = FixtureFile(
            "metadata/policy-minimum-certification-level.json",
            "FIDO metadata with policy.metadata.minimumCertificationLevel FIDO_CERTIFIED_L2: a level 1 "
                + "entry is refused (metadata), a level 2 one accepted; an unlisted authenticator has no entry "
                + "to hold to it and is accepted untrusted, with no name and no status (null expectations)")
        level.policyMembers = [policy([("minimumCertificationLevel", .string("FIDO_CERTIFIED_L2"))])]
        try level.register("register-level-1", try authenticator(level, "level-1"), options: packed, .reject(.metadata))
        try level.register("register-level-2", try authenticator(level, "level-2"), options: packed, trusted)
        expect(&level, [("authenticatorName", .string("Level 2 Test Key")), ("metadataStatus", .string("FIDO_CERTIFIED_L2"))])
        try level.register("register-unlisted", try authenticator(level, "unlisted"), options: packed, untrusted)
        expect(&level, [("authenticatorName", .null), ("metadataStatus", .null)])
        files.append(level)

        // nextUpdate 2025-07-01: the BLOB is stale from 2025-07-02T00:00:00Z. Each ceremony is
        // issued ten seconds before it is received, so only the BLOB's age decides.
        var refused = FixtureFile(
            "metadata/policy-stale-refused.json",
            "FIDO metadata with policy.metadata.acceptStale false: a registration received on the BLOB's "
                + "nextUpdate day (its last millisecond) is accepted, one received the next day is refused "
                + "(metadata), listed or not")
        refused.policyMembers = [policy([("acceptStale", .bool(false))])]
        try refused.register("received-on-next-update-day", try authenticator(refused, "level-2"), options: packed, trusted)
        expect(&refused, [("metadataStale", .bool(false))])
        refused.stamp(issuedAt: "2025-07-01T23:59:49.999Z", receivedAt: "2025-07-01T23:59:59.999Z")
        try refused.register(
            "received-the-day-after", try authenticator(refused, "level-2", tag: " late"), options: packed,
            .reject(.metadata))
        refused.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
        try refused.register(
            "unlisted-received-the-day-after", try authenticator(refused, "unlisted"), options: packed,
            .reject(.metadata))
        refused.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
        files.append(refused)

        var accepted = FixtureFile(
            "metadata/policy-stale-accepted.json",
            "FIDO metadata with policy.metadata.acceptStale true (the default of the replay): a "
                + "registration received after the nextUpdate day is judged by the stale BLOB and "
                + "reported with metadataStale")
        accepted.policyMembers = [policy([("acceptStale", .bool(true))])]
        try accepted.register("received-the-day-after", try authenticator(accepted, "level-2"), options: packed, trusted)
        expect(&accepted, [("authenticatorName", .string("Level 2 Test Key")), ("metadataStale", .bool(true))])
        accepted.stamp(issuedAt: "2025-07-01T23:59:50Z", receivedAt: "2025-07-02T00:00:00Z")
        files.append(accepted)

        var rollback = FixtureFile(
            "metadata/blob-rollback.json",
            "FIDO metadata BLOB no 7 where the relying party already held no 8 "
                + "(policy.metadata.previousNumber): an older BLOB is refused, so is every registration (metadata)")
        rollback.policyMembers = [policy([("previousNumber", .int(8))])]
        try rollback.register("register-level-2", try authenticator(rollback, "level-2"), options: packed, .reject(.metadata))
        try rollback.register("register-none", try authenticator(rollback, "unlisted"), attestation: "none", .reject(.metadata))
        files.append(rollback)

        var sticky = FixtureFile(
            "metadata/policy-compromise-sticky.json",
            "FIDO metadata: an ATTESTATION_KEY_COMPROMISE report naming no certificate, followed by "
                + "UPDATE_AVAILABLE, still refuses every chain of the entry (metadata); the leaked key stays leaked")
        let defaults: [(String, FixtureValue)] = []
        sticky.policyMembers = [policy(defaults)]
        try sticky.register(
            "register-after-later-report", try authenticator(sticky, "compromised"), options: packed,
            .reject(.metadata))
        files.append(sticky)

        var latest = FixtureFile(
            "metadata/policy-compromise-latest-report.json",
            "FIDO metadata with policy.metadata.trustLeakedAttestationKeysAfterLaterReport true: the "
                + "latest report (UPDATE_AVAILABLE) alone decides, so the same authenticator is accepted")
        latest.policyMembers = [policy([("trustLeakedAttestationKeysAfterLaterReport", .bool(true))])]
        try latest.register("register-after-later-report", try authenticator(latest, "compromised"), options: packed, trusted)
        expect(&latest, [("authenticatorName", .string("Leaked Key Test Key")), ("metadataStatus", .string("UPDATE_AVAILABLE"))])
        files.append(latest)

        var same = FixtureFile(
            "metadata/blob-previous-number.json",
            "FIDO metadata BLOB no 7 where the relying party held no 7 (the same BLOB downloaded again, "
                + "policy.metadata.previousNumber): accepted")
        same.policyMembers = [policy([("previousNumber", .int(7))])]
        try same.register("register-level-2", try authenticator(same, "level-2"), options: packed, trusted)
        files.append(same)
        return files
    }
}
