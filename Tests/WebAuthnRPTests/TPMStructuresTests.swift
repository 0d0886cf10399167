import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

// The `pubArea` and `certInfo` of the W3C WebAuthn L3 test vector "TPM Attestation with ES256
// Credential" (#sctn-test-vectors-tpm-es256), restated as hex.
private let w3cPubAreaHex =
    "0023000b0004000000000010001000030010"
    + "002041202698c9d9753fb4bb3f27cd09fe6b8afdb76438ee2ae54d7c9dade10d864b"
    + "0020d8735115cdb330a63ea1d6e43d5000f4bd56f99bce83ee1d73301fc270116d07"
private let w3cCertInfoHex =
    "ff54434780170000"
    + "0020277d0e05579dd013215a62273f7f3a3e7e191ead2654a3036d75a5a3ee37a6b0"
    + "0000000000000000" + "11111111" + "22222222" + "33" + "0000000000000000"
    + "0022000b9c42d8aad5939331b9af3711af179f17123178098c9a7d0ca89fcd1fc800f3c7"
    + "0000"
/// SHA-256 of the W3C `pubArea` above.
private let w3cPubAreaSHA256Hex = "9c42d8aad5939331b9af3711af179f17123178098c9a7d0ca89fcd1fc800f3c7"

private func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for character in hex {
        guard let nibble = character.hexDigitValue.map(UInt8.init) else { continue }
        if let value = high {
            out.append(value << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return out
}

/// Runs `body` and returns the `WebAuthnError` it threw, or nil if it returned or threw another type.
private func failure(_ body: () throws -> Void) -> WebAuthnError? {
    do {
        try body()
        return nil
    } catch let error as WebAuthnError {
        return error
    } catch {
        return nil
    }
}

/// Expects `body` to throw an `attestation` error whose message starts "tpm: " and contains `fragment`.
private func expectTPMError(
    _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    let error = failure(body)
    #expect(error?.category == .attestation, "expected an attestation error", sourceLocation: sourceLocation)
    #expect(error?.message.hasPrefix("tpm: ") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(
        error?.message.contains(fragment) == true, "\(String(describing: error)) lacks \(fragment)",
        sourceLocation: sourceLocation)
}

private let modulus2048: [UInt8] = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }  // first byte non-zero
private let p256X: [UInt8] = Array(repeating: 0x11, count: 32)
private let p256Y: [UInt8] = Array(repeating: 0x22, count: 32)
private let sha256Name: [UInt8] = [0x00, 0x0B] + Array(repeating: 0xAB, count: 32)

@Suite("TPM structures: the W3C vector")
struct TPMW3CVectorTests {
    @Test("the W3C tpm-es256 pubArea parses as an ECC P-256 key named with SHA-256")
    func w3cPubArea() throws {
        let raw = bytes(w3cPubAreaHex)
        #expect(raw.count == 86)
        let area = try TPMPublicArea(parsing: raw)
        #expect(area.type == .ecc)
        #expect(area.nameAlgorithm == .sha256)
        #expect(area.objectAttributes == 0x0004_0000)
        #expect(area.authPolicy.isEmpty)
        #expect(area.rsa == nil)
        let ecc = try #require(area.ecc)
        #expect(ecc.curve == .p256)
        #expect(ecc.symmetric == nil)
        #expect(ecc.scheme == nil)
        #expect(ecc.kdf == nil)
        #expect(Array(ecc.x) == bytes("41202698c9d9753fb4bb3f27cd09fe6b8afdb76438ee2ae54d7c9dade10d864b"))
        #expect(Array(ecc.y) == bytes("d8735115cdb330a63ea1d6e43d5000f4bd56f99bce83ee1d73301fc270116d07"))
        #expect(Array(area.rawBytes) == raw)
    }

