import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// COSE_Key parsing: published keys as facts, then every rejection with its code.
struct COSEKeyTests {
    // W3C WebAuthn Level 3 test vectors, "none ES256" credential public key.
    static let w3cNoneES256 =
        "pQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6yScM6m2cvJt9hIlggkwpWuHovymYzSwNFir-HlxfBLMaO1zKQry4mZHlrkiA"
    static let w3cX = hex("afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61")
    static let w3cY = hex("930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220")

    static func w3cKeyBytes() throws -> [UInt8] { try Base64URL.decode(w3cNoneES256) }

    // MARK: - Published keys

    @Test func w3cNoneES256KeyParses() throws {
        let bytes = try Self.w3cKeyBytes()
        let key = try COSEKey(cbor: bytes[...])
        #expect(key.keyType == .ec2)
        #expect(key.algorithm == .es256)
        #expect(key.curve == .p256)
        #expect(key.cborBytes == bytes)
        #expect(key.ec2Coordinates?.x == Self.w3cX)
        #expect(key.ec2Coordinates?.y == Self.w3cY)
        #expect(key.publicKey.ecCoordinates?.x == Self.w3cX)
        #expect(key.publicKey.ecCoordinates?.y == Self.w3cY)
        #expect(key.publicKey.keyKind == "EC P-256")
        #expect(key.rsaParameters == nil && key.okpPublicKey == nil)
    }

