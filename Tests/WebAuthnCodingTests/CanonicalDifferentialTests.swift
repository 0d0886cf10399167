import Foundation
import Testing

@testable import WebAuthnCoding

/// Canonical form checked in the pass that decodes (`decodePrefix` with `.ctap2Canonical`, as
/// authenticator data reads a credential key) against the two passes it replaced: decode
/// leniently, then decode the item's bytes again in canonical mode. Both must accept exactly
/// the same inputs, and agree on the item and on where it ended.
@Suite("CBOR: canonical in one pass agrees with lenient-then-canonical")
struct CanonicalDifferentialTests {
    /// The verdict of each way; `nil` for a refusal.
    static func compare(_ input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = input[...]
        let onePass = try? CBOR.decodePrefix(bytes, options: .ctap2Canonical)
        var twoPass: (item: CBORItem, rest: ArraySlice<UInt8>)?
        if let lenient = try? CBOR.decodePrefix(bytes),
            (try? CBOR.decode(lenient.item.encodedBytes, options: .ctap2Canonical)) != nil
        {
            twoPass = lenient
        }
        #expect(
            (onePass == nil) == (twoPass == nil),
            "one pass \(onePass == nil ? "refuses" : "accepts"), two passes \(twoPass == nil ? "refuse" : "accept") \(hexString(input))",
            sourceLocation: sourceLocation)
        if let onePass, let twoPass {
            #expect(identical(onePass.item.value, twoPass.item.value), sourceLocation: sourceLocation)
            #expect(onePass.item.encodedBytes.elementsEqual(twoPass.item.encodedBytes), sourceLocation: sourceLocation)
            #expect(onePass.rest.startIndex == twoPass.rest.startIndex, sourceLocation: sourceLocation)
        }
    }

    @Test("RFC 8949 Appendix A: each example alone and followed by other bytes", arguments: appendixA)
    func appendixAExamples(_ example: AppendixAExample) {
        let input = hex(example.hex)
        Self.compare(input)
        Self.compare(input + [0x01, 0xff])
        // Inside a map as a value, and as the only key, the way a COSE key holds its members.
        Self.compare([0xa1, 0x01] + input)
        Self.compare([0xa1] + input + [0x00])
    }

    @Test("20,000 mutants of the examples and of a COSE key with an extensions map")
    func mutants() {
        var rng = SplitMix64(seed: 0x4341_4e4f_4e49_4341)  // fixed: "CANONICA"
        for _ in 0..<20_000 {
            guard let seed = RandomizedTests.seeds.randomElement(using: &rng) else { continue }
            Self.compare(RandomizedTests.mutate(seed, using: &rng))
        }
    }

    @Test("every credential key and extensions map in Fixtures/")
    func fixtures() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        var authenticatorData: [[UInt8]] = []
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "json", let data = try? Data(contentsOf: url),
                let json = try? JSONSerialization.jsonObject(with: data)
            else { continue }
            Self.collect(json, into: &authenticatorData)
        }
        #expect(authenticatorData.count > 100, "fixtures found: \(authenticatorData.count)")
        var keys = 0
        for bytes in authenticatorData {
            guard bytes.count >= 37 else { continue }
            var offset = 37
            if bytes[32] & 0x40 != 0 {
                guard bytes.count >= 55 else { continue }
                offset = 55 + Int(bytes[53]) << 8 + Int(bytes[54])
                guard offset <= bytes.count else { continue }
                Self.compare(Array(bytes[offset...]))
                keys += 1
                guard let key = try? CBOR.decodePrefix(bytes[offset...]) else { continue }
                offset = key.rest.startIndex
            }
            if offset < bytes.count { Self.compare(Array(bytes[offset...])) }
        }
        #expect(keys > 50, "credential keys compared: \(keys)")
    }

    /// Authenticator data from every `authenticatorData` member and every attestation object.
    static func collect(_ json: Any, into found: inout [[UInt8]]) {
        if let object = json as? [String: Any] {
            for (name, value) in object {
                if let text = value as? String, let bytes = try? Base64URL.decode(text) {
                    if name == "authenticatorData" {
                        found.append(bytes)
                    } else if name == "attestationObject", let item = try? CBOR.decode(bytes),
                        let authData = item.mapEntries?.first(where: { $0.key.text == "authData" })?.value.bytes
                    {
                        found.append(Array(authData))
                    }
                } else {
                    collect(value, into: &found)
                }
            }
        } else if let array = json as? [Any] {
            for value in array { collect(value, into: &found) }
        }
    }
}