    @Test("the W3C tpm-es256 certInfo parses as a TPM-generated certify structure naming the pubArea")
    func w3cCertInfo() throws {
        let raw = bytes(w3cCertInfoHex)
        #expect(raw.count == 105)
        let attest = try TPMAttest(parsing: raw)
        #expect(attest.magic == TPMAttest.generatedValue)
        #expect(attest.magic == 0xFF54_4347)
        #expect(attest.type == TPMAttest.attestCertifyType)
        #expect(attest.qualifiedSigner.bytes.isEmpty)
        #expect(Array(attest.extraData) == bytes("277d0e05579dd013215a62273f7f3a3e7e191ead2654a3036d75a5a3ee37a6b0"))
        #expect(attest.clockInfo.clock == 0)
        #expect(attest.clockInfo.resetCount == 0x1111_1111)
        #expect(attest.clockInfo.restartCount == 0x2222_2222)
        #expect(attest.clockInfo.safe == 0x33)
        #expect(attest.firmwareVersion == 0)
        #expect(Array(attest.rawBytes) == raw)
        let certify = try #require(attest.certifyInfo)
        #expect(certify.qualifiedName.bytes.isEmpty)
        #expect(certify.name.algorithmID == 0x000B)
        #expect(certify.name.hashAlgorithm == .sha256)
        #expect(certify.name.digest.map(Array.init) == bytes(w3cPubAreaSHA256Hex))

        let area = try TPMPublicArea(parsing: bytes(w3cPubAreaHex))
        #expect(area.name(withDigest: bytes(w3cPubAreaSHA256Hex)) == Array(certify.name.bytes))
    }

    @Test("every proper prefix of the W3C pubArea and certInfo is refused, never a crash")
    func w3cTruncations() {
        let area = bytes(w3cPubAreaHex)
        for length in 0..<area.count {
            #expect(
                failure { _ = try TPMPublicArea(parsing: Array(area.prefix(length))) }?.category == .attestation,
                "pubArea prefix \(length)")
        }
        let info = bytes(w3cCertInfoHex)
        for length in 0..<info.count {
            #expect(
                failure { _ = try TPMAttest(parsing: Array(info.prefix(length))) }?.category == .attestation,
                "certInfo prefix \(length)")
        }
    }

    @Test("parsing works on a slice that does not start at index 0")
    func sliceOffsets() throws {
        let padded = [0xEE, 0xEE] + bytes(w3cPubAreaHex) + [0xEE]
        let slice = padded[2..<(padded.count - 1)]
        let area = try TPMPublicArea(parsing: slice)
        #expect(area.ecc?.curve == .p256)
        #expect(Array(area.rawBytes) == bytes(w3cPubAreaHex))
        let paddedInfo = [0x01] + bytes(w3cCertInfoHex)
        let attest = try TPMAttest(parsing: paddedInfo[1...])
        #expect(attest.certifyInfo?.name.hashAlgorithm == .sha256)
    }
}

@Suite("TPM structures: pubArea")
struct TPMPublicAreaTests {
    @Test("an RSA pubArea round-trips; exponent 0 reads as 65537")
    func rsaRoundTrip() throws {
        let scheme = TPMScheme(scheme: 0x0014, hashAlgorithm: 0x000B)
        let raw = TPMStructureEncoder.rsaPublicArea(
            nameAlg: 0x000B, objectAttributes: 0x0004_0472,
            authPolicy: [1, 2, 3], scheme: scheme, keyBits: 2048,
            exponent: 0, modulus: modulus2048)
        let area = try TPMPublicArea(parsing: raw)
        #expect(area.type == .rsa)
        #expect(area.nameAlgorithm == .sha256)
        #expect(area.objectAttributes == 0x0004_0472)
        #expect(Array(area.authPolicy) == [1, 2, 3])
        #expect(area.ecc == nil)
        let rsa = try #require(area.rsa)
        #expect(rsa.symmetric == nil)
        #expect(rsa.scheme == scheme)
        #expect(rsa.keyBits == 2048)
        #expect(rsa.exponent == 65537)
        #expect(Array(rsa.modulus) == modulus2048)
        #expect(Array(area.rawBytes) == raw)
    }

    @Test("an explicit exponent is kept as written")
    func explicitExponent() throws {
        for exponent: UInt32 in [3, 65537, 0xFFFF_FFFF] {
            let raw = TPMStructureEncoder.rsaPublicArea(exponent: exponent, modulus: modulus2048)
            #expect(try TPMPublicArea(parsing: raw).rsa?.exponent == exponent)
        }
    }

