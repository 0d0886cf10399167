import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The MDS3 BLOB: JWS, signing chain (root, time, CRLs), payload, index.
@Suite("FIDO metadata BLOB")
struct MetadataBLOBTests {
    static let now = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01
    static let aaguid = "01020304-0506-0708-090a-0b0c0d0e0f10"

    static func service(_ signerKind: PrivateKey.Kind = .p256, signerNotAfter: Date? = nil) throws -> TestMetadataService {
        try TestMetadataService.make(seed: "blob tests", signerKind: signerKind, signerNotAfter: signerNotAfter)
    }

    static func entries() -> [[String: Any]] {
        var u2f = TestMetadataService.Entry(aaguid: nil, description: "Test U2F Key")
        u2f.keyIdentifiers = ["AABBCCDDEEFF00112233445566778899AABBCCDD"]
        u2f.protocolFamily = "u2f"
        var revoked = TestMetadataService.Entry(aaguid: "11111111-2222-3333-4444-555555555555", description: "Revoked Key")
        revoked.statuses = [.init("FIDO_CERTIFIED_L1", effectiveDate: "2023-01-01"), .init("REVOKED", effectiveDate: "2024-02-01")]
        return [TestMetadataService.Entry(aaguid: aaguid, description: "Test Key").json, u2f.json, revoked.json]
    }

