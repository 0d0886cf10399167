import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

@Suite("ECDSA raw r||s to DER")
struct ECDSASignatureTests {
    /// Splits a DER ECDSA-Sig-Value into fixed-width r || s, as JOSE carries it.
    func raw(fromDER der: [UInt8], coordinateLength: Int) throws -> [UInt8] {
        let integers = try DER.parse(der[...]).children()
        #expect(integers.count == 2)
        return try integers.flatMap { node -> [UInt8] in
            let magnitude = Array(try node.unsignedIntegerBytes().drop(while: { $0 == 0 }))
            return Array(repeating: 0, count: coordinateLength - magnitude.count) + magnitude
        }
    }

    @Test(
        "a libcrypto signature split into r||s converts back to the same DER and verifies",
        arguments: [(PrivateKey.Kind.p256, COSEAlgorithm.es256, 32), (.p384, .es384, 48), (.p521, .es512, 66)])
    func roundTrip(kind: PrivateKey.Kind, algorithm: COSEAlgorithm, coordinateLength: Int) throws {
        let key = try PrivateKey.generate(kind)
        let message = Array("header.payload".utf8)
        for _ in 0..<8 {  // several signatures, so short r or s values come up too
            let der = try key.sign(message, algorithm: algorithm)
            let converted = try ECDSASignature.derEncoded(
                raw: try raw(fromDER: der, coordinateLength: coordinateLength)[...],
                coordinateLength: coordinateLength)
            #expect(converted == der)
            #expect(try key.publicKey.verify(signature: converted[...], over: message[...], algorithm: algorithm))
        }
    }

    @Test("a raw signature that is not exactly two coordinates long is malformedSignature")
    func wrongLength() {
        for length in [0, 63, 65, 128] {
            #expect(throws: CryptoError(.malformedSignature, "")) {
                _ = try ECDSASignature.derEncoded(raw: Array(repeating: 1, count: length)[...], coordinateLength: 32)
            }
        }
    }
}

@Suite("ECDSA strict DER without libcrypto")
struct ECDSAStrictDERTests {
    /// Real signatures and, for each, every single-byte change, truncation and extension,
    /// plus hand-made encodings at the edges of DER.
    static func variants() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (kind, algorithm) in [(PrivateKey.Kind.p256, COSEAlgorithm.es256), (.p384, .es384), (.p521, .es512)] {
            let key = try PrivateKey.generate(kind)
            for round in 0..<4 {
                let der = try key.sign(Array("message \(round)".utf8), algorithm: algorithm)
                out.append(der)
                for index in der.indices {
                    for delta: UInt8 in [1, 0x80, 0xff] {
                        var changed = der
                        changed[index] &+= delta
                        out.append(changed)
                    }
                    out.append(Array(der.prefix(index)))
                }
                out.append(der + [0])
                out.append([0x30, 0x81, UInt8(der.count - 2)] + der.dropFirst(2))  // long form where short fits
            }
        }
        out += [
            [], [0x30, 0x00], [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00],  // r = s = 0
            [0x30, 0x06, 0x02, 0x01, 0x80, 0x02, 0x01, 0x01],  // negative r
            [0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x01],  // needed leading zero
            [0x30, 0x07, 0x02, 0x02, 0x00, 0x7f, 0x02, 0x01, 0x01],  // needless leading zero
            [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00],  // trailing byte inside
            [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // three integers
            [0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00],  // indefinite length
            [0x30, 0x06, 0x02, 0x81, 0x01, 0x01, 0x02, 0x01],  // long-form integer length
            [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // SET, not SEQUENCE
            [0x30, 0x06, 0x03, 0x01, 0x01, 0x02, 0x01, 0x01],  // BIT STRING
            [0x30, 0x04, 0x02, 0x00, 0x02, 0x00],  // empty integers
        ]
        return out
    }

    @Test("the allocation-free check accepts exactly what libcrypto's parse-and-re-encode accepts")
    func agreesWithLibCrypto() throws {
        let all = try Self.variants()
        #expect(all.count > 1000)
        var accepted = 0
        for signature in all {
            let fast = (try? ECDSASignature.requireStrictDER(signature[...])) != nil
            #expect(fast == ECDSAStrictDERReference.libcryptoAccepts(signature[...]), "\(signature)")
            if fast { accepted += 1 }
        }
        #expect(accepted >= 12, "the real signatures and the zero signature are accepted")
    }

    @Test("a signature that is not strict DER is malformedSignature before libcrypto verifies")
    func rejectedBeforeVerify() throws {
        let key = try PrivateKey.generate(.p256)
        let message = Array("m".utf8)
        let der = try key.sign(message, algorithm: .es256)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: .es256)[...])
        #expect(try cose.verify(signature: der[...], over: message[...]))
        #expect(throws: CryptoError(.malformedSignature, "")) {
            _ = try cose.verify(signature: (der + [0])[...], over: message[...])
        }
    }

    @Test(
        "a signature over first || second verifies from the two parts, for every scheme",
        arguments: [
            (PrivateKey.Kind.p256, COSEAlgorithm.es256), (.ed25519, .edDSA), (.rsa(bits: 2048), .rs256),
            (.rsa(bits: 2048), .ps256), (.p384, .es384),
        ])
    func twoParts(kind: PrivateKey.Kind, algorithm: COSEAlgorithm) throws {
        let key = try PrivateKey.generate(kind)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: algorithm)[...])
        let authData = (0..<37).map { UInt8($0) }, hash = (0..<32).map { UInt8(200 - $0) }
        let signature = try key.sign(authData + hash, algorithm: algorithm)
        var digest = InlineArray<32, UInt8>(repeating: 0)
        for index in 0..<32 { digest[index] = hash[index] }
        var wrong = digest
        wrong[31] ^= 1
        #expect(try cose.verify(signature: signature[...], over: authData[...], then: digest))
        #expect(try cose.verify(signature: signature[...], over: (authData + hash)[...]))
        #expect(try cose.verify(signature: signature[...], over: (authData + hash)[...], then: nil))
        #expect(try !cose.verify(signature: signature[...], over: authData[...], then: wrong))
        #expect(try !cose.verify(signature: signature[...], over: authData.dropLast(), then: digest))
        #expect(try !cose.verify(signature: signature[...], over: authData[...]))
    }
}