    @Test("RSA schemes: RSAES carries no hash, the others one; a symmetric definition has key bits and mode")
    func rsaSchemeLayouts() throws {
        let rsaes = TPMScheme(scheme: 0x0015, hashAlgorithm: nil)
        let aes = TPMSymmetricDefinition(algorithm: 0x0006, keyBits: 128, mode: 0x0043)
        let raw = TPMStructureEncoder.rsaPublicArea(symmetric: aes, scheme: rsaes, modulus: modulus2048)
        let rsa = try #require(try TPMPublicArea(parsing: raw).rsa)
        #expect(rsa.scheme == rsaes)
        #expect(rsa.symmetric == aes)
        for id: UInt16 in [0x0014, 0x0016, 0x0017] {
            let scheme = TPMScheme(scheme: id, hashAlgorithm: 0x000C)
            let parsed = try TPMPublicArea(parsing: TPMStructureEncoder.rsaPublicArea(scheme: scheme, modulus: modulus2048))
            #expect(parsed.rsa?.scheme == scheme)
        }
    }

    @Test("an ECC pubArea round-trips on each curve, with every scheme layout")
    func eccRoundTrip() throws {
        for curve in TPMECCCurve.allCases {
            let x = Array(repeating: UInt8(0x5A), count: curve.coordinateSize)
            let y = Array(repeating: UInt8(0xA5), count: curve.coordinateSize)
            let raw = TPMStructureEncoder.eccPublicArea(
                nameAlg: TPMHashAlgorithm.sha384.tpmAlgID,
                curveID: curve.rawValue, x: x, y: y)
            let area = try TPMPublicArea(parsing: raw)
            #expect(area.nameAlgorithm == .sha384)
            let ecc = try #require(area.ecc)
            #expect(ecc.curve == curve)
            #expect(Array(ecc.x) == x)
            #expect(Array(ecc.y) == y)
        }
        let ecdaa = TPMScheme(scheme: 0x001A, hashAlgorithm: 0x000B, count: 7)
        let kdf = TPMScheme(scheme: 0x0020, hashAlgorithm: 0x000B)
        let camellia = TPMSymmetricDefinition(algorithm: 0x0026, keyBits: 256, mode: 0x0043)
        let raw = TPMStructureEncoder.eccPublicArea(symmetric: camellia, scheme: ecdaa, kdf: kdf, x: p256X, y: p256Y)
        let ecc = try #require(try TPMPublicArea(parsing: raw).ecc)
        #expect(ecc.scheme == ecdaa)
        #expect(ecc.kdf == kdf)
        #expect(ecc.symmetric == camellia)
        for id: UInt16 in [0x0018, 0x0019, 0x001B, 0x001C, 0x001D] {
            let scheme = TPMScheme(scheme: id, hashAlgorithm: 0x000B)
            let parsed = try TPMPublicArea(parsing: TPMStructureEncoder.eccPublicArea(scheme: scheme, x: p256X, y: p256Y))
            #expect(parsed.ecc?.scheme == scheme)
        }
        for id: UInt16 in [0x0007, 0x0021, 0x0022] {
            let scheme = TPMScheme(scheme: id, hashAlgorithm: 0x000D)
            let parsed = try TPMPublicArea(parsing: TPMStructureEncoder.eccPublicArea(kdf: scheme, x: p256X, y: p256Y))
            #expect(parsed.ecc?.kdf == scheme)
        }
    }

    @Test("each Name algorithm is recognised; name(withDigest:) prefixes its identifier")
    func nameAlgorithms() throws {
        for algorithm in TPMHashAlgorithm.allCases {
            let raw = TPMStructureEncoder.eccPublicArea(nameAlg: algorithm.tpmAlgID, x: p256X, y: p256Y)
            let area = try TPMPublicArea(parsing: raw)
            #expect(area.nameAlgorithm == algorithm)
            let digest = Array(repeating: UInt8(0x42), count: algorithm.digestSize)
            let name = area.name(withDigest: digest)
            #expect(name.count == 2 + algorithm.digestSize)
            #expect(Array(name.prefix(2)) == [UInt8(algorithm.tpmAlgID >> 8), UInt8(algorithm.tpmAlgID & 0xFF)])
            #expect(Array(name.dropFirst(2)) == digest)
        }
        #expect(TPMHashAlgorithm.sha1.digestSize == 20 && TPMHashAlgorithm.sha1.tpmAlgID == 0x0004)
        #expect(TPMHashAlgorithm.sha256.digestSize == 32 && TPMHashAlgorithm.sha256.tpmAlgID == 0x000B)
        #expect(TPMHashAlgorithm.sha384.digestSize == 48 && TPMHashAlgorithm.sha384.tpmAlgID == 0x000C)
        #expect(TPMHashAlgorithm.sha512.digestSize == 64 && TPMHashAlgorithm.sha512.tpmAlgID == 0x000D)
        #expect(TPMECCCurve.p256.coordinateSize == 32 && TPMECCCurve.p384.coordinateSize == 48)
        #expect(TPMECCCurve.p521.coordinateSize == 66)
    }