    func failure(_ body: () throws(WebAuthnError) -> MetadataBLOB) -> WebAuthnError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a valid ES256 BLOB verifies; entries are found by AAGUID and by key identifier")
    func valid() throws {
        let mds = try Self.service()
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()))
        let blob = try MetadataBLOB(jws: (text + "\n").utf8, trustAnchor: mds.root.certificate, at: Self.now)
        #expect(blob.number == 7)
        #expect(blob.entries.count == 3)
        #expect(blob.signingChain.count == 3)
        #expect(blob.nextUpdate == Date(timeIntervalSince1970: 1_751_328_000))  // 2025-07-01
        #expect(!blob.isStale(at: Self.now))
        // Stale once the nextUpdate day is over: FIDO may publish at any hour of it.
        #expect(!blob.isStale(at: Date(timeIntervalSince1970: 1_751_328_001)))  // 2025-07-01T00:00:01Z
        #expect(!blob.isStale(at: Date(timeIntervalSince1970: 1_751_414_399)))  // 2025-07-01T23:59:59Z
        #expect(blob.isStale(at: Date(timeIntervalSince1970: 1_751_414_400)))  // 2025-07-02T00:00:00Z
        let upper = try #require(AAGUID(uuidString: Self.aaguid.uppercased()))
        let entry = try #require(blob.entry(aaguid: upper))
        #expect(entry.name == "Test Key")
        #expect(entry.status == .fidoCertifiedL1)
        #expect(entry.certificationLevel == .l1)
        #expect(entry.statement?.attestationTypes == ["basic_full"])
        #expect(entry.statement?.keyProtection == ["hardware", "secure_element"])
        #expect(entry.statement?.userVerificationDetails.count == 2)
        #expect(entry.icon?.hasPrefix("data:image/png") == true)
        #expect(blob.entry(attestationCertificateKeyIdentifier: "aabbccddeeff00112233445566778899aabbccdd")?.name == "Test U2F Key")
        let revokedAAGUID = try #require(AAGUID(uuidString: "11111111-2222-3333-4444-555555555555"))
        let revoked = try #require(blob.entry(aaguid: revokedAAGUID))
        #expect(revoked.status == .revoked)
        #expect(revoked.certificationLevel == nil)
        #expect(blob.entry(aaguid: .zero) == nil)
    }

    @Test("RS256 and PS256 BLOBs verify with an RSA signing certificate", arguments: ["RS256", "PS256"])
    func rsa(_ alg: String) throws {
        let mds = try Self.service(.rsa(bits: 2048))
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()), alg: alg)
        #expect(try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now).entries.count == 3)
    }

    @Test("a signature by another key is refused (metadata)")
    func badSignature() throws {
        let mds = try Self.service()
        let other = try PrivateKey.derive(.p256, seed: "not the signer")
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()), signingKey: other)
        let error = failure { () throws(WebAuthnError) in try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains("signature does not verify") == true, "\(String(describing: error))")
    }

    @Test("a payload changed after signing is refused")
    func tamperedPayload() throws {
        let mds = try Self.service()
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()))
        let parts = text.split(separator: ".").map(String.init)
        let forged = try TestMetadataService.payload(entries: Self.entries(), number: 8)
        let tampered = parts[0] + "." + Base64URL.encode(forged) + "." + parts[2]
        let error = failure { () throws(WebAuthnError) in
            try MetadataBLOB(jws: tampered.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        }
        #expect(error?.category == .metadata)
    }

    @Test("a chain to another root is refused")
    func wrongRoot() throws {
        let mds = try Self.service()
        let other = try TestMetadataService.make(seed: "another root")
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()))
        let error = failure { () throws(WebAuthnError) in
            try MetadataBLOB(jws: text.utf8, trustAnchor: other.root.certificate, at: Self.now)
        }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains("x5c signing chain") == true, "\(String(describing: error))")
    }

    @Test("an expired signing certificate is refused; before its end it verifies")
    func expiredSigner() throws {
        let mds = try Self.service(signerNotAfter: Date(timeIntervalSince1970: 1_740_787_200))  // 2025-03-01
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()))
        let error = failure { () throws(WebAuthnError) in try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains("expired") == true, "\(String(describing: error))")
        _ = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: TestMetadataService.reference)
    }

    @Test("a signing certificate listed in the intermediate's CRL is refused; an empty CRL passes")
    func revokedSigner() throws {
        let mds = try Self.service()
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()))
        let start = TestMetadataService.reference, end = Self.now.addingTimeInterval(86_400 * 30)
        let revoking = try TestMetadataService.crl(issuer: mds.intermediate, revokedSerials: [[0x03]], thisUpdate: start, nextUpdate: end)
        let error = failure { () throws(WebAuthnError) in
            try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, crls: [revoking], at: Self.now)
        }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains("revoked") == true, "\(String(describing: error))")
        let clean = try TestMetadataService.crl(issuer: mds.intermediate, revokedSerials: [[0x09]], thisUpdate: start, nextUpdate: end)
        let rootCRL = try TestMetadataService.crl(issuer: mds.root, revokedSerials: [], thisUpdate: start, nextUpdate: end)
        _ = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, crls: [clean, rootCRL], at: Self.now)
        // A certificate whose issuer has no list given (the intermediate: no root CRL) is not checked.
        _ = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, crls: [clean], at: Self.now)
        // The intermediate revoked by the root's list.
        let rootRevoking = try TestMetadataService.crl(issuer: mds.root, revokedSerials: [[0x02]], thisUpdate: start, nextUpdate: end)
        #expect(
            failure { () throws(WebAuthnError) in
                try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, crls: [clean, rootRevoking], at: Self.now)
            }?.category == .metadata)
        // A list past its nextUpdate refuses the BLOB too.
        let expiredList = try TestMetadataService.crl(
            issuer: mds.intermediate, revokedSerials: [], thisUpdate: start,
            nextUpdate: start.addingTimeInterval(86_400))
        #expect(
            failure { () throws(WebAuthnError) in
                try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, crls: [expiredList], at: Self.now)
            }?.category == .metadata)
    }

    @Test("without x5c the trust anchor itself is the signer (MDS3 §3.2)")
    func noX5C() throws {
        let mds = try Self.service()
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()), x5c: [], signingKey: mds.root.key)
        #expect(try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now).signingChain.count == 1)
        let bySigner = try mds.blob(payload: try TestMetadataService.payload(entries: Self.entries()), x5c: [])
        #expect(
            failure { () throws(WebAuthnError) in try MetadataBLOB(jws: bySigner.utf8, trustAnchor: mds.root.certificate, at: Self.now) }?
                .category == .metadata)
    }

    @Test(
        "hostile JWS and payloads are refused with metadata, naming what failed",
        arguments: [
            ("not a jws", "compact JWS"),
            ("a.b", "compact JWS"),
            ("", "compact JWS"),
        ])
    func hostileJWS(_ text: String, _ expected: String) throws {
        let mds = try Self.service()
        let error = failure { () throws(WebAuthnError) in try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }

    @Test("header rules: alg must be supported, crit is refused, x5c must be strings")
    func headerRules() throws {
        let mds = try Self.service()
        func jws(header: [String: Any]) throws -> String {
            let h = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])))
            return h + "." + Base64URL.encode(Array("{}".utf8)) + "." + Base64URL.encode([1, 2, 3])
        }
        let cases: [([String: Any], String)] = [
            (["alg": "none"], "alg none is not supported"),
            (["alg": "HS256"], "alg HS256 is not supported"),
            (["typ": "JWT"], "alg is missing"),
            (["alg": "ES256", "crit": ["exp"]], "crit"),
            (["alg": "ES256", "x5c": "MIIB"], "x5c is not an array"),
            (["alg": "ES256", "x5c": [1]], "x5c[0] is not a string"),
            (["alg": "ES256", "x5c": ["!!"]], "x5c[0] is not base64"),
            (["alg": "ES256", "x5c": ["AAAA"]], "x5c[0] does not parse"),
            (["alg": "ES256", "x5u": "https://example.org/chain"], "x5u"),
        ]
        for (header, expected) in cases {
            let text = try jws(header: header)
            let error = failure { () throws(WebAuthnError) in
                try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
            }
            #expect(error?.category == .metadata)
            #expect(error?.message.contains(expected) == true, "\(expected): \(String(describing: error))")
        }
    }

    @Test("payload rules: the top level is strict, each member the library uses is type-checked, the path named")
    func payloadRules() throws {
        let mds = try Self.service()
        func refused(_ object: [String: Any], _ expected: String) throws {
            let payload = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            let text = try mds.blob(payload: payload)
            let error = failure { () throws(WebAuthnError) in
                try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
            }
            #expect(error?.category == .metadata)
            #expect(error?.message.contains(expected) == true, "\(expected): \(String(describing: error))")
        }
        try refused(["no": 1, "nextUpdate": "2025-07-01"], "payload.entries is missing")
        try refused(["no": 1, "nextUpdate": "2025-07-01", "entries": ["aaguid": Self.aaguid]], "payload.entries is not an array")
        try refused(["no": 1, "nextUpdate": "2025-13-01", "entries": []], "payload.nextUpdate is not a date")
        try refused(["no": 1.5, "nextUpdate": "2025-07-01", "entries": []], "payload.no is not an integer")
        try refused(["no": 1, "nextUpdate": "2025-07-01", "legalHeader": 3, "entries": []], "payload.legalHeader is not a string")
        // Too deep: nesting beyond the reader's limit.
        var deep: Any = "x"
        for _ in 0..<40 { deep = [deep] }
        try refused(["no": 1, "nextUpdate": "2025-07-01", "entries": [], "extra": deep], "payload is not JSON")
    }

    /// A signed BLOB of `broken` then a good entry (another AAGUID): the good one is indexed, the broken one skipped.
    func skipping(_ broken: Any, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> MetadataBLOB.SkippedEntry?
    {
        let mds = try Self.service()
        let good = TestMetadataService.Entry(aaguid: "99999999-8888-7777-6666-555555555555", description: "Good Key").json
        let object: [String: Any] = ["no": 1, "nextUpdate": "2025-07-01", "entries": [broken, good]]
        let text = try mds.blob(payload: Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        #expect(blob.entries.map { $0.name } == ["Good Key"], sourceLocation: sourceLocation)
        let goodAAGUID = try #require(AAGUID(uuidString: "99999999-8888-7777-6666-555555555555"))
        #expect(blob.entry(aaguid: goodAAGUID)?.name == "Good Key", sourceLocation: sourceLocation)
        #expect(blob.skippedEntries.count == 1, sourceLocation: sourceLocation)
        let skipped = blob.skippedEntries.first
        #expect(skipped?.index == 0, sourceLocation: sourceLocation)
        #expect(skipped?.reason.contains(expected) == true, "\(expected): \(String(describing: skipped))", sourceLocation: sourceLocation)
        if let aaguid = skipped?.aaguid { #expect(blob.entry(aaguid: aaguid) == nil, sourceLocation: sourceLocation) }
        return skipped
    }

    @Test("an entry whose trust members cannot be read is skipped with the reason; the others still count")
    func skippedEntries() throws {
        let good = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Test Key").json
        let statement = try #require(good["metadataStatement"] as? [String: Any])
        func edited(_ edit: (inout [String: Any], inout [String: Any]) -> Void) -> [String: Any] {
            var entry = good, inner = statement
            edit(&entry, &inner)
            entry["metadataStatement"] = inner
            return entry
        }
        _ = try skipping(1, "payload.entries[0] is not an object")
        _ = try skipping(edited { entry, _ in entry["aaguid"] = "not-an-aaguid" }, "payload.entries[0].aaguid is not an AAGUID")
        _ = try skipping(
            edited { entry, _ in entry["attestationCertificateKeyIdentifiers"] = ["abc"] },
            "payload.entries[0].attestationCertificateKeyIdentifiers[0] is not a 20-byte hex key identifier")
        _ = try skipping(
            edited { _, inner in inner["attestationTypes"] = ["basic_full", 3] },
            "payload.entries[0].metadataStatement.attestationTypes[1] is not a string")
        _ = try skipping(
            edited { _, inner in inner["attestationRootCertificates"] = ["***"] },
            "payload.entries[0].metadataStatement.attestationRootCertificates[0] is not base64 DER")
        _ = try skipping(
            edited { _, inner in inner["attestationRootCertificates"] = nil },
            "payload.entries[0].metadataStatement.attestationRootCertificates is missing")
        _ = try skipping(
            edited { entry, _ in entry["statusReports"] = [["effectiveDate": "2024-01-01"]] },
            "payload.entries[0].statusReports[0].status is missing")
        _ = try skipping(
            edited { entry, _ in entry["statusReports"] = [["status": "REVOKED", "effectiveDate": "2024-13-01"]] },
            "payload.entries[0].statusReports[0].effectiveDate is not a date")
        _ = try skipping(
            edited { entry, _ in entry["statusReports"] = [["status": "ATTESTATION_KEY_COMPROMISE", "certificate": "AAAA"]] },
            "payload.entries[0].statusReports[0].certificate is not a base64 DER certificate")
        let skipped = try skipping(
            edited { entry, _ in entry["statusReports"] = "REVOKED" }, "payload.entries[0].statusReports is not an array")
        // Its identifiers are reported, so that the operator sees which authenticator lost its entry.
        #expect(skipped?.aaguid == AAGUID(uuidString: Self.aaguid))
    }

    @Test("a skipped entry's authenticator has no entry, even when a later entry lists it too")
    func skippedEntryNotReplaced() throws {
        let mds = try Self.service()
        var broken = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Broken").json
        broken["statusReports"] = [["status": 7]]
        let duplicate = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Duplicate").json
        var u2fBroken = TestMetadataService.Entry(aaguid: nil, description: "Broken U2F")
        u2fBroken.keyIdentifiers = ["AABBCCDDEEFF00112233445566778899AABBCCDD"]
        var u2fBrokenJSON = u2fBroken.json
        u2fBrokenJSON["aaguid"] = 5
        var u2fDuplicate = TestMetadataService.Entry(aaguid: nil, description: "Duplicate U2F")
        u2fDuplicate.keyIdentifiers = ["aabbccddeeff00112233445566778899aabbccdd"]
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [broken, duplicate, u2fBrokenJSON, u2fDuplicate.json]))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        #expect(blob.entries.count == 2 && blob.skippedEntries.map(\.index) == [0, 2])
        #expect(blob.skippedEntries.last?.attestationCertificateKeyIdentifiers == ["aabbccddeeff00112233445566778899aabbccdd"])
        let aaguid = try #require(AAGUID(uuidString: Self.aaguid))
        #expect(blob.entry(aaguid: aaguid) == nil)
        #expect(blob.entry(attestationCertificateKeyIdentifier: "aabbccddeeff00112233445566778899aabbccdd") == nil)
    }

    @Test("descriptive members are read leniently: userVerification for userVerificationMethod, malformed ones ignored")
    func lenientDescriptiveMembers() throws {
        let mds = try Self.service()
        var entry = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Conformance Key").json
        var statement = try #require(entry["metadataStatement"] as? [String: Any])
        // As the FIDO conformance tools' MDS3 BLOB writes it.
        statement["userVerificationDetails"] = [
            [["userVerification": "fingerprint_internal"]],
            [["userVerificationMethod": "passcode_external"], ["userVerification": 2], 7],
        ]
        statement["icon"] = 12
        statement["keyProtection"] = ["hardware", 3]
        statement["authenticatorVersion"] = -1
        statement["protocolFamily"] = ["fido2"]
        entry["metadataStatement"] = statement
        entry["timeOfLastStatusChange"] = 20240101
        entry["statusReports"] = [
            [
                "status": "FIDO_CERTIFIED_L1", "effectiveDate": "2024-01-01", "url": 1, "certificateNumber": [],
                "certificationDescriptor": false,
            ]
        ]
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [entry]))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        #expect(blob.skippedEntries.isEmpty)
        let aaguid = try #require(AAGUID(uuidString: Self.aaguid))
        let parsed = try #require(blob.entry(aaguid: aaguid))
        #expect(parsed.name == "Conformance Key")
        #expect(parsed.statement?.userVerificationDetails.map { $0.map(\.method) } == [["fingerprint_internal"], ["passcode_external"]])
        #expect(parsed.statement?.icon == nil && parsed.statement?.keyProtection == ["hardware"])
        #expect(parsed.statement?.authenticatorVersion == 0 && parsed.statement?.protocolFamily == "")
        #expect(parsed.status == .fidoCertifiedL1)
        // What the library does not read still reaches the server, as the BLOB wrote it.
        let written = try #require(parsed.json.objectValue)
        #expect(written["timeOfLastStatusChange"] == .number(20240101))
        #expect(written["metadataStatement"]?.objectValue?["keyProtection"] == .array([.string("hardware"), .number(3)]))
        #expect(written["statusReports"]?.arrayValue?.first?.objectValue?["url"] == .number(1))
        #expect(parsed.statement?.attestationTypes == ["basic_full"])
    }

    @Test("attestation roots: standard base64 with or without padding, line breaks skipped")
    func rootEncodings() throws {
        let mds = try Self.service()
        let der = mds.intermediate.certificate.derBytes
        let padded = Data(der).base64EncodedString()
        let wrapped = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let unpadded = String(padded.prefix { $0 != "=" })
        var entry = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Encodings").json
        var statement = try #require(entry["metadataStatement"] as? [String: Any])
        statement["attestationRootCertificates"] = [padded, wrapped, unpadded]
        entry["metadataStatement"] = statement
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [entry]))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        #expect(blob.entries.first?.statement?.attestationRootCertificates == [der, der, der])
    }

    @Test("an oversized BLOB is refused before parsing")
    func oversized() throws {
        let mds = try Self.service()
        let huge = [UInt8](repeating: UInt8(ascii: "A"), count: MetadataBLOB.maximumBytes + 1)
        let error = failure { () throws(WebAuthnError) in try MetadataBLOB(jws: huge, trustAnchor: mds.root.certificate, at: Self.now) }
        #expect(error?.category == .metadata)
        #expect(error?.message.contains("exceeds the limit") == true)
    }

    @Test("the latest status report is the one with the latest effectiveDate")
    func latestStatus() throws {
        var entry = TestMetadataService.Entry(aaguid: Self.aaguid, description: "Order")
        // Written out of date order: the latest by date is not the last written.
        entry.statuses = [
            .init("USER_VERIFICATION_BYPASS", effectiveDate: "2024-06-01"),
            .init("UPDATE_AVAILABLE", effectiveDate: "2024-09-01"),
            .init("FIDO_CERTIFIED_L2", effectiveDate: "2023-01-01"),
        ]
        let mds = try Self.service()
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [entry.json]))
        let blob = try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: Self.now)
        let parsed = try #require(blob.entries.first)
        #expect(parsed.status == .updateAvailable)
        #expect(parsed.certificationLevel == .l2)
    }

    @Test("MDS3 dates: full-date only, calendar-checked")
    func dates() {
        #expect(MetadataDate.parse("2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(MetadataDate.parse("1970-01-01") == Date(timeIntervalSince1970: 0))
        for bad in ["2023-02-29", "2024-00-10", "2024-1-10", "2024-01-32", "20240101", "2024-01-01T00:00:00Z", "２０２４-01-01"] {
            #expect(MetadataDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("the production root constant is GlobalSign Root CA - R3, by its published SHA-256 fingerprint")
    func productionRoot() throws {
        let root = try #require(KnownAttestationRoots.fidoMetadataServiceRoot)
        let fingerprint = Digest.sha256.hash(root.derBytes).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == "cbb522d7b7f127ad6a0113865bdf1cd4102e7d0759af635a7cf4720dc963c53b")
        #expect(root.subject.description.contains("GlobalSign Root CA - R3"))
    }

    @Test("a key identifier is the SHA-1 of the subjectPublicKey bits (RFC 5280 method 1)")
    func keyIdentifier() throws {
        let mds = try Self.service()
        let certificate = mds.signer.certificate
        let identifier = try #require(MetadataBLOB.keyIdentifier(of: certificate))
        let ski = try #require(certificate.publicKey.ecCoordinates)
        let point = [UInt8(0x04)] + ski.x + ski.y
        #expect(identifier == Digest.sha1.hash(point).map { String(format: "%02x", $0) }.joined())
    }
}
