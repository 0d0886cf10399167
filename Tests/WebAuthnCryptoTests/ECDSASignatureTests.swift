import Testing
@_spi(Testing) @testable import WebAuthnCrypto

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

    @Test("a libcrypto signature split into r||s converts back to the same DER and verifies",
          arguments: [(PrivateKey.Kind.p256, COSEAlgorithm.es256, 32), (.p384, .es384, 48), (.p521, .es512, 66)])
    func roundTrip(kind: PrivateKey.Kind, algorithm: COSEAlgorithm, coordinateLength: Int) throws {
        let key = try PrivateKey.generate(kind)
        let message = Array("header.payload".utf8)
        for _ in 0..<8 {  // several signatures, so short r or s values come up too
            let der = try key.sign(message, algorithm: algorithm)
            let converted = try ECDSASignature.derEncoded(raw: try raw(fromDER: der, coordinateLength: coordinateLength)[...],
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