    @Test("key types other than RSA and ECC are refused")
    func unknownTypes() {
        for type: UInt16 in [0x0000, 0x0008, 0x0025, 0x0010, 0xFFFF] {
            let raw = TPMStructureEncoder.publicArea(type: type, parameters: [0x00, 0x10], unique: [0x00, 0x00])
            expectTPMError("pubArea.type") { _ = try TPMPublicArea(parsing: raw) }
        }
    }

    @Test("Name algorithms other than SHA-1/256/384/512 are refused")
    func unknownNameAlgorithms() {
        for nameAlg: UInt16 in [0x0000, 0x0010, 0x0012, 0x0027, 0x0028] {
            let raw = TPMStructureEncoder.eccPublicArea(nameAlg: nameAlg, x: p256X, y: p256Y)
            expectTPMError("pubArea.nameAlg") { _ = try TPMPublicArea(parsing: raw) }
        }
    }

    @Test("curves other than NIST P-256/384/521 are refused")
    func unknownCurves() {
        for curveID: UInt16 in [0x0000, 0x0001, 0x0002, 0x0006, 0x0010, 0x0020] {
            let raw = TPMStructureEncoder.eccPublicArea(curveID: curveID, x: p256X, y: p256Y)
            expectTPMError("pubArea.parameters.curveID") { _ = try TPMPublicArea(parsing: raw) }
        }
    }

    @Test("union selectors without a defined layout are refused")
    func unknownSelectors() {
        // An ECC scheme inside RSA parameters, and the reverse.
        let ecdsaInRSA = TPMStructureEncoder.rsaPublicArea(
            scheme: TPMScheme(scheme: 0x0018, hashAlgorithm: 0x000B),
            modulus: modulus2048)
        expectTPMError("pubArea.parameters.scheme.scheme 0x0018") { _ = try TPMPublicArea(parsing: ecdsaInRSA) }
        let rsassaInECC = TPMStructureEncoder.eccPublicArea(
            scheme: TPMScheme(scheme: 0x0014, hashAlgorithm: 0x000B),
            x: p256X, y: p256Y)
        expectTPMError("pubArea.parameters.scheme.scheme 0x0014") { _ = try TPMPublicArea(parsing: rsassaInECC) }
        let badKDF = TPMStructureEncoder.eccPublicArea(
            kdf: TPMScheme(scheme: 0x0018, hashAlgorithm: 0x000B),
            x: p256X, y: p256Y)
        expectTPMError("pubArea.parameters.kdf.scheme") { _ = try TPMPublicArea(parsing: badKDF) }
        let xor = TPMStructureEncoder.rsaPublicArea(
            symmetric: TPMSymmetricDefinition(
                algorithm: 0x000A, keyBits: 0x000B,
                mode: 0x0010),
            modulus: modulus2048)
        expectTPMError("pubArea.parameters.symmetric.algorithm 0x000A") { _ = try TPMPublicArea(parsing: xor) }
    }

    @Test("a byte after the structure is refused")
    func trailingBytes() {
        let rsa = TPMStructureEncoder.rsaPublicArea(modulus: modulus2048) + [0x00]
        expectTPMError("1 trailing bytes") { _ = try TPMPublicArea(parsing: rsa) }
        let ecc = bytes(w3cPubAreaHex) + [0x00, 0x00]
        expectTPMError("pubArea has 2 trailing bytes") { _ = try TPMPublicArea(parsing: ecc) }
    }

