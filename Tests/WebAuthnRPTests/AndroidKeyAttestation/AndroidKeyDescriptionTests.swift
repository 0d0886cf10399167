import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The KeyDescription reader over every attestation version, strict DER, unknown fields skipped;
/// and the attestation status list's strict loader.
@Suite("Android key description")
struct AndroidKeyDescriptionTests {
    static let bootKey = [UInt8](repeating: 0xB0, count: 32)

    /// A description of `version` as its schema writes it: versions 1 and 2 end the root of trust
    /// after the state.
    static func description(version: Int) -> TestKeyDescription {
        var description = TestKeyDescription(challenge: Array("challenge".utf8))
        description.attestationVersion = version
        description.keymasterVersion = version < 100 ? [1: 2, 2: 3, 3: 4, 4: 41][version] ?? 4 : version
        description.softwareEnforced = [
            TestKeyDescription.integer(701, 1_700_000_000_000),  // creationDateTime, skipped
            TestKeyDescription.applicationId(packages: [("com.example.app", 7)], digests: [[UInt8](repeating: 9, count: 32)]),
        ]
        description.teeEnforced = [
            TestKeyDescription.purposes([2, 3]), TestKeyDescription.integer(2, 3), TestKeyDescription.integer(10, 1),
            TestKeyDescription.integer(702, 0),
            TestKeyDescription.rootOfTrust(
                bootKey: bootKey, locked: true, state: 0, bootHash: version >= 3 ? [UInt8](repeating: 0xB1, count: 32) : nil),
            TestKeyDescription.integer(705, 140000), TestKeyDescription.integer(706, 202_401),
        ]
        if version >= 3 {
            description.teeEnforced += [TestKeyDescription.integer(718, 20_240_105), TestKeyDescription.integer(719, 20_240_105)]
        }
        // Fields later schemas added, which this reader skips: moduleHash [724], a tag no schema has yet.
        if version >= 400 { description.softwareEnforced += [TestKeyDescription.field(724, DEREncoder.octetString([1, 2, 3]))] }
        description.teeEnforced.append(TestKeyDescription.field(9999, DEREncoder.null()))
        return description
    }

