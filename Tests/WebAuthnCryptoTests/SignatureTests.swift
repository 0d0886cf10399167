import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// Round trips through libcrypto: a key generated in-process signs, its public key
/// (and its COSE key) verifies; tampering makes verification return false.
struct SignatureTests {
    static let message: [UInt8] = Array("WebAuthn signed data: authenticatorData || clientDataHash".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let algorithm: COSEAlgorithm
        let kind: PrivateKey.Kind
        var testDescription: String { "\(algorithm)" }
    }

    static let rsaKey: PrivateKey? = try? PrivateKey.generate(.rsa(bits: 2048))

    static let cases: [Case] = [
        Case(algorithm: .es256, kind: .p256),
        Case(algorithm: .es384, kind: .p384),
        Case(algorithm: .es512, kind: .p521),
        Case(algorithm: .es256k, kind: .secp256k1),
        Case(algorithm: .esp256, kind: .p256),
        Case(algorithm: .esp384, kind: .p384),
        Case(algorithm: .esp512, kind: .p521),
        Case(algorithm: .edDSA, kind: .ed25519),
        Case(algorithm: .ed25519, kind: .ed25519),
        Case(algorithm: .ed448, kind: .ed448),
        Case(algorithm: .rs256, kind: .rsa(bits: 2048)),
        Case(algorithm: .rs384, kind: .rsa(bits: 2048)),
        Case(algorithm: .rs512, kind: .rsa(bits: 2048)),
        Case(algorithm: .ps256, kind: .rsa(bits: 2048)),
        Case(algorithm: .ps384, kind: .rsa(bits: 2048)),
        Case(algorithm: .ps512, kind: .rsa(bits: 2048)),
    ]

    static func key(for kind: PrivateKey.Kind) throws -> PrivateKey {
        if case .rsa(bits: 2048) = kind, let rsaKey { return rsaKey }
        return try PrivateKey.generate(kind)
    }

    @Test(arguments: cases)
    func signsAndVerifiesThroughPublicKey(_ testCase: Case) throws {
        let key = try Self.key(for: testCase.kind)
        let signature = try key.sign(Self.message, algorithm: testCase.algorithm)
        #expect(try key.publicKey.verify(signature: signature[...], over: Self.message[...], algorithm: testCase.algorithm))
    }