    @Test("a TPM2B size beyond the bytes left is refused, naming the field")
    func sizesBeyondInput() {
        var area = bytes(w3cPubAreaHex)
        area[9] = 0x20  // authPolicy.size 32: allowed, but only 0 bytes follow the size in a 10-byte prefix
        expectTPMError("pubArea.authPolicy.size 32 exceeds the 0 bytes left") {
            _ = try TPMPublicArea(parsing: Array(area.prefix(10)))
        }
        area[8] = 0xFF  // authPolicy.size 0xFF20: beyond the maximum and the input
        expectTPMError("pubArea.authPolicy.size 65312") { _ = try TPMPublicArea(parsing: area) }

        let rsa = TPMStructureEncoder.rsaPublicArea(modulus: modulus2048)
        expectTPMError("pubArea.unique.rsa.size 256 exceeds the 255 bytes left") {
            _ = try TPMPublicArea(parsing: Array(rsa.dropLast()))
        }
        let ecc = bytes(w3cPubAreaHex)
        expectTPMError("pubArea.unique.ecc.y.size 32 exceeds the 31 bytes left") {
            _ = try TPMPublicArea(parsing: Array(ecc.dropLast()))
        }
        expectTPMError("pubArea.unique.ecc.x.size 32 exceeds the 0 bytes left") {
            _ = try TPMPublicArea(parsing: Array(ecc.prefix(20)))
        }
        expectTPMError("pubArea.parameters.curveID is truncated") {
            _ = try TPMPublicArea(parsing: Array(ecc.prefix(15)))
        }
    }

    @Test("a TPM2B larger than its type allows is refused even when the bytes are there")
    func sizesBeyondMaximum() {
        let policy = TPMStructureEncoder.eccPublicArea(authPolicy: Array(repeating: 1, count: 65), x: p256X, y: p256Y)
        expectTPMError("pubArea.authPolicy.size 65 exceeds the largest allowed, 64") {
            _ = try TPMPublicArea(parsing: policy)
        }
        let longX = TPMStructureEncoder.eccPublicArea(x: Array(repeating: 1, count: 33), y: p256Y)
        expectTPMError("pubArea.unique.ecc.x.size 33 exceeds the largest allowed, 32") {
            _ = try TPMPublicArea(parsing: longX)
        }
        // The same 66-byte coordinate is fine on P-521.
        let p521 = TPMStructureEncoder.eccPublicArea(
            curveID: TPMECCCurve.p521.rawValue,
            x: Array(repeating: 1, count: 66), y: Array(repeating: 2, count: 66))
        #expect(failure { _ = try TPMPublicArea(parsing: p521) } == nil)
    }

    @Test("every proper prefix of RSA and scheme-carrying ECC pubAreas is refused")
    func truncations() {
        let samples = [
            TPMStructureEncoder.rsaPublicArea(
                authPolicy: [9, 9],
                symmetric: TPMSymmetricDefinition(
                    algorithm: 0x0006,
                    keyBits: 128,
                    mode: 0x0043),
                scheme: TPMScheme(scheme: 0x0014, hashAlgorithm: 0x000B),
                modulus: modulus2048),
            TPMStructureEncoder.eccPublicArea(
                scheme: TPMScheme(scheme: 0x001A, hashAlgorithm: 0x000B, count: 1),
                kdf: TPMScheme(scheme: 0x0007, hashAlgorithm: 0x000B), x: p256X, y: p256Y),
        ]
        for sample in samples {
            #expect(failure { _ = try TPMPublicArea(parsing: sample) } == nil)
            for length in 0..<sample.count {
                #expect(
                    failure { _ = try TPMPublicArea(parsing: Array(sample.prefix(length))) }?.category == .attestation,
                    "prefix \(length) of \(sample.count)")
            }
        }
    }

    @Test("single-byte corruptions anywhere either parse or throw an attestation error")
    func corruptions() {
        let samples = [bytes(w3cPubAreaHex), TPMStructureEncoder.rsaPublicArea(modulus: Array(modulus2048.prefix(16)))]
        for sample in samples {
            for index in sample.indices {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
                    var mutated = sample
                    mutated[index] = value
                    if let error = failure({ _ = try TPMPublicArea(parsing: mutated) }) {
                        #expect(error.category == .attestation)
                        #expect(error.message.hasPrefix("tpm: pubArea"))
                    }
                }
            }
        }
    }
}

