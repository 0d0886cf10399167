import Testing

@testable import WebAuthnCoding

/// Mutation fuzzing with a fixed seed, so a failure reproduces exactly. The
/// decoder may accept or refuse a mutant; it must never trap (a trap kills the
/// test process), and what it accepts must behave like CBOR.
@Suite("CBOR: randomized mutations")
struct RandomizedTests {
    static let seeds: [[UInt8]] =
        appendixA.map { hex($0.hex) } + [
            // A COSE EC2 key followed by an extensions map, as in authenticator data.
            hex(
                "a5 01 02 03 26 20 01 21 5820" + String(repeating: "11", count: 32) + " 22 5820"
                    + String(repeating: "22", count: 32) + "a1 6b 6372656450726f74656374 02"),
            // An attestation object shape.
            hex("a3 63 666d74 64 6e6f6e65 67 61747453746d74 a0 68 61757468446174 61 44 01020304"),
        ]

    /// Bytes that steer the decoder into interesting paths.
    static let interesting: [UInt8] = [
        0x00, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, 0x20, 0x3b, 0x40, 0x5b, 0x5f, 0x60, 0x7b, 0x7f,
        0x80, 0x9b, 0x9f, 0xa0, 0xbb, 0xbf, 0xc0, 0xd8, 0xdb, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xff,
        0x7f, 0xc0, 0xed, 0xf4, 0x80,
    ]

    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...4, using: &rng)
        for _ in 0..<rounds {
            let choice = Int.random(in: 0..<7, using: &rng)
            if bytes.isEmpty { bytes.append(UInt8.random(in: 0...255, using: &rng)); continue }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch choice {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 2: bytes[at] = interesting.randomElement(using: &rng) ?? 0
            case 3: bytes.insert(interesting.randomElement(using: &rng) ?? 0, at: at)
            case 4: bytes.remove(at: at)
            case 5:  // duplicate a span
                let end = Swift.min(bytes.count, at + Int.random(in: 1...8, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            default:  // splice in part of another seed
                let other = seeds.randomElement(using: &rng) ?? []
                if !other.isEmpty {
                    let from = Int.random(in: 0..<other.count, using: &rng)
                    bytes.insert(contentsOf: other[from...].prefix(6), at: at)
                }
            }
        }
        return bytes
    }

    @Test("20,000 mutants of valid inputs decode or throw CBORError, never trap")
    func mutants() {
        var rng = SplitMix64(seed: 0x5745_4241_5554_484e)  // fixed: "WEBAUTHN"
        var accepted = 0
        var codes: Set<CBORError.Code> = []
        for _ in 0..<20_000 {
            guard let seed = Self.seeds.randomElement(using: &rng) else { continue }
            let input = Self.mutate(seed, using: &rng)
            for options in [CBORDecodingOptions.default, .ctap2Canonical] {
                let item: CBORItem
                do {
                    item = try CBOR.decode(input, options: options)
                } catch {
                    codes.insert(error.code)
                    #expect(error.offset >= 0 && error.offset <= input.count)
                    continue
                }
                accepted += 1
                // Accepted input: the item spans it exactly and its canonical
                // re-encoding is stable and accepted by the canonical decoder.
                guard Array(item.encodedBytes) == input else {
                    Issue.record("encodedBytes differ for \(hexString(input))")
                    continue
                }
                let canonical = CBOREncoder.encode(item)
                do {
                    let again = try CBOR.decode(canonical, options: .ctap2Canonical)
                    #expect(CBOREncoder.encode(again) == canonical, "\(hexString(input))")
                } catch {
                    Issue.record("re-encoding of \(hexString(input)) refused: \(error)")
                }
            }
            // decodePrefix splits the input into one item and an untouched rest.
            if let (item, rest) = try? CBOR.decodePrefix(input[...]) {
                #expect(Array(item.encodedBytes) + Array(rest) == input)
            }
        }
        // The run exercised both outcomes and most error codes.
        #expect(accepted > 1_000)
        #expect(
            codes.isSuperset(of: [.truncated, .invalid, .limit, .trailing, .invalidUTF8, .nonCanonical]),
            "codes seen: \(codes)")
    }

    @Test("random byte strings never trap")
    func randomBytes() {
        var rng = SplitMix64(seed: 8949)
        var accepted = 0
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...24, using: &rng)
            let input = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if (try? CBOR.decode(input)) != nil { accepted += 1 }
            if let (item, rest) = try? CBOR.decodePrefix(input[...], options: .ctap2Canonical) {
                #expect(item.encodedBytes.count + rest.count == input.count)
            }
        }
        #expect(accepted > 0 && accepted < 5_000)
    }
}