    @Test(arguments: cases)
    func coseKeyRoundTripVerifies(_ testCase: Case) throws {
        let key = try Self.key(for: testCase.kind)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: testCase.algorithm)[...])
        #expect(cose.algorithm == testCase.algorithm)
        #expect(cose.publicKey.isEqual(to: key.publicKey))
        let signature = try key.sign(Self.message, algorithm: testCase.algorithm)
        #expect(try cose.verify(signature: signature[...], over: Self.message[...]))
        // The same key object, built once, verifies again.
        #expect(try cose.verify(signature: signature[...], over: Self.message[...]))
    }

    @Test(arguments: cases)
    func flippedBitsDoNotVerify(_ testCase: Case) throws {
        let key = try Self.key(for: testCase.kind)
        let signature = try key.sign(Self.message, algorithm: testCase.algorithm)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: testCase.algorithm)[...])
        var tamperedMessage = Self.message
        tamperedMessage[0] ^= 0x01
        #expect(try cose.verify(signature: signature[...], over: tamperedMessage[...]) == false)
        // Flip a bit in the last byte: inside the value for every encoding (the last
        // byte of a DER ECDSA signature is the low byte of s).
        var tampered = signature
        tampered[tampered.count - 1] ^= 0x01
        #expect(try cose.verify(signature: tampered[...], over: Self.message[...]) == false)
    }

    // MARK: - ECDSA encoding

    /// DER `ECDSA-Sig-Value` to raw `r || s`, each left-padded to `width`.
    static func rawSignature(fromDER der: [UInt8], width: Int) throws -> [UInt8] {
        // 30 len [81 len] 02 rlen r 02 slen s
        var index = der[1] == 0x81 ? 3 : 2
        var out: [UInt8] = []
        for _ in 0..<2 {
            try #require(der[index] == 0x02)
            let length = Int(der[index + 1])
            var value = Array(der[(index + 2)..<(index + 2 + length)])
            while value.count > width, value.first == 0 { value.removeFirst() }
            out += [UInt8](repeating: 0, count: width - value.count) + value
            index += 2 + length
        }
        return out
    }

    @Test func nonDERECDSASignaturesAreMalformed() throws {
        let key = try PrivateKey.generate(.p256)
        let cose = try COSEKey(cbor: try key.coseKey(algorithm: .es256)[...])
        let der = try key.sign(Self.message, algorithm: .es256)
        #expect(try cose.verify(signature: der[...], over: Self.message[...]))

        let malformed = CryptoError(.malformedSignature, "")
        // Raw r || s (the WebCrypto / COSE_Sign1 form) is not accepted here.
        let raw = try Self.rawSignature(fromDER: der, width: 32)
        #expect(throws: malformed) { try cose.verify(signature: raw[...], over: Self.message[...]) }
        // Truncated, trailing bytes, empty.
        #expect(throws: malformed) { try cose.verify(signature: der.dropLast(), over: Self.message[...]) }
        #expect(throws: malformed) { try cose.verify(signature: (der + [0])[...], over: Self.message[...]) }
        #expect(throws: malformed) { try cose.verify(signature: [], over: Self.message[...]) }
        // BER long-form length for the SEQUENCE (same content, not DER).
        let longForm = [0x30, 0x81, der[1]] + der.dropFirst(2)
        #expect(throws: malformed) { try cose.verify(signature: longForm[...], over: Self.message[...]) }
        // A non-minimal INTEGER: an extra leading zero on r.
        let rLength = Int(der[3])
        let paddedR = [0x30, der[1] + 1, 0x02, der[3] + 1, 0x00] + der[4..<(4 + rLength)] + der[(4 + rLength)...]
        #expect(throws: malformed) { try cose.verify(signature: paddedR[...], over: Self.message[...]) }
        // The same checks apply through PublicKey.
        #expect(throws: malformed) {
            try key.publicKey.verify(signature: raw[...], over: Self.message[...], algorithm: .es256)
        }
    }

    @Test func eddsaAndRSASignaturesOfWrongLengthDoNotVerify() throws {
        let ed = try PrivateKey.generate(.ed25519)
        let edSignature = try ed.sign(Self.message, algorithm: .edDSA)
        #expect(try ed.publicKey.verify(signature: edSignature.dropLast(), over: Self.message[...], algorithm: .edDSA) == false)
        let rsa = try #require(Self.rsaKey)
        let rsaSignature = try rsa.sign(Self.message, algorithm: .ps256)
        #expect(try rsa.publicKey.verify(signature: rsaSignature.dropLast(), over: Self.message[...], algorithm: .ps256) == false)
        #expect(try rsa.publicKey.verify(signature: (rsaSignature + [0])[...], over: Self.message[...], algorithm: .ps256) == false)
        // PKCS#1 v1.5 and PSS are not interchangeable.
        #expect(try rsa.publicKey.verify(signature: rsaSignature[...], over: Self.message[...], algorithm: .rs256) == false)
    }

    // MARK: - PublicKey

    @Test func publicKeyRefusesAlgorithmsThatDoNotFit() throws {
        let p256 = try PrivateKey.generate(.p256).publicKey
        let ed25519 = try PrivateKey.generate(.ed25519).publicKey
        let rsa = try #require(Self.rsaKey).publicKey
        let mismatch = CryptoError(.algorithmMismatch, "")
        let signature: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]
        for (key, algorithm) in [
            (p256, COSEAlgorithm.es384), (p256, .es256k), (p256, .esp512), (p256, .rs256),
            (p256, .edDSA), (ed25519, .ed448), (ed25519, .es256), (rsa, .es256), (rsa, .edDSA),
        ] {
            #expect(throws: mismatch, "\(key.keyKind) with \(algorithm)") {
                try key.verify(signature: signature[...], over: [], algorithm: algorithm)
            }
        }
        #expect(throws: CryptoError(.unsupportedAlgorithm, "")) {
            try p256.verify(signature: signature[...], over: [], algorithm: COSEAlgorithm(rawValue: -999))
        }
    }

    @Test func subjectPublicKeyInfoRoundTrips() throws {
        for kind in [PrivateKey.Kind.p256, .p384, .p521, .secp256k1, .ed25519, .ed448] {
            let key = try PrivateKey.generate(kind)
            let der = key.publicKey.subjectPublicKeyInfoDER
            let parsed = try PublicKey(subjectPublicKeyInfoDER: der[...])
            #expect(parsed.isEqual(to: key.publicKey))
            #expect(parsed.subjectPublicKeyInfoDER == der)
            #expect(!parsed.isEqual(to: try PrivateKey.generate(kind).publicKey))
            #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(subjectPublicKeyInfoDER: (der + [0])[...]) }
            #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(subjectPublicKeyInfoDER: der.dropLast()) }
        }
        #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(subjectPublicKeyInfoDER: [][...]) }
        let rsa = try #require(Self.rsaKey).publicKey
        #expect(try PublicKey(subjectPublicKeyInfoDER: rsa.subjectPublicKeyInfoDER[...]).isEqual(to: rsa))
    }

    @Test func keyKindsAndParameters() throws {
        #expect(try PrivateKey.generate(.p384).publicKey.keyKind == "EC P-384")
        #expect(try PrivateKey.generate(.p521).publicKey.keyKind == "EC P-521")
        #expect(try PrivateKey.generate(.secp256k1).publicKey.keyKind == "EC secp256k1")
        let ed448 = try PrivateKey.generate(.ed448).publicKey
        #expect(ed448.keyKind == "Ed448")
        #expect(ed448.rawOKPKey?.count == 57)
        #expect(ed448.ecCoordinates == nil && ed448.rsaParameters == nil)
        let p521 = try PrivateKey.generate(.p521).publicKey
        #expect(p521.ecCoordinates?.x.count == 66 && p521.ecCoordinates?.y.count == 66)
        #expect(try #require(Self.rsaKey).publicKey.keyKind == "RSA 2048")
    }
}