    @Test(
        "attestation versions 1, 2, 3, 4, 100, 200, 300 and 400 read every field the checks use",
        arguments: [1, 2, 3, 4, 100, 200, 300, 400])
    func versions(version: Int) throws {
        let parsed = try AndroidKeyDescription(derEncoded: Self.description(version: version).der)
        #expect(parsed.attestationVersion == version)
        #expect(parsed.attestationSecurityLevel == 1 && parsed.keymasterSecurityLevel == 1)
        #expect(parsed.attestationChallenge == Array("challenge".utf8))
        let tee = parsed.teeEnforced
        #expect(tee.purposes == [2, 3] && tee.algorithm == 3 && tee.ecCurve == 1 && tee.origin == 0)
        #expect(tee.rootOfTrust?.verifiedBootKey == Self.bootKey && tee.rootOfTrust?.deviceLocked == true)
        #expect(tee.rootOfTrust?.verifiedBootState == 0)
        #expect((tee.rootOfTrust?.verifiedBootHash != nil) == (version >= 3))
        #expect(tee.osVersion == 140000 && tee.osPatchLevel == 202_401)
        #expect(tee.vendorPatchLevel == (version >= 3 ? 20_240_105 : nil) && tee.bootPatchLevel == tee.vendorPatchLevel)
        let application = try AndroidAttestationApplicationId(derEncoded: try #require(parsed.softwareEnforced.attestationApplicationIdDER))
        #expect(application.packages == [.init(name: "com.example.app", version: 7)])
        #expect(application.signatureDigests == [[UInt8](repeating: 9, count: 32)])
    }

    @Test("elements after the eighth are ignored, as a future schema may append some")
    func trailingElements() throws {
        var description = Self.description(version: 400)
        description.trailing = [DEREncoder.integer(5), DEREncoder.octetString([1])]
        #expect(try AndroidKeyDescription(derEncoded: description.der).attestationVersion == 400)
    }

    @Test("a field read here given twice, a field that is not an explicit tag, or a malformed nested structure is refused")
    func strict() throws {
        let base = Self.description(version: 300)
        var twice = base
        twice.teeEnforced.append(TestKeyDescription.integer(705, 150000))
        #expect(throws: DERError.self) { try AndroidKeyDescription(derEncoded: twice.der) }
        var implicit = base
        implicit.teeEnforced.append(DEREncoder.tlv(DERTag(.contextSpecific, number: 5, constructed: false), [1]))
        #expect(throws: DERError.self) { try AndroidKeyDescription(derEncoded: implicit.der) }
        // deviceLocked as BOOLEAN 0x01 (BER, not DER).
        let berBoolean = TestKeyDescription.field(
            704, DEREncoder.sequence([DEREncoder.octetString(Self.bootKey), DEREncoder.tlv(.boolean, [0x01]), DEREncoder.enumerated(0)]))
        let rootsOfTrust = [
            berBoolean,
            TestKeyDescription.field(704, DEREncoder.sequence([DEREncoder.octetString(Self.bootKey), DEREncoder.boolean(true)])),
            TestKeyDescription.field(
                704,
                DEREncoder.sequence([
                    DEREncoder.octetString(Self.bootKey), DEREncoder.boolean(true), DEREncoder.enumerated(0), DEREncoder.octetString([1]),
                    DEREncoder.octetString([2]),
                ])),
        ]
        for rootOfTrust in rootsOfTrust {
            var edited = base
            edited.teeEnforced = edited.teeEnforced.filter { (try? DER.parse($0).tag.number) != 704 } + [rootOfTrust]
            #expect(throws: DERError.self) { try AndroidKeyDescription(derEncoded: edited.der) }
        }
        let applicationIds = [
            TestKeyDescription.field(709, DEREncoder.octetString(DEREncoder.sequence([DEREncoder.set([])]))),
            TestKeyDescription.field(709, DEREncoder.octetString([0x30, 0x05])),
            TestKeyDescription.field(
                709,
                DEREncoder.octetString(
                    DEREncoder.sequence([
                        DEREncoder.set([DEREncoder.sequence([DEREncoder.octetString([0xFF, 0xFE]), DEREncoder.integer(1)])]),
                        DEREncoder.set([]),
                    ]))),
        ]
        for applicationId in applicationIds {
            let field = try DER.parse(applicationId).children()
            let der = Array(try #require(field.first).octetString())
            #expect(throws: DERError.self) { try AndroidAttestationApplicationId(derEncoded: der) }
        }
    }

    @Test("the shipped status list reads, with its date; names a revoked serial in any spelling of its hex")
    func snapshot() throws {
        let list = AndroidAttestationStatusList.snapshot
        #expect(list.entries.count == AndroidAttestationStatusList.snapshotEntries.count && list.entries.count > 400)
        #expect(AndroidAttestationStatusList.snapshotDate.ISO8601Format() == "2024-11-21T00:00:00Z")
        let (serial, entry) = try #require(AndroidAttestationStatusList.snapshotEntries.first.map { ($0.serial, $0) })
        var bytes: [UInt8] = []
        var digits = Array((serial.count % 2 == 1 ? "0" : "") + serial)
        while digits.count >= 2 {
            bytes.append(try #require(UInt8(String(digits.prefix(2)), radix: 16)))
            digits.removeFirst(2)
        }
        #expect(list.status(ofSerial: [0] + bytes)?.status == entry.status)
        #expect(list.status(ofSerial: [0x7F, 0x7F]) == nil)
    }

    @Test("a newer status list is read strictly")
    func loader() throws {
        let good = try AndroidAttestationStatusList(
            jsonData: Data(
                #"{"entries": {"2C8cdddfd5e03bfc": {"status": "REVOKED", "expires": "2020-11-13", "reason": "KEY_COMPROMISE", "comment": "x"}, "c8966fcb2fbb0d7a": {"status": "SUSPENDED"}}}"#
                    .utf8))
        #expect(good.status(ofSerial: [0x2c, 0x8c, 0xdd, 0xdf, 0xd5, 0xe0, 0x3b, 0xfc])?.reason == "KEY_COMPROMISE")
        #expect(good.status(ofSerial: [0xc8, 0x96, 0x6f, 0xcb, 0x2f, 0xbb, 0x0d, 0x7a])?.status == "SUSPENDED")
        let refused = [
            #"[]"#, #"{}"#, #"{"entries": {}}"#, #"{"entries": []}"#,
            #"{"entries": {"xyz": {"status": "REVOKED"}}}"#,
            #"{"entries": {"": {"status": "REVOKED"}}}"#,
            #"{"entries": {"01": {"status": "REVOKED"}, "1": {"status": "REVOKED"}}}"#,
            #"{"entries": {"1": {"status": "revoked"}}}"#,
            #"{"entries": {"1": {}}}"#,
            #"{"entries": {"1": {"status": "REVOKED", "reason": 3}}}"#,
            #"{"entries": {"1": {"status": "REVOKED"}, "1": {"status": "REVOKED"}}}"#,
            #"{"entries": {"1": {"status": "REVOKED"}}"#,
        ]
        for text in refused {
            #expect(throws: WebAuthnError(.malformed, "")) { try AndroidAttestationStatusList(jsonData: Data(text.utf8)) }
        }
    }
}
