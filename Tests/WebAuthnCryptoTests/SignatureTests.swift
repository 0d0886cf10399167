import Testing
@_spi(Testing) import WebAuthnCrypto
import WebAuthnCoding

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
        Case(algorithm: .edDSA, kind: .ed448),
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
}
