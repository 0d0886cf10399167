import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Registrations judged with FIDO metadata: each authenticator against its own entry.
@Suite("FIDO metadata trust during registration")
struct MetadataTrustTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.RegistrationOptions
    static let aaguid = "01020304-0506-0708-090a-0b0c0d0e0f10"

    /// The attestation CA of the test authenticator, and the metadata PKI.
    struct World {
        let ca: TestAuthenticator.CA
        let otherCA: TestAuthenticator.CA
        let mds: TestMetadataService

        init() throws {
            ca = try TestAuthenticator.CA.make(name: "Vendor Attestation Root", seed: "metadata trust vendor")
            otherCA = try TestAuthenticator.CA.make(name: "Other Vendor Root", seed: "metadata trust other")
            mds = try TestMetadataService.make(seed: "metadata trust")
        }

        func entry(_ edit: (inout TestMetadataService.Entry) -> Void = { _ in }) -> TestMetadataService.Entry {
            var entry = TestMetadataService.Entry(aaguid: MetadataTrustTests.aaguid, description: "Vendor Key")
            entry.roots = [ca.certificate]
            entry.attestationTypes = ["basic_full", "basic_surrogate"]
            edit(&entry)
            return entry
        }

        func blob(_ entries: [TestMetadataService.Entry], nextUpdate: String = "2025-07-01") throws -> MetadataBLOB {
            let text = try mds.blob(payload: try TestMetadataService.payload(entries: entries.map(\.json), nextUpdate: nextUpdate))
            return try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: F.now)
        }

        func policy(
            _ blob: MetadataBLOB, _ metadataPolicy: MetadataPolicy = MetadataPolicy(),
            chain: AttestationPolicy.Chain = .required
        ) -> VerificationPolicy {
            VerificationPolicy(
                attestation: AttestationPolicy(source: MetadataTrust(blob: blob, policy: metadataPolicy), chain: chain))
        }
    }

    func register(
        _ attestation: TestAuthenticator.Attestation, policy: VerificationPolicy,
        aaguid: [UInt8] = TestAuthenticator.defaultAAGUID, now: Date = F.now,
        keepAttestation: Bool = false
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        var authenticator = try TestAuthenticator(seed: "metadata trust credential")
        authenticator.aaguid = aaguid
        let issued = F.registrationChallenge()
        return F.register(
            try authenticator.register(challenge: issued.challenge, Options(attestation: attestation)),
            issued: issued, policy: policy, now: now, keepAttestation: keepAttestation)
    }

    @Test("the entry's roots anchor its authenticator: trusted, named, with its status; the record keeps the AAGUID")
    func trustedByEntry() throws {
        let world = try World()
        let policy = world.policy(try world.blob([world.entry()]))
        let verified = try #require(try register(.packed(ca: world.ca), policy: policy).accepted())
        #expect(verified.attestation.trusted)
        #expect(verified.attestation.trustAnchor == world.ca.certificate)
        #expect(verified.attestation.metadataName == "Vendor Key")
        #expect(verified.attestation.metadata?.status == .fidoCertifiedL1)
        #expect(!verified.attestation.metadataStale)
        #expect(verified.record.aaguid == Self.aaguid)
    }

    @Test("roots belong to their entry alone: another authenticator's chain to them is not trusted")
    func rootsPerAuthenticator() throws {
        let world = try World()
        // This entry lists the other vendor's root; the authenticator's chain ends in its own vendor's root.
        let blob = try world.blob([
            world.entry { $0.roots = [world.otherCA.certificate] },
            world.entry {
                $0.aaguid = "99999999-9999-9999-9999-999999999999"; $0.roots = [world.ca.certificate]
            },
        ])
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.trust, step: "§7.1 step 29")
        let reported = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported)).accepted())
        #expect(!reported.attestation.trusted)
        #expect(reported.attestation.metadataName == "Vendor Key")
    }

    @Test(
        "a compromise or revocation as the latest status refuses the authenticator (metadata)",
        arguments: [
            "REVOKED", "ATTESTATION_KEY_COMPROMISE", "USER_VERIFICATION_BYPASS",
            "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE",
        ])
    func compromised(_ status: String) throws {
        let world = try World()
        let blob = try world.blob([
            world.entry {
                $0.statuses = [.init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init(status, effectiveDate: "2024-05-01")]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.metadata, step: "§7.1 step 24")
        // Even with trust only reported, the status refuses it.
        try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported)).expectRejected(.metadata, step: "§7.1 step 24")
        // A caller may choose to accept it.
        let lenient = world.policy(blob, MetadataPolicy(refusedStatuses: []))
        #expect(try register(.packed(ca: world.ca), policy: lenient).accepted()?.attestation.metadata?.status.map(\.rawValue) == status)
    }

    @Test("a compromise followed by a later certification is judged by the latest report")
    func latestWins() throws {
        let world = try World()
        let blob = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("USER_VERIFICATION_BYPASS", effectiveDate: "2023-01-01"), .init("FIDO_CERTIFIED_L2", effectiveDate: "2024-05-01"),
                ]
            }
        ])
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob)).accepted())
        #expect(verified.attestation.metadata?.status == .fidoCertifiedL2)
    }

    @Test(
        "a leaked attestation key stays leaked: a later report does not end the compromise, unless the policy opts out",
        arguments: ["UPDATE_AVAILABLE", "FIDO_CERTIFIED_L2"])
    func compromiseIsSticky(_ later: String) throws {
        let world = try World()
        let blob = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01"), .init(later, effectiveDate: "2024-06-01"),
                ]
            }
        ])
        #expect(blob.entries.first?.status?.rawValue == later)
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.metadata, step: "§7.1 step 24")
        try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported)).expectRejected(.metadata, step: "§7.1 step 24")
        // Not refusing ATTESTATION_KEY_COMPROMISE at all, or the latest-report-only reading, accepts it.
        let unrefused = MetadataPolicy(refusedStatuses: AuthenticatorStatus.compromised.subtracting([.attestationKeyCompromise]))
        _ = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob, unrefused)).accepted())
        let optOut = world.policy(blob, MetadataPolicy(trustLeakedAttestationKeysAfterLaterReport: true))
        let verified = try #require(try register(.packed(ca: world.ca), policy: optOut).accepted())
        #expect(verified.attestation.trusted && verified.attestation.metadataName == "Vendor Key")
        // The re-check of a stored credential holds it too.
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: blob).recheck(verified.record, at: F.now) }
        #expect(
            try MetadataTrust(blob: blob, policy: MetadataPolicy(trustLeakedAttestationKeysAfterLaterReport: true))
                .recheck(verified.record, at: F.now)?.name == "Vendor Key")
    }

    @Test("a compromise naming a certificate refuses only the chains holding its key; the model's other chains are accepted")
    func compromiseNamingCertificate() throws {
        let world = try World()
        let probe = try #require(try register(.packed(ca: world.ca), policy: VerificationPolicy()).accepted())
        let leaked = try #require(probe.attestation.trustPath.first)
        let blob = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: leaked),
                    .init("FIDO_CERTIFIED_L2", effectiveDate: "2024-06-01"),
                ]
            }
        ])
        #expect(blob.entries.first?.statusReports[1].certificate == leaked.derBytes)
        // The batch whose key leaked: refused, also under another certificate for the same key.
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.metadata, step: "§7.1 step 24")
        let leakedKey = try PrivateKey.derive(.p256, seed: "metadata trust credential packed leaf")
        let reissued = try TestAuthenticator.packedLeaf(key: leakedKey, ca: world.ca, aaguid: TestAuthenticator.defaultAAGUID) {
            $0.serialNumber = [0x10, 0x02]
        }
        #expect(reissued.derBytes != leaked.derBytes)
        try register(.packedChain(leafKey: leakedKey, chain: [reissued], alg: .es256), policy: world.policy(blob))
            .expectRejected(.metadata, step: "§7.1 step 24")
        // Another batch of the same model: accepted and trusted through the entry.
        let otherKey = try PrivateKey.derive(.p256, seed: "metadata trust another batch")
        let other = try TestAuthenticator.packedLeaf(key: otherKey, ca: world.ca, aaguid: TestAuthenticator.defaultAAGUID)
        let accepted = try #require(
            try register(
                .packedChain(leafKey: otherKey, chain: [other], alg: .es256), policy: world.policy(blob),
                keepAttestation: true
            ).accepted())
        #expect(accepted.attestation.trusted && accepted.attestation.metadataName == "Vendor Key")
        // The re-check tells them apart through the kept attestation object; without it, it cannot.
        #expect(try MetadataTrust(blob: blob).recheck(accepted.record, at: F.now)?.name == "Vendor Key")
        var bare = accepted.record
        bare.attestationObject = nil
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: blob).recheck(bare, at: F.now) }
        // A compromise naming the attestation root: no chain is trusted through it any more.
        let rootLeaked = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2024-01-01", certificate: world.ca.certificate),
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2024-06-01"),
                ]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(rootLeaked)).expectRejected(.trust, step: "§7.1 step 29")
    }

    @Test("an entry that cannot be read costs only its own authenticator; userVerification is read as the method")
    func skippedEntry() throws {
        let world = try World()
        let brokenAAGUID = "77777777-7777-4777-8777-777777777777"
        var broken = world.entry {
            $0.aaguid = brokenAAGUID; $0.description = "Broken Key"
        }.json
        broken["statusReports"] = [["status": "FIDO_CERTIFIED_L1", "effectiveDate": "2024-01-01"], ["status": 5]]
        // The good entry as the FIDO conformance tools' BLOB writes its user verification details.
        var good = world.entry().json
        var statement = try #require(good["metadataStatement"] as? [String: Any])
        statement["userVerificationDetails"] = [[["userVerification": "presence_internal"]]]
        good["metadataStatement"] = statement
        let text = try world.mds.blob(payload: try TestMetadataService.payload(entries: [broken, good]))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: world.mds.root.certificate, at: F.now)
        #expect(blob.skippedEntries.map(\.index) == [0])
        #expect(blob.skippedEntries.first?.reason.contains("payload.entries[0].statusReports[1].status is not a string") == true)
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob)).accepted())
        #expect(verified.attestation.trusted && verified.attestation.metadataName == "Vendor Key")
        #expect(verified.attestation.metadata?.statement?.userVerificationDetails.first?.first?.method == "presence_internal")
        // The skipped entry's authenticator has none: requireEntry refuses it, it is not named, not trusted by its roots.
        let aaguid = try #require(AAGUID(uuidString: brokenAAGUID)).bytes
        try register(.packed(ca: world.ca), policy: world.policy(blob, MetadataPolicy(requireEntry: true)), aaguid: aaguid)
            .expectRejected(.metadata, step: "§7.1 step 24")
        let reported = try #require(
            try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported), aaguid: aaguid).accepted())
        #expect(reported.attestation.metadataName == nil && !reported.attestation.trusted)
    }

    @Test("reports sharing the latest date: the highest certification counts, and a refusal among them refuses")
    func sameDateReports() throws {
        let world = try World()
        // The real BLOB lists most certified models as FIDO_CERTIFIED_Ln and FIDO_CERTIFIED under one date.
        let certified = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L2", effectiveDate: "2024-06-21"), .init("FIDO_CERTIFIED", effectiveDate: "2024-06-21"),
                ]
            }
        ])
        let l2 = MetadataPolicy(minimumCertificationLevel: .l2)
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(certified, l2)).accepted())
        #expect(verified.attestation.metadata?.certificationLevel == .l2)
        #expect(verified.attestation.metadata?.status == .fidoCertifiedL2)
        let revoked = try world.blob([
            world.entry {
                $0.statuses = [.init("REVOKED", effectiveDate: "2024-05-01"), .init("FIDO_CERTIFIED_L1", effectiveDate: "2024-05-01")]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(revoked)).expectRejected(.metadata, step: "§7.1 step 24")
        #expect(revoked.entries.first?.status == .revoked)
        #expect(revoked.entries.first?.certificationLevel == nil)
    }

    @Test("a report without effectiveDate is in effect while present; one dated after now is not yet, unless it refuses")
    func undatedAndFutureReports() throws {
        let world = try World()
        // F.now is 2025-01-01.
        let undated = try world.blob([
            world.entry {
                $0.statuses = [.init("FIDO_CERTIFIED_L1", effectiveDate: "2020-01-01"), .init("REVOKED")]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(undated)).expectRejected(.metadata, step: "§7.1 step 24")
        let futureLevel = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init("FIDO_CERTIFIED_L2", effectiveDate: "2099-01-01"),
                ]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(futureLevel, MetadataPolicy(minimumCertificationLevel: .l2)))
            .expectRejected(.metadata, step: "§7.1 step 24")
        #expect(futureLevel.entries.first?.certificationLevel(at: F.now) == .l1)
        let revokedThenFuture = try world.blob([
            world.entry {
                $0.statuses = [.init("REVOKED", effectiveDate: "2023-01-01"), .init("FIDO_CERTIFIED_L1", effectiveDate: "2099-01-01")]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(revokedThenFuture)).expectRejected(.metadata, step: "§7.1 step 24")
        let announced = try world.blob([
            world.entry {
                $0.statuses = [
                    .init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"),
                    .init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2099-01-01"),
                ]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(announced)).expectRejected(.metadata, step: "§7.1 step 24")
        // A key compromise counts whatever its date; a revocation announced ahead counts as well.
        let announcedRevocation = try world.blob([
            world.entry {
                $0.statuses = [.init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init("REVOKED", effectiveDate: "2099-01-01")]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(announcedRevocation)).expectRejected(.metadata, step: "§7.1 step 24")
    }

    @Test("stricter rules: certified L2 or better only")
    func certificationLevel() throws {
        let world = try World()
        let blob = try world.blob([world.entry()])  // FIDO_CERTIFIED_L1
        let l2 = world.policy(blob, MetadataPolicy(minimumCertificationLevel: .l2))
        try register(.packed(ca: world.ca), policy: l2).expectRejected(.metadata, step: "§7.1 step 24")
        let l1 = world.policy(blob, MetadataPolicy(minimumCertificationLevel: .l1))
        _ = try #require(try register(.packed(ca: world.ca), policy: l1).accepted())
    }

    @Test("no entry: allowed (untrusted), or refused when the policy requires an entry")
    func noEntry() throws {
        let world = try World()
        let blob = try world.blob([world.entry { $0.aaguid = "99999999-9999-9999-9999-999999999999" }])
        let open = try #require(try register(.packed(ca: world.ca), policy: world.policy(blob, chain: .reported)).accepted())
        #expect(!open.attestation.trusted)
        #expect(open.attestation.metadataName == nil)
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.trust, step: "§7.1 step 29")
        try register(.packed(ca: world.ca), policy: world.policy(blob, MetadataPolicy(requireEntry: true)))
            .expectRejected(.metadata, step: "§7.1 step 24")
        try register(.none, policy: world.policy(blob, MetadataPolicy(requireEntry: true), chain: .reported))
            .expectRejected(.metadata, step: "§7.1 step 24")
    }

    @Test("the attestation type must be one the statement declares")
    func declaredType() throws {
        let world = try World()
        let basicOnly = try world.blob([world.entry { $0.attestationTypes = ["basic_full"] }])
        try register(.packedSelf, policy: world.policy(basicOnly, chain: .reported)).expectRejected(.metadata, step: "§7.1 step 24")
        let attcaOnly = try world.blob([world.entry { $0.attestationTypes = ["attca"] }])
        // android-key verifies as Basic only (§8.4): an entry declaring only AttCA refuses it.
        try register(.androidKey(ca: world.ca), policy: world.policy(attcaOnly)).expectRejected(.metadata, step: "§7.1 step 24")
        // packed and fido-u2f x5c verify as "Basic, AttCA or uncertainty" (§8.2, §8.6): the entry's
        // declaration decides, so attca or anonca fits, and the chain still ends in the entry's roots.
        for declared in [["attca"], ["anonca"]] {
            var u2f = try u2fEntry(world)
            u2f.attestationTypes = declared
            let blob = try world.blob([world.entry { $0.attestationTypes = declared }, u2f])
            let cases: [(TestAuthenticator.Attestation, String)] = [
                (.packed(ca: world.ca), "Vendor Key"),
                (.fidoU2F(ca: world.ca), "Vendor U2F Key"),
            ]
            for (attestation, name) in cases {
                let verified = try #require(try register(attestation, policy: world.policy(blob)).accepted(), "\(declared)")
                #expect(verified.attestation.trusted && verified.attestation.metadataName == name)
            }
        }
        let otherRoots = try world.blob([
            world.entry {
                $0.attestationTypes = ["attca"]; $0.roots = [world.otherCA.certificate]
            }
        ])
        try register(.packed(ca: world.ca), policy: world.policy(otherRoots)).expectRejected(.trust, step: "§7.1 step 29")
        let surrogateOnly = try world.blob([world.entry { $0.attestationTypes = ["basic_surrogate"] }])
        try register(.packed(ca: world.ca), policy: world.policy(surrogateOnly)).expectRejected(.metadata, step: "§7.1 step 24")
        // Self attestation declared as basic_surrogate is accepted (untrusted: no chain).
        let both = try world.blob([world.entry()])
        let selfAttested = try #require(try register(.packedSelf, policy: world.policy(both, chain: .reported)).accepted())
        #expect(selfAttested.attestation.metadataName == "Vendor Key")
        // none is never held to the declared types (the client may strip attestation).
        _ = try #require(try register(.none, policy: world.policy(attcaOnly, chain: .reported)).accepted())
    }

    @Test("stale metadata refuses registrations by default; accepted and flagged when the policy allows")
    func stale() throws {
        let world = try World()
        let blob = try world.blob([world.entry()], nextUpdate: "2024-12-01")
        try register(.packed(ca: world.ca), policy: world.policy(blob)).expectRejected(.metadata, step: "§7.1 step 24")
        let lenient = world.policy(blob, MetadataPolicy(acceptStale: true))
        let verified = try #require(try register(.packed(ca: world.ca), policy: lenient).accepted())
        #expect(verified.attestation.metadataStale)
        #expect(verified.attestation.trusted)
    }

    /// A u2f entry listing, by key identifier, the attestation leaf the fido-u2f authenticator
    /// makes (learnt by registering once without metadata).
    func u2fEntry(_ world: World, uppercase: Bool = false) throws -> TestMetadataService.Entry {
        let identifier = try #require(MetadataBLOB.keyIdentifier(of: try u2fLeaf(world)))
        return world.entry {
            $0.aaguid = nil
            $0.keyIdentifiers = [uppercase ? identifier.uppercased() : identifier]
            $0.description = "Vendor U2F Key"
            $0.protocolFamily = "u2f"
        }
    }

    /// The attestation certificate the fido-u2f authenticator makes (learnt by registering once without metadata).
    func u2fLeaf(_ world: World) throws -> Certificate {
        let probe = try #require(try register(.fidoU2F(ca: world.ca), policy: VerificationPolicy()).accepted())
        return try #require(probe.attestation.trustPath.first)
    }

    @Test("fido-u2f (no AAGUID) is found by the attestation certificate's key identifier")
    func u2fByKeyIdentifier() throws {
        let world = try World()
        let blob = try world.blob([try u2fEntry(world, uppercase: true)])
        let verified = try #require(try register(.fidoU2F(ca: world.ca), policy: world.policy(blob)).accepted())
        #expect(verified.attestation.trusted)
        #expect(verified.attestation.metadataName == "Vendor U2F Key")
        // fido-u2f signs no AAGUID: one written in its authenticator data does not choose an entry.
        let byAAGUID = try world.blob([world.entry()])
        try register(.fidoU2F(ca: world.ca), policy: world.policy(byAAGUID, MetadataPolicy(requireEntry: true)))
            .expectRejected(.metadata, step: "§7.1 step 24")
    }

    @Test(
        "a listed certificate appended after the attestation certificate never chooses the entry",
        arguments: [[UInt8](repeating: 0x77, count: 16), [UInt8](repeating: 0, count: 16)])
    func appendedCertificateChoosesNoEntry(_ aaguid: [UInt8]) throws {
        let world = try World()
        let blob = try world.blob([try u2fEntry(world)])
        // A device of the same vendor CA whose own certificate binds an AAGUID the BLOB does not
        // list (or none), with the listed U2F model's public certificate appended to its x5c.
        let key = try PrivateKey.derive(.p256, seed: "metadata trust appended certificate")
        let leaf = try TestAuthenticator.packedLeaf(key: key, ca: world.ca, aaguid: aaguid.allSatisfy { $0 == 0 } ? nil : aaguid)
        let attack = TestAuthenticator.Attestation.packedChain(leafKey: key, chain: [leaf, try u2fLeaf(world)], alg: .es256)
        // Not the U2F model's entry: requireEntry refuses it ...
        try register(attack, policy: world.policy(blob, MetadataPolicy(requireEntry: true)), aaguid: aaguid)
            .expectRejected(.metadata, step: "§7.1 step 24")
        // ... it is not reported under the model's name ...
        let reported = try #require(try register(attack, policy: world.policy(blob, chain: .reported), aaguid: aaguid).accepted())
        #expect(reported.attestation.metadataName == nil)
        #expect(reported.attestation.metadata == nil)
        #expect(!reported.attestation.trusted)
        // ... and the entry's roots do not anchor its chain.
        try register(attack, policy: world.policy(blob), aaguid: aaguid).expectRejected(.trust, step: "§7.1 step 29")
    }

    @Test("re-checking a stored credential against a newer BLOB finds a new compromise")
    func recheck() throws {
        let world = try World()
        let first = try world.blob([world.entry()])
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(first)).accepted())
        #expect(try MetadataTrust(blob: first).recheck(verified.record, at: F.now)?.name == "Vendor Key")
        let newer = try world.blob([world.entry { $0.statuses.append(.init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2025-05-01")) }])
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: newer).recheck(verified.record, at: F.now) }
    }

    @Test("re-checking against stale metadata refuses by default; accepted when the policy allows")
    func recheckStale() throws {
        let world = try World()
        let verified = try #require(try register(.packed(ca: world.ca), policy: world.policy(try world.blob([world.entry()]))).accepted())
        let stale = try world.blob([world.entry()], nextUpdate: "2024-12-01")
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: stale).recheck(verified.record, at: F.now) }
        let lenient = MetadataTrust(blob: stale, policy: MetadataPolicy(acceptStale: true))
        #expect(try lenient.recheck(verified.record, at: F.now)?.name == "Vendor Key")
    }

    @Test("re-checking a fido-u2f credential finds its entry through the kept attestation object")
    func recheckU2F() throws {
        let world = try World()
        let entry = try u2fEntry(world)
        func blob(_ statuses: [TestMetadataService.Status]) throws -> MetadataBLOB {
            var listed = entry
            listed.statuses += statuses
            return try world.blob([listed])
        }
        let first = try blob([])
        // A U2F key behind CTAP2: attested credential data with an all-zero AAGUID.
        var authenticator = try TestAuthenticator(seed: "metadata trust credential")
        authenticator.aaguid = [UInt8](repeating: 0, count: 16)
        let issued = F.registrationChallenge()
        let response = try authenticator.register(challenge: issued.challenge, Options(attestation: .fidoU2F(ca: world.ca)))
        let kept = try #require(F.register(response, issued: issued, policy: world.policy(first), keepAttestation: true).accepted())
        #expect(kept.record.aaguid == "00000000-0000-0000-0000-000000000000" && kept.record.attestationObject != nil)
        #expect(try MetadataTrust(blob: first).recheck(kept.record, at: F.now)?.name == "Vendor U2F Key")
        let compromised = try blob([.init("ATTESTATION_KEY_COMPROMISE", effectiveDate: "2025-05-01")])
        #expect(throws: WebAuthnError(.metadata, "")) { try MetadataTrust(blob: compromised).recheck(kept.record, at: F.now) }
        // Without the attestation object nothing names the authenticator.
        var bare = kept.record
        bare.attestationObject = nil
        #expect(try MetadataTrust(blob: compromised).recheck(bare, at: F.now) == nil)
        #expect(throws: WebAuthnError(.metadata, "")) {
            try MetadataTrust(blob: compromised, policy: MetadataPolicy(requireEntry: true)).recheck(bare, at: F.now)
        }
    }

    @Test("a server's own trust source: attestation certificates revoked by serial number, around another source")
    func revokedSerials() throws {
        // The shape of Google's Android attestation status list: serial numbers in lowercase hex.
        struct RevokedSerials: AttestationTrustSource {
            let revoked: Set<String>
            let base: any AttestationTrustSource
            /// The list's spelling of a serial number: lowercase hex without leading zeros.
            static func serial(of certificate: Certificate) -> String {
                let hex = certificate.serialNumber.drop { $0 == 0 }.map { String(format: "%02x", $0) }.joined()
                return hex.hasPrefix("0") ? String(hex.dropFirst()) : hex
            }
            func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
                for certificate in authenticator.trustPath {
                    let serial = Self.serial(of: certificate)
                    if revoked.contains(serial) { throw WebAuthnError(.metadata, "attestation certificate \(serial) is revoked") }
                }
                return try base.trust(for: authenticator, at: time)
            }
        }
        let world = try World()
        func policy(_ revoked: Set<String>) -> VerificationPolicy {
            VerificationPolicy(
                attestation: AttestationPolicy(
                    source: RevokedSerials(revoked: revoked, base: FixedTrustAnchors([world.ca.certificate])), chain: .required))
        }
        let accepted = try #require(try register(.androidKey(ca: world.ca), policy: policy(["deadbeef"])).accepted())
        #expect(accepted.attestation.trusted)
        let serial = RevokedSerials.serial(of: try #require(accepted.attestation.trustPath.first))
        let refused = try register(.androidKey(ca: world.ca), policy: policy(["deadbeef", serial]))
        refused.expectRejected(.metadata, step: "§7.1 step 24")
        if case .failure(let error) = refused.result { #expect(error.message.contains("\(serial) is revoked")) }
    }

    @Test("a server's own trust source: an AAGUID allow-list")
    func customSource() throws {
        struct AllowList: AttestationTrustSource {
            let allowed: Set<AAGUID>
            let anchors: [Certificate]
            func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
                guard allowed.contains(authenticator.aaguid) else { throw WebAuthnError(.metadata, "not on the allow-list") }
                return AuthenticatorTrust(anchors: anchors, authenticatorName: "Allowed")
            }
        }
        let world = try World()
        let aaguid = try #require(AAGUID(bytes: TestAuthenticator.defaultAAGUID))
        let allowing = VerificationPolicy(
            attestation: AttestationPolicy(source: AllowList(allowed: [aaguid], anchors: [world.ca.certificate]), chain: .required))
        #expect(try register(.packed(ca: world.ca), policy: allowing).accepted()?.attestation.metadataName == "Allowed")
        let refusing = VerificationPolicy(
            attestation: AttestationPolicy(source: AllowList(allowed: [], anchors: [world.ca.certificate]), chain: .required))
        try register(.packed(ca: world.ca), policy: refusing).expectRejected(.metadata, step: "§7.1 step 24")
    }

    @Test(
        "the requirement's combinations",
        arguments: [
            (AttestationPolicy.Chain.reported, AttestationPolicy.Unattested.accepted, true),
            (.reported, .rejected, false),
            (.required, .accepted, true),
            (.required, .rejected, false),
            (.required, .rejectedWhenRequested, true),
        ])
    func combinations(_ chain: AttestationPolicy.Chain, _ unattested: AttestationPolicy.Unattested, _ selfAccepted: Bool) throws {
        let policy = VerificationPolicy(
            attestation: AttestationPolicy(chain: chain, unattested: unattested))
        let outcome = try register(.packedSelf, policy: policy)
        if selfAccepted { _ = try #require(outcome.accepted()) } else { outcome.expectRejected(.trust, step: "§7.1 step 29") }
    }
}