@Suite("TPM structures: certInfo")
struct TPMAttestTests {
    @Test("a certify certInfo round-trips every field")
    func certifyRoundTrip() throws {
        let raw = TPMStructureEncoder.certifyAttest(
            qualifiedSigner: [0x00, 0x0B] + Array(repeating: 3, count: 32),
            extraData: Array(repeating: 0xCD, count: 32),
            clock: 0x0102_0304_0506_0708, resetCount: 9, restartCount: 10,
            safe: 1, firmwareVersion: 0x1122_3344_5566_7788,
            name: sha256Name, qualifiedName: [0x00, 0x0B] + Array(repeating: 4, count: 32))
        let attest = try TPMAttest(parsing: raw)
        #expect(attest.magic == TPMAttest.generatedValue)
        #expect(attest.type == TPMAttest.attestCertifyType)
        #expect(attest.qualifiedSigner.hashAlgorithm == .sha256)
        #expect(Array(attest.extraData) == Array(repeating: 0xCD, count: 32))
        #expect(attest.clockInfo.clock == 0x0102_0304_0506_0708)
        #expect(attest.clockInfo.resetCount == 9)
        #expect(attest.clockInfo.restartCount == 10)
        #expect(attest.clockInfo.safe == 1)
        #expect(attest.firmwareVersion == 0x1122_3344_5566_7788)
        let certify = try #require(attest.certifyInfo)
        #expect(Array(certify.name.bytes) == sha256Name)
        #expect(certify.qualifiedName.digest.map(Array.init) == Array(repeating: 4, count: 32))
        #expect(Array(attest.rawBytes) == raw)
    }

    @Test("magic is reported, not judged")
    func magicIsExposed() throws {
        let raw = TPMStructureEncoder.certifyAttest(magic: 0xDEAD_BEEF, extraData: [1], name: sha256Name)
        let attest = try TPMAttest(parsing: raw)
        #expect(attest.magic == 0xDEAD_BEEF)
        #expect(attest.magic != TPMAttest.generatedValue)
    }

    @Test("another attest type keeps its body unparsed, trailing bytes and all")
    func otherTypes() throws {
        let body: [UInt8] = [0x00, 0x02, 0xAA, 0xBB, 0x01, 0x02, 0x03]
        let raw = TPMStructureEncoder.attest(type: 0x8018, extraData: [1, 2], attested: body)
        let attest = try TPMAttest(parsing: raw)
        #expect(attest.type == 0x8018)
        #expect(attest.certifyInfo == nil)
        #expect(attest.attested == .unparsed(body[...]))
        let empty = try TPMAttest(parsing: TPMStructureEncoder.attest(type: 0x8014, extraData: [], attested: []))
        #expect(empty.attested == .unparsed([]))
    }

    @Test("a byte after a certify structure is refused")
    func trailingBytes() {
        let raw = bytes(w3cCertInfoHex) + [0x00]
        expectTPMError("certInfo has 1 trailing bytes") { _ = try TPMAttest(parsing: raw) }
    }

    @Test("a TPM2B size beyond the bytes left is refused, naming the field")
    func sizesBeyondInput() {
        let info = bytes(w3cCertInfoHex)
        expectTPMError("certInfo.attested.certify.qualifiedName.size is truncated") {
            _ = try TPMAttest(parsing: Array(info.dropLast()))
        }
        // name.size is at offsets 67-68; 0x22 -> 0x25 runs one byte past the end.
        #expect(info[67] == 0x00 && info[68] == 0x22)
        var bigName = info
        bigName[68] = 0x25
        expectTPMError("certInfo.attested.certify.name.size 37 exceeds the 36 bytes left") {
            _ = try TPMAttest(parsing: bigName)
        }
        // 0x24 swallows the qualifiedName size, so that size is what goes missing.
        bigName[68] = 0x24
        expectTPMError("certInfo.attested.certify.qualifiedName.size is truncated") {
            _ = try TPMAttest(parsing: bigName)
        }
        var overExtra = TPMStructureEncoder.attest(extraData: [], attested: [])
        #expect(overExtra.count == 35)
        overExtra[9] = 0x10  // extraData.size 16 of the 25 bytes left: clock still fits, resetCount does not
        expectTPMError("certInfo.clockInfo.resetCount is truncated") { _ = try TPMAttest(parsing: overExtra) }
        overExtra[9] = 0x40  // 64 <= 66 but more than the 25 left
        expectTPMError("certInfo.extraData.size 64 exceeds the 25 bytes left") { _ = try TPMAttest(parsing: overExtra) }
        expectTPMError("certInfo.magic is truncated") { _ = try TPMAttest(parsing: [0xFF, 0x54]) }
    }