@Suite("EC credential keys built from group templates")
struct ECTemplateKeyTests {
    @Test(
        "a COSE EC2 key is the same key libcrypto generated, and verifies its signatures",
        arguments: [(PrivateKey.Kind.p256, COSEAlgorithm.es256), (.p384, .es384), (.p521, .es512), (.secp256k1, .es256k)])
    func sameKey(kind: PrivateKey.Kind, algorithm: COSEAlgorithm) throws {
        let key = try PrivateKey.generate(kind)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: algorithm)[...])
        #expect(cose.publicKey.isEqual(to: key.publicKey))
        let signature = try key.sign(Array("m".utf8), algorithm: algorithm)
        #expect(try cose.verify(signature: signature[...], over: Array("m".utf8)[...]))
        #expect(cose.publicKey.ecCoordinates?.x == cose.ec2Coordinates?.x)
    }

    @Test("a point off the curve, or a coordinate not below the field prime, is malformedKey")
    func refusedPoints() throws {
        let key = try PrivateKey.generate(.p256)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: .es256)[...])
        let point = try #require(cose.ec2Coordinates)
        func encode(x: [UInt8], y: [UInt8]) -> [UInt8] {
            let entries: [(CBORItem, CBORItem)] = [
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                (.int(-2), .bytes(x[...])), (.int(-3), .bytes(y[...])),
            ]
            return CBOREncoder.encode(CBORItem.map(entries))
        }
        var offCurve = point.y
        offCurve[31] ^= 1
        #expect(throws: CryptoError(.malformedKey, "")) { _ = try COSEKey(cbor: encode(x: point.x, y: offCurve)[...]) }
        let fieldPrime: [UInt8] =
            [0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01] + Array(repeating: 0, count: 12)
            + [0x00, 0x00, 0x00, 0x00] + Array(repeating: 0xff, count: 12)
        #expect(throws: CryptoError(.malformedKey, "")) { _ = try COSEKey(cbor: encode(x: fieldPrime, y: point.y)[...]) }
        #expect(throws: CryptoError(.malformedKey, "")) {
            _ = try COSEKey(cbor: encode(x: Array(repeating: 0, count: 32), y: Array(repeating: 0, count: 32))[...])
        }
    }
}

