import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

// Which entry judges a statement, and which keys anchor nothing (issue 41, items 5-7): an entry
// is chosen only by an identifier the judged statement vouches for, a compromised key anchors
// nothing wherever the anchor came from, an identifier two entries list names no entry, and a
// key any entry reports compromised refuses every chain holding it.
extension MetadataTrustTests {
    static let claimedAAGUID = "01020304-0506-0708-090a-0b0c0d0e0f10"  // the default AAGUID's entry, "Vendor Key"
    static let otherAAGUID = "99999999-9999-4999-8999-999999999999"

    func policy(
        _ blob: MetadataBLOB, _ metadataPolicy: MetadataPolicy = MetadataPolicy(), additionalAnchors: [Certificate] = [],
        chain: AttestationPolicy.Chain = .required
    ) -> VerificationPolicy {
        VerificationPolicy(
            attestation: AttestationPolicy(
                source: MetadataTrust(blob: blob, policy: metadataPolicy, additionalAnchors: additionalAnchors), chain: chain))
    }

    func message(_ outcome: CeremonyOutcome<VerifiedRegistration>) -> String {
        if case .failure(let error) = outcome.result { return error.message }
        return ""
    }

    @Test(
        "compound [fido-u2f, none]: the U2F statement's entry is found by its certificate's key identifier, never by the AAGUID it does not sign"
    )
    func compoundU2FChoosesByKeyIdentifier() throws {
        let world = try World()
        let attack = TestAuthenticator.Attestation.compound([.fidoU2F(ca: world.ca), .none])
        // The claimed AAGUID's model is listed, trusted through the same vendor root, certified.
        // A revoked U2F model (listed by key identifier) must not pass under that model's name.
        var revokedU2F = try u2fEntry(world)
        revokedU2F.statuses.append(.init("REVOKED", effectiveDate: "2024-06-01"))
        let revoked = try world.blob([world.entry(), revokedU2F])
        let refused = try register(attack, policy: world.policy(revoked))
        refused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(refused).contains("Vendor U2F Key") && message(refused).contains("REVOKED"))
        try register(attack, policy: world.policy(revoked, chain: .reported)).expectRejected(.metadata, step: "§7.1 step 24")
        // An unlisted U2F model: requireEntry refuses it, and without it the chain is not trusted
        // through the claimed model's roots, nor reported under its name.
        let unlisted = try world.blob([world.entry()])
        try register(attack, policy: world.policy(unlisted, MetadataPolicy(requireEntry: true)))
            .expectRejected(.metadata, step: "§7.1 step 24")
        try register(attack, policy: world.policy(unlisted)).expectRejected(.trust, step: "§7.1 step 29")
        let reported = try #require(try register(attack, policy: world.policy(unlisted, chain: .reported)).accepted())
        #expect(!reported.attestation.trusted)
        #expect(reported.attestation.metadataName == nil && reported.attestation.metadata == nil)
        // The genuine listed U2F model: trusted through its own entry, and named by it.
        let listed = try world.blob([world.entry(), try u2fEntry(world)])
        let verified = try #require(try register(attack, policy: world.policy(listed)).accepted())
        #expect(verified.attestation.trusted && verified.attestation.format == "compound")
        #expect(verified.attestation.metadataName == "Vendor U2F Key")
        // The none statement beside it vouches for nothing: it is not looked up (no name), nor
        // does an unlisted or all-zero AAGUID make requireEntry refuse the listed U2F model.
        #expect(verified.attestation.components.map(\.metadataName) == ["Vendor U2F Key", nil])
        #expect(verified.attestation.components.map(\.trusted) == [true, false])
        let requireEntry = world.policy(try world.blob([try u2fEntry(world)]), MetadataPolicy(requireEntry: true))
        for aaguid in [[UInt8](repeating: 0, count: 16), try #require(AAGUID(uuidString: Self.otherAAGUID)).bytes] {
            let listedU2F = try #require(try register(attack, policy: requireEntry, aaguid: aaguid).accepted())
            #expect(listedU2F.attestation.trusted && listedU2F.attestation.metadataName == "Vendor U2F Key")
        }
        // Beside a packed statement (which signs the AAGUID): each is judged by its own entry.
        let both = TestAuthenticator.Attestation.compound([.packed(ca: world.ca), .fidoU2F(ca: world.ca)])
        let judged = try #require(try register(both, policy: world.policy(listed)).accepted())
        #expect(judged.attestation.components.map(\.metadataName) == ["Vendor Key", "Vendor U2F Key"])
        #expect(judged.attestation.metadataName == "Vendor Key" && judged.attestation.trusted)
        try register(both, policy: world.policy(revoked)).expectRejected(.metadata, step: "§7.1 step 24")
    }

    @Test("the re-check of a kept compound record looks each statement up as registration did")
    func recheckCompound() throws {
        let world = try World()
        let listed = try world.blob([world.entry(), try u2fEntry(world)])
        let attack = TestAuthenticator.Attestation.compound([.fidoU2F(ca: world.ca), .none])
        let kept = try #require(try register(attack, policy: world.policy(listed), keepAttestation: true).accepted())
        #expect(try MetadataTrust(blob: listed).recheck(kept.record, at: F.now)?.name == "Vendor U2F Key")
        // The none sub-statement is not looked up: the claimed AAGUID's absence does not refuse it.
        let u2fOnly = MetadataTrust(blob: try world.blob([try u2fEntry(world)]), policy: MetadataPolicy(requireEntry: true))
        #expect(try u2fOnly.recheck(kept.record, at: F.now)?.name == "Vendor U2F Key")
        var revokedU2F = try u2fEntry(world)
        revokedU2F.statuses.append(.init("REVOKED", effectiveDate: "2025-05-01"))
        let later = try world.blob([world.entry(), revokedU2F])
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: later).recheck(kept.record, at: F.now) }
        // Without the object the sub-statements are unknown: the AAGUID, the only identifier left,
        // is looked up, so its model's statuses still refuse.
        var bare = kept.record
        bare.attestationObject = nil
        #expect(try MetadataTrust(blob: listed).recheck(bare, at: F.now)?.name == "Vendor Key")
        let claimedRevoked = try world.blob([world.entry { $0.statuses.append(.init("REVOKED", effectiveDate: "2025-05-01")) }])
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: claimedRevoked).recheck(bare, at: F.now) }
    }

    @Test(
        "a key a compromise report names anchors nothing: not through the relying party's own anchor either, root or intermediate"
    )
    func compromisedAnchorFromRelyingParty() throws {
        let world = try World()
        // The report names the vendor's attestation root; the relying party also trusts that root itself.
        let rootLeaked = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: world.ca.certificate),
                ]
            }
        ])
        let ownRoot = policy(rootLeaked, additionalAnchors: [world.ca.certificate])
        let refused = try register(.packed(ca: world.ca), policy: ownRoot)
        refused.expectRejected(.trust, step: "§7.1 step 29")
        #expect(message(refused).contains("reports compromised"))
        // The same root without a report is trusted through the relying party's anchor.
        let clean = try world.blob([world.entry { $0.roots = [] }])
        #expect(
            try register(.packed(ca: world.ca), policy: policy(clean, additionalAnchors: [world.ca.certificate])).accepted()?.attestation
                .trusted == true)
        // An intermediate, not in x5c, reached through the relying party's anchors.
        let intermediate = try world.ca.intermediate(name: "Vendor Attestation CA 1", seed: "metadata trust intermediate")
        let intermediateLeaked = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: intermediate.certificate),
                ]
            }
        ])
        let anchors = [world.ca.certificate, intermediate.certificate]
        let throughIntermediate = try register(.packed(ca: intermediate), policy: policy(intermediateLeaked, additionalAnchors: anchors))
        throughIntermediate.expectRejected(.trust, step: "§7.1 step 29")
        #expect(message(throughIntermediate).contains("Vendor Attestation CA 1"))
        let reported = try #require(
            try register(.packed(ca: intermediate), policy: policy(intermediateLeaked, additionalAnchors: anchors, chain: .reported))
                .accepted())
        #expect(!reported.attestation.trusted && reported.attestation.trustAnchor == nil)
        // Another intermediate of the same root is not named: trusted.
        let sibling = try world.ca.intermediate(name: "Vendor Attestation CA 2", seed: "metadata trust sibling")
        let siblingAnchors = [world.ca.certificate, sibling.certificate]
        #expect(
            try register(.packed(ca: sibling), policy: policy(intermediateLeaked, additionalAnchors: siblingAnchors)).accepted()?
                .attestation.trusted == true)
    }

    @Test("an AAGUID two entries list names no entry: its registrations are refused (metadata), other models keep working")
    func duplicateAAGUID() throws {
        let world = try World()
        // The first entry certifies; a later one for the same AAGUID revokes.
        let blob = try world.blob([
            world.entry(),
            world.entry {
                $0.aaguid = Self.otherAAGUID; $0.description = "Other Key"
            },
            world.entry {
                $0.statuses = [.init("REVOKED", effectiveDate: "2024-06-01")]; $0.description = "Vendor Key (revoked)"
            },
        ])
        let refused = try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported))
        refused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(refused).contains(Self.claimedAAGUID) && message(refused).contains("[0], [2]"))
        // none and self attestation name it too: refused as well.
        try register(.none, policy: world.policy(blob, chain: .reported)).expectRejected(.metadata, step: "§7.1 step 24")
        #expect(blob.entry(aaguid: try #require(AAGUID(uuidString: Self.claimedAAGUID))) == nil)
        // The other model is unaffected.
        let other = try #require(AAGUID(uuidString: Self.otherAAGUID)).bytes
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob), aaguid: other).accepted())
        #expect(verified.attestation.trusted && verified.attestation.metadataName == "Other Key")
        // A stored credential of the model is refused by the re-check too.
        let stored = try #require(try register(.packed(ca: world.ca), policy: world.policy(try world.blob([world.entry()]))).accepted())
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: blob).recheck(stored.record, at: F.now) }
    }

    @Test("a key identifier two entries list names no entry: the fido-u2f registration is refused (metadata)")
    func duplicateKeyIdentifier() throws {
        let world = try World()
        var second = try u2fEntry(world, uppercase: true)
        second.description = "Vendor U2F Key, relisted"
        second.statuses.append(.init("REVOKED", effectiveDate: "2024-06-01"))
        let blob = try world.blob([try u2fEntry(world), second])
        let refused = try register(.fidoU2F(ca: world.ca), policy: world.policy(blob, chain: .reported))
        refused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(refused).contains("key identifier") && message(refused).contains("[0], [1]"))
        #expect(blob.entry(attestationCertificate: try u2fLeaf(world)) == nil)
        // The packed model beside it is unaffected.
        let mixed = try world.blob([world.entry(), try u2fEntry(world), second])
        #expect(try register(.packed(ca: world.ca), policy: world.policy(mixed)).accepted()?.attestation.trusted == true)
    }

    @Test("a key any entry reports compromised refuses every chain holding it, whichever model the chain claims")
    func compromiseInAnyEntry() throws {
        let world = try World()
        let leaked = try u2fLeaf(world)
        // The leaked certificate is reported by another model's entry; the chain claims "Vendor Key", which is clean.
        let byCertificate = try world.blob([
            world.entry(),
            world.entry {
                $0.aaguid = Self.otherAAGUID; $0.description = "Leaky Key"
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: leaked),
                ]
            },
        ])
        let leakedKey = try PrivateKey.derive(.p256, seed: "metadata trust any-entry leaked key")
        let leakedLeaf = try TestAuthenticator.packedLeaf(key: leakedKey, ca: world.ca, aaguid: TestAuthenticator.defaultAAGUID)
        let reportLeaf = try world.blob([
            world.entry(),
            world.entry {
                $0.aaguid = Self.otherAAGUID; $0.description = "Leaky Key"
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: leakedLeaf),
                    .init("FIDO_CERTIFIED_L2", effectiveDate: "2024-06-01"),
                ]
            },
        ])
        let attack = TestAuthenticator.Attestation.packedChain(leafKey: leakedKey, chain: [leakedLeaf], alg: .es256)
        let refused = try register(attack, policy: world.policy(reportLeaf, chain: .reported))
        refused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(refused).contains("Leaky Key"))
        // A fido-u2f registration whose certificate another entry names is refused too (it has no entry of its own).
        try register(.fidoU2F(ca: world.ca), policy: world.policy(byCertificate, chain: .reported))
            .expectRejected(.metadata, step: "§7.1 step 24")
        // The same chain with the report gone is trusted as "Vendor Key".
        let clean = try world.blob([world.entry()])
        let stored = try #require(try register(attack, policy: world.policy(clean), keepAttestation: true).accepted())
        #expect(stored.attestation.trusted && stored.attestation.metadataName == "Vendor Key")
        // The re-check of the stored credential finds the other entry's report.
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: reportLeaf).recheck(stored.record, at: F.now) }
        // A report naming no certificate leaks every key its entry lists by key identifier.
        let byIdentifier = try world.blob([
            world.entry(),
            world.entry {
                $0.aaguid = nil; $0.description = "Leaky U2F Key"; $0.protocolFamily = "u2f"
                $0.keyIdentifiers = [MetadataBLOB.keyIdentifier(of: leakedLeaf) ?? ""]
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01"),
                ]
            },
        ])
        let byIdentifierRefused = try register(attack, policy: world.policy(byIdentifier, chain: .reported))
        byIdentifierRefused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(byIdentifierRefused).contains("Leaky U2F Key"))
        // Another refused status naming a certificate names its key too.
        let remote = try world.blob([
            world.entry(),
            world.entry {
                $0.aaguid = Self.otherAAGUID; $0.description = "Leaky Key"
                $0.statuses = [.init("USER_KEY_REMOTE_COMPROMISE", effectiveDate: "2024-01-01", certificate: leakedLeaf)]
            },
        ])
        let remoteRefused = try register(attack, policy: world.policy(remote, chain: .reported))
        remoteRefused.expectRejected(.metadata, step: "§7.1 step 24")
        #expect(message(remoteRefused).contains("USER_KEY_REMOTE_COMPROMISE"))
        // The policy's opt-out and refused statuses govern these reports as they do the entry's own.
        let unrefused = MetadataPolicy(refusedStatuses: AuthenticatorStatus.compromised.subtracting([.attestationKeyCompromise]))
        #expect(try register(attack, policy: world.policy(reportLeaf, unrefused)).accepted()?.attestation.trusted == true)
        let optOut = MetadataPolicy(trustLeakedAttestationKeysAfterLaterReport: true)
        #expect(try register(attack, policy: world.policy(reportLeaf, optOut)).accepted()?.attestation.trusted == true)
    }
}