    @Test("a TPM2B larger than its type allows is refused even when the bytes are there")
    func sizesBeyondMaximum() {
        let longExtra = TPMStructureEncoder.certifyAttest(extraData: Array(repeating: 0, count: 67), name: sha256Name)
        expectTPMError("certInfo.extraData.size 67 exceeds the largest allowed, 66") { _ = try TPMAttest(parsing: longExtra) }
        let longName = TPMStructureEncoder.certifyAttest(extraData: [], name: Array(repeating: 0, count: 67))
        expectTPMError("certInfo.attested.certify.name.size 67") { _ = try TPMAttest(parsing: longName) }
        let longSigner = TPMStructureEncoder.certifyAttest(
            qualifiedSigner: Array(repeating: 0, count: 67),
            extraData: [], name: sha256Name)
        expectTPMError("certInfo.qualifiedSigner.size 67") { _ = try TPMAttest(parsing: longSigner) }
        let sha512Name: [UInt8] = [0x00, 0x0D] + Array(repeating: 1, count: 64)
        let atMaximum = TPMStructureEncoder.certifyAttest(extraData: Array(repeating: 0, count: 66), name: sha512Name)
        #expect(failure { _ = try TPMAttest(parsing: atMaximum) } == nil)
    }

    @Test("every proper prefix of a certify certInfo is refused")
    func truncations() {
        let raw = TPMStructureEncoder.certifyAttest(
            qualifiedSigner: sha256Name, extraData: [1, 2, 3], name: sha256Name,
            qualifiedName: sha256Name)
        #expect(failure { _ = try TPMAttest(parsing: raw) } == nil)
        for length in 0..<raw.count {
            #expect(
                failure { _ = try TPMAttest(parsing: Array(raw.prefix(length))) }?.category == .attestation,
                "prefix \(length)")
        }
    }

    @Test("single-byte corruptions anywhere either parse or throw an attestation error")
    func corruptions() {
        let sample = bytes(w3cCertInfoHex)
        for index in sample.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
                var mutated = sample
                mutated[index] = value
                if let error = failure({ _ = try TPMAttest(parsing: mutated) }) {
                    #expect(error.category == .attestation)
                    #expect(error.message.hasPrefix("tpm: certInfo"))
                }
            }
        }
    }

    @Test("Name helpers: digest Names split, handles and empty Names do not")
    func names() {
        let digest = TPMName(bytes: sha256Name[...])
        #expect(digest.algorithmID == 0x000B)
        #expect(digest.hashAlgorithm == .sha256)
        #expect(digest.digest.map(Array.init) == Array(repeating: 0xAB, count: 32))
        let handle = TPMName(bytes: [0x81, 0x00, 0x00, 0x01])
        #expect(handle.algorithmID == nil && handle.digest == nil && handle.hashAlgorithm == nil)
        let empty = TPMName(bytes: [])
        #expect(empty.algorithmID == nil && empty.digest == nil)
        // A SHA-256 identifier with a 20-byte digest is split but names no known algorithm.
        let mismatched = TPMName(bytes: ([0x00, 0x0B] + Array(repeating: 1, count: 20))[...])
        #expect(mismatched.algorithmID == 0x000B)
        #expect(mismatched.hashAlgorithm == nil)
        let sm3 = TPMName(bytes: ([0x00, 0x12] + Array(repeating: 1, count: 32))[...])
        #expect(sm3.algorithmID == 0x0012 && sm3.hashAlgorithm == nil)
    }
}