/// Points with a small x, one per COSE curve, with x + p: the same point mathematically, in an
/// encoding whose x is not below the field prime (computed with Python's integers).
private let smallXPoints: [(curve: COSECurve, group: String, x: UInt8, y: String, xPlusP: String)] = [
    (
        .p256, "prime256v1", 5, "459243b9aa581806fe913bce99817ade11ca503c64d9a3c533415c083248fbcc",
        "ffffffff00000001000000000000000000000001000000000000000000000004"
    ),
    (
        .p384, "secp384r1", 2,
        "8cdeadbbd04911a3c1931e26df3fa6439dca9c7eb286fbd46fc319f0e2bb780232baf57825fc0c1912ada2fefe84024c",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff000000000000000100000001"
    ),
    (
        .p521, "secp521r1", 1,
        "0010e59be93c4f269c0269c79e2afd65d6aeaa9b701eacc194fb3ee03df47849bf550ec636ebee0ddd4a16f1cd9406605af38f584567770e3f272d688c832e843564",
        "020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    ),
    (
        .secp256k1, "secp256k1", 1, "4218f20ae6c646b363db68605822fb14264ca8d2587fdd6fbc750d587e76a7ee",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30"
    ),
]

private func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) ?? 0 }
}

@Suite("EC template keys need no second check")
struct ECTemplatePointTests {
    /// Credential keys skip the quick public-key check because setting the point already
    /// refuses everything it would; this holds libcrypto to that on every curve.
    @Test(
        "setting a point refuses a coordinate not below the prime and a point off the curve",
        arguments: smallXPoints.indices)
    func templateRefuses(_ index: Int) throws {
        let vector = smallXPoints[index]
        let width = vector.y.utf8.count / 2
        let x = Array(repeating: 0, count: width - 1) + [vector.x]
        let y = hexBytes(vector.y)
        let valid = try #require(ECGroupTemplates.shared.publicKey(group: vector.group, point: [0x04] + x + y))
        // What the template accepted passes libcrypto's full check.
        try LibCryptoKeyBuilder.publicCheck(valid, what: "template key")
        #expect(ECGroupTemplates.shared.publicKey(group: vector.group, point: [0x04] + hexBytes(vector.xPlusP) + y) == nil)
        var offCurve = y
        offCurve[width - 1] ^= 1
        #expect(ECGroupTemplates.shared.publicKey(group: vector.group, point: [0x04] + x + offCurve) == nil)
        #expect(ECGroupTemplates.shared.publicKey(group: vector.group, point: [0x02] + x) == nil)

        // Through COSE: the valid point is a key, the other encoding of it is malformedKey.
        let algorithm: COSEAlgorithm =
            switch vector.curve {
            case .p384: .es384
            case .p521: .es512
            case .secp256k1: .es256k
            default: .es256
            }
        func cose(x: [UInt8]) -> [UInt8] {
            CBOREncoder.encode(
                CBORItem.map([
                    (.int(1), .int(2)), (.int(3), .int(Int64(algorithm.rawValue))), (.int(-1), .int(Int64(vector.curve.rawValue))),
                    (.int(-2), .bytes(x[...])), (.int(-3), .bytes(y[...])),
                ]))
        }
        #expect(try COSEKey(cbor: cose(x: x)[...]).curve == vector.curve)
        #expect(throws: CryptoError(.malformedKey, "")) { _ = try COSEKey(cbor: cose(x: hexBytes(vector.xPlusP))[...]) }
    }
}

@Suite("Verification contexts kept by a key")
struct VerifyContextReuseTests {
    @Test(
        "a key's reused contexts give the right verdict after good, bad and malformed signatures, from many tasks",
        arguments: [
            (PrivateKey.Kind.p256, COSEAlgorithm.es256), (.ed25519, .edDSA), (.rsa(bits: 2048), .rs256),
            (.rsa(bits: 2048), .ps256),
        ])
    func reuse(kind: PrivateKey.Kind, algorithm: COSEAlgorithm) async throws {
        let key = try PrivateKey.generate(kind)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: algorithm)[...])
        let message = Array("signed bytes".utf8)
        let good = try key.sign(message, algorithm: algorithm)
        var flipped = good
        flipped[flipped.count - 1] ^= 1
        let bad = flipped
        let truncated = Array(good.dropLast(3))
        let verdicts = try await withThrowingTaskGroup(of: [Bool?].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var seen: [Bool?] = []
                    for round in 0..<30 {
                        let signature = [good, bad, truncated][round % 3]
                        seen.append(try? cose.verify(signature: signature[...], over: message[...]))
                    }
                    return seen
                }
            }
            var all: [[Bool?]] = []
            for try await seen in group { all.append(seen) }
            return all
        }
        for seen in verdicts {
            for (round, verdict) in seen.enumerated() {
                switch round % 3 {
                case 0: #expect(verdict == true)
                case 1: #expect(verdict == false)
                default: #expect(verdict != true)  // false, or malformedSignature for ECDSA
                }
            }
        }
    }
}