    @Test func decodedItemKeepsItsOwnBytes() throws {
        let bytes = try Self.w3cKeyBytes()
        let trailing = bytes + [0xa0]  // an extensions map after the key, as in authData
        let (item, rest) = try CBOR.decodePrefix(trailing[...])
        let key = try COSEKey(item: item)
        #expect(key.cborBytes == bytes)
        #expect(rest.count == 1)
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: trailing[...]) }
    }

    /// RFC 8032 §7.1 TEST 1: empty message.
    @Test func rfc8032Ed25519Test1Verifies() throws {
        let publicKey = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = hex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065"
                + "224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        for alg in [COSEAlgorithm.edDSA, .ed25519] {
            let cbor = CBOREncoder.encode(
                CBORItem.map([
                    (.int(1), .int(1)), (.int(3), .int(Int64(alg.rawValue))), (.int(-1), .int(6)), (.int(-2), .bytes(publicKey)),
                ]))
            let key = try COSEKey(cbor: cbor[...])
            #expect(key.keyType == .okp && key.curve == .ed25519)
            #expect(key.okpPublicKey == publicKey)
            #expect(key.publicKey.rawOKPKey == publicKey)
            #expect(try key.verify(signature: signature[...], over: []))
            #expect(try key.verify(signature: signature[...], over: [0x72]) == false)
            var flipped = signature
            flipped[10] ^= 0x80
            #expect(try key.verify(signature: flipped[...], over: []) == false)
        }
    }

    @Test func u2fRawKeyBecomesES256WithTheSameCoordinates() throws {
        let raw = [0x04] + Self.w3cX + Self.w3cY
        let key = try COSEKey.fromU2FPublicKey(raw[...])
        #expect(key.algorithm == .es256 && key.curve == .p256 && key.keyType == .ec2)
        #expect(key.ec2Coordinates?.x == Self.w3cX)
        #expect(key.ec2Coordinates?.y == Self.w3cY)
        let reference = try COSEKey(cbor: try Self.w3cKeyBytes()[...])
        #expect(key.publicKey.isEqual(to: reference.publicKey))
        // The canonical encoding of the same key is the W3C vector's encoding.
        #expect(key.cborBytes == (try Self.w3cKeyBytes()))

        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey.fromU2FPublicKey(raw.dropLast()) }
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey.fromU2FPublicKey(([0x02] + raw.dropFirst())[...]) }
        var offCurve = raw
        offCurve[64] ^= 0x01
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey.fromU2FPublicKey(offCurve[...]) }
    }

    // MARK: - EC2 rejections

    @Test func wrongLengthCoordinatesAreRejected() throws {
        let bytes = try Self.w3cKeyBytes()
        let shortX = try editCOSE(bytes, set: [(-2, .bytes(Self.w3cX.dropFirst()))])
        let paddedY = try editCOSE(bytes, set: [(-3, .bytes([0] + Self.w3cY))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: shortX[...]) }
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: paddedY[...]) }
    }

    @Test func pointNotOnCurveIsRejected() throws {
        var y = Self.w3cY
        y[31] ^= 0x01
        let bytes = try editCOSE(try Self.w3cKeyBytes(), set: [(-3, .bytes(y))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: bytes[...]) }
    }

    @Test func compressedPointSignBitIsRejected() throws {
        let bytes = try editCOSE(try Self.w3cKeyBytes(), set: [(-3, .bool(true))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: bytes[...]) }
    }

    @Test func missingMembersAreRejected() throws {
        let bytes = try Self.w3cKeyBytes()
        for label: Int64 in [1, 3, -1, -2, -3] {
            let edited = try editCOSE(bytes, remove: [label])
            #expect(throws: CryptoError(.malformedKey, ""), "label \(label)") { try COSEKey(cbor: edited[...]) }
        }
        let textX = try editCOSE(bytes, set: [(-2, .text("x"))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: textX[...]) }
        let notMap = CBOREncoder.encode(CBORItem.array([.int(1)]))
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: notMap[...]) }
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: bytes.dropLast()) }
    }

    @Test func algorithmAndCurveMustAgree() throws {
        let bytes = try Self.w3cKeyBytes()
        // ES384 / ES512 / ES256K / ESP384 with a P-256 key.
        for alg: Int64 in [-35, -36, -47, -51, -52] {
            let edited = try editCOSE(bytes, set: [(3, .int(alg))])
            #expect(throws: CryptoError(.algorithmMismatch, ""), "alg \(alg)") { try COSEKey(cbor: edited[...]) }
        }
        // ESP256 with P-256 is fine.
        let esp256 = try editCOSE(bytes, set: [(3, .int(-9))])
        #expect(try COSEKey(cbor: esp256[...]).algorithm == .esp256)
        // ES256 with a P-384 key.
        let p384 = try PrivateKey.generate(.p384)
        let es384Key = try p384.coseKey(algorithm: .es384)
        let relabelled = try editCOSE(es384Key, set: [(3, .int(-7))])
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: relabelled[...]) }
        // An OKP curve in an EC2 key.
        let okpCurve = try editCOSE(bytes, set: [(-1, .int(6))])
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: okpCurve[...]) }
        // Ed448 key labelled Ed25519 (-19), and Ed25519 key labelled Ed448 (-53).
        let ed448 = try PrivateKey.generate(.ed448).coseKey(algorithm: .ed448)
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: try editCOSE(ed448, set: [(3, .int(-19))])[...]) }
        let ed25519 = try PrivateKey.generate(.ed25519).coseKey(algorithm: .ed25519)
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: try editCOSE(ed25519, set: [(3, .int(-53))])[...]) }
        // OKP crv with the wrong x length: Ed448 curve with a 32-byte key.
        let wrongLength = try editCOSE(ed25519, set: [(3, .int(-53)), (-1, .int(7))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: wrongLength[...]) }
        // EdDSA (-8) on Ed448 (L3 §5.8.5: -8 keys use crv 6 only), and the same key under -53.
        let edDSAOn448 = try editCOSE(ed448, set: [(3, .int(-8))])
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: edDSAOn448[...]) }
        #expect(try COSEKey(cbor: ed448[...]).curve == .ed448)
    }

    @Test func keyTypeAndAlgorithmMustAgree() throws {
        let bytes = try Self.w3cKeyBytes()
        for kty: Int64 in [1, 3, 7] {
            let edited = try editCOSE(bytes, set: [(1, .int(kty))])
            #expect(throws: CryptoError(.algorithmMismatch, ""), "kty \(kty)") { try COSEKey(cbor: edited[...]) }
        }
        let rsa = try #require(SignatureTests.rsaKey).coseKey(algorithm: .rs256)
        let rsaAsES256 = try editCOSE(rsa, set: [(3, .int(-7))])
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: rsaAsES256[...]) }
        let rsaAsEdDSA = try editCOSE(rsa, set: [(3, .int(-8))])
        #expect(throws: CryptoError(.algorithmMismatch, "")) { try COSEKey(cbor: rsaAsEdDSA[...]) }
    }

    @Test func unknownKeyTypeAlgorithmAndCurveAreUnsupported() throws {
        let bytes = try Self.w3cKeyBytes()
        let unknownAlg = try editCOSE(bytes, set: [(3, .int(-999))])
        let symmetric = try editCOSE(bytes, set: [(1, .int(4))])
        let x25519 = try editCOSE(bytes, set: [(-1, .int(4))])
        let textKty = try editCOSE(bytes, set: [(1, .text("EC2"))])
        for edited in [unknownAlg, symmetric, x25519, textKty] {
            #expect(throws: CryptoError(.unsupportedAlgorithm, "")) { try COSEKey(cbor: edited[...]) }
        }
    }

    @Test func privateMembersAreRejected() throws {
        let ec = try editCOSE(try Self.w3cKeyBytes(), set: [(-4, .bytes([UInt8](repeating: 1, count: 32)))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: ec[...]) }
        let okp = try editCOSE(
            try PrivateKey.generate(.ed25519).coseKey(algorithm: .edDSA),
            set: [(-4, .bytes([UInt8](repeating: 1, count: 32)))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: okp[...]) }
        let rsa = try #require(SignatureTests.rsaKey).coseKey(algorithm: .ps256)
        for label in Int64(-12)...Int64(-3) {
            let edited = try editCOSE(rsa, set: [(label, .bytes([1, 2, 3]))])
            #expect(throws: CryptoError(.malformedKey, ""), "label \(label)") { try COSEKey(cbor: edited[...]) }
        }
    }

    // MARK: - RSA

    @Test func rsaParametersRoundTrip() throws {
        let key = try #require(SignatureTests.rsaKey)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: .rs256)[...])
        let (n, e) = try #require(cose.rsaParameters)
        #expect(n.count == 256)
        #expect(e == [0x01, 0x00, 0x01])
        #expect(cose.publicKey.rsaParameters?.n == n)
        #expect(cose.publicKey.keyKind == "RSA 2048")
        #expect(cose.curve == nil)
        let emptyE = try editCOSE(try key.coseKey(algorithm: .rs256), set: [(-2, .bytes([]))])
        #expect(throws: CryptoError(.malformedKey, "")) { try COSEKey(cbor: emptyE[...]) }
    }

    @Test func rsaBelow2048BitsNeedsTheUnsafeOption() throws {
        let weak = try PrivateKey.generate(.rsa(bits: 1024))
        let cbor = try weak.coseKey(algorithm: .rs256)
        #expect(throws: CryptoError(.weakKey, "")) { try COSEKey(cbor: cbor[...]) }
        let accepted = try COSEKey(cbor: cbor[...], options: .unsafeLegacyAttestation)
        let signature = try weak.sign(SignatureTests.message, algorithm: .rs256)
        #expect(try accepted.verify(signature: signature[...], over: SignatureTests.message[...]))
        #expect(throws: CryptoError(.weakKey, "")) {
            try weak.publicKey.verify(signature: signature[...], over: SignatureTests.message[...], algorithm: .rs256)
        }
    }

    @Test func rs1OnlyWithOptIn() throws {
        let key = try #require(SignatureTests.rsaKey)
        let cbor = try key.coseKey(algorithm: .rs1)
        #expect(throws: CryptoError(.unsupportedAlgorithm, "")) { try COSEKey(cbor: cbor[...]) }
        var options = COSEKeyOptions()
        options.allowRS1 = true
        let cose = try COSEKey(cbor: cbor[...], options: options)
        let signature = try key.sign(SignatureTests.message, algorithm: .rs1)
        #expect(try cose.verify(signature: signature[...], over: SignatureTests.message[...]))
        #expect(throws: CryptoError(.unsupportedAlgorithm, "")) {
            try key.publicKey.verify(signature: signature[...], over: SignatureTests.message[...], algorithm: .rs1)
        }
        #expect(
            try key.publicKey.verify(
                signature: signature[...], over: SignatureTests.message[...],
                algorithm: .rs1, options: options))
    }

    // MARK: - ML-DSA

    @Test(arguments: [(COSEAlgorithm.mlDSA44, 1312), (.mlDSA65, 1952), (.mlDSA87, 2592)])
    func mlDSADependsOnLibCrypto(_ algorithm: COSEAlgorithm, publicKeyLength: Int) throws {
        if LibCrypto.supportsMLDSA {
            let kind: PrivateKey.Kind = algorithm == .mlDSA44 ? .mlDSA44 : algorithm == .mlDSA65 ? .mlDSA65 : .mlDSA87
            let key = try PrivateKey.generate(kind)
            let cose = try COSEKey(cbor: try key.coseKey(algorithm: algorithm)[...])
            #expect(cose.keyType == .akp)
            #expect(cose.akpPublicKey?.count == publicKeyLength)
            let signature = try key.sign(SignatureTests.message, algorithm: algorithm)
            #expect(try cose.verify(signature: signature[...], over: SignatureTests.message[...]))
            #expect(try cose.verify(signature: signature[...], over: []) == false)
        } else {
            let cbor = CBOREncoder.encode(
                CBORItem.map([
                    (.int(1), .int(7)), (.int(3), .int(Int64(algorithm.rawValue))),
                    (.int(-1), .bytes([UInt8](repeating: 0x5a, count: publicKeyLength))),
                ]))
            #expect(throws: CryptoError(.unsupportedByLibCrypto, "")) { try COSEKey(cbor: cbor[...]) }
            #expect(throws: CryptoError(.unsupportedByLibCrypto, "")) { try PrivateKey.generate(.mlDSA44) }
        }
    }
}