@Suite("TPM manufacturer identifiers")
struct TPMManufacturerTests {
    @Test("registered identifiers resolve in the TCG form: \"id:\" and eight hex digits, either case")
    func known() {
        #expect(TPMManufacturer.name(forID: "id:494E5443") == "Intel")
        #expect(TPMManufacturer.name(forID: "id:4D534654") == "Microsoft")
        #expect(TPMManufacturer.name(forID: "id:49465800") == "Infineon")
        #expect(TPMManufacturer.name(forID: "id:4E544300") == "Nuvoton Technology")
        #expect(TPMManufacturer.name(forID: "id:53544D20") == "STMicroelectronics")
        #expect(TPMManufacturer.name(forID: "id:414D4400") == "AMD")
        #expect(TPMManufacturer.name(forID: "id:474F4F47") == "Google")
        #expect(TPMManufacturer.name(forID: "id:524F4343") == "Fuzhou Rockchip")
        #expect(TPMManufacturer.isKnown("id:49424D00"))
        #expect(TPMManufacturer.isKnown(TPMManufacturer.fidoConformanceTestingID))
        #expect(TPMManufacturer.isKnown(TPMManufacturer.webAuthnTestVectorsID))
        #expect(TPMManufacturer.name(forID: "id:00000000") == "W3C WebAuthn test vectors")
        // Hex digits in either case: Qualcomm fTPMs send lower case, the registry writes IBM 49424d00.
        #expect(TPMManufacturer.name(forID: "id:51434f4d") == "Qualcomm")
        #expect(TPMManufacturer.name(forID: "id:49424d00") == "IBM")
        #expect(TPMManufacturer.name(forID: "id:494e5443") == "Intel")
        #expect(TPMManufacturer.isKnown("id:fffff1d0"))
    }

    @Test("the prefix is exactly \"id:\": other cases of it are malformed, so not known")
    func letterCase() {
        for id in ["ID:494E5443", "Id:4D534654", "iD:4D534654", "ID:fffff1d0"] {
            #expect(!TPMManufacturer.isWellFormed(id), "\(id)")
            #expect(!TPMManufacturer.isKnown(id), "\(id)")
        }
        #expect(TPMManufacturer.isWellFormed("id:12345678"))
        #expect(!TPMManufacturer.isKnown("id:12345678"))
    }

    @Test("each registry entry is the hex of its vendor's ASCII code, NUL- or space-padded")
    func registryIsASCII() {
        #expect(TPMManufacturer.knownIDs.count == 32)
        let testIDs = [TPMManufacturer.fidoConformanceTestingID, TPMManufacturer.webAuthnTestVectorsID]
        for id in TPMManufacturer.knownIDs where !testIDs.contains(id) {
            #expect(id.hasPrefix("id:"))
            #expect(TPMManufacturer.isKnown(id))
            let key = String(id.dropFirst(3))
            let pairs = stride(from: 0, to: key.count, by: 2).map { offset -> UInt8? in
                let start = key.index(key.startIndex, offsetBy: offset)
                return UInt8(key[start..<key.index(start, offsetBy: 2)], radix: 16)
            }
            let codes = pairs.compactMap { $0 }
            #expect(codes.count == 4, "\(key)")
            let isPaddedASCII = codes.allSatisfy { $0 == 0 || ($0 >= 0x20 && $0 < 0x7F) }
            #expect(isPaddedASCII, "\(key)")
            #expect(codes.first.map { $0 >= 0x41 && $0 <= 0x5A } == true, "\(key) starts with a capital letter")
        }
    }

    @Test("unregistered or malformed identifiers are unknown")
    func unknown() {
        for id in [
            "id:49424D20", "id:12345678",
            "494E5443", "id494E5443", "id: 494E5443", "id:494E544", "id:494E54430", "id:494E544G",
            "id:494E5443 ", "", "id:", "id:４９４E5443", "íd:494E5443",
        ] {
            #expect(TPMManufacturer.name(forID: id) == nil, "\(id)")
            #expect(!TPMManufacturer.isKnown(id), "\(id)")
        }
        for id in [
            "494E5443", "id494E5443", "id: 494E5443", "id:494E544", "id:494E54430", "id:494E544G",
            "id:494E5443 ", "", "id:", "id:４９４E5443", "íd:494E5443",
        ] {
            #expect(!TPMManufacturer.isWellFormed(id), "\(id)")
        }
    }
}
