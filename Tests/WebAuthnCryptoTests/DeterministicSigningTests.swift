import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnCrypto
@testable import WebAuthnTestSupport

/// Seeded keys and deterministic signatures: what lets `webauthn-fixtures` regenerate
/// Fixtures/ byte for byte.
struct DeterministicSigningTests {
    static let message = Array("authenticatorData || clientDataHash".utf8)

    /// RFC 6979 appendix A.2.5 (P-256): the nonce, and so r and s, are fixed by key and message.
    @Test(
        "ECDSA P-256 nonces follow RFC 6979 A.2.5",
        arguments: [
            (
                "sample", "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
                "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
            ),
            (
                "test", "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
                "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"
            ),
        ])
    func rfc6979(message: String, r: String, s: String) throws {
        // ecKeyPair maps a seed to seed mod (n-1) + 1, so x - 1 gives the vector's x.
        var scalarMinusOne = hex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
        scalarMinusOne[scalarMinusOne.count - 1] -= 1
        let key = try PrivateKey(keyPair: try LibCryptoDeterministic.ecKeyPair(group: "prime256v1") { _ in scalarMinusOne })
        let signature = try key.sign(Array(message.utf8), algorithm: .es256)
        let expected = try ECDSASignature.derEncoded(raw: (hex(r) + hex(s))[...], coordinateLength: 32)
        #expect(signature == expected)
        #expect(try key.publicKey.verify(signature: signature[...], over: Array(message.utf8)[...], algorithm: .es256))
    }

    static let kinds: [(PrivateKey.Kind, COSEAlgorithm)] = [
        (.p256, .es256), (.p384, .es384), (.p521, .es512), (.secp256k1, .es256k),
        (.ed25519, .edDSA), (.ed448, .ed448), (.rsa(bits: 2048), .rs256), (.rsa(bits: 2048), .ps256),
    ]

    @Test("a seed always gives the same key, and signatures repeat and verify", arguments: 0..<kinds.count)
    func seededKeys(index: Int) throws {
        let (kind, algorithm) = Self.kinds[index]
        let first = try PrivateKey.derive(kind, seed: "seed one")
        let again = try PrivateKey.derive(kind, seed: "seed one")
        let other = try PrivateKey.derive(kind, seed: "seed two")
        #expect(try first.coseKey(algorithm: algorithm) == again.coseKey(algorithm: algorithm))
        #expect(try first.coseKey(algorithm: algorithm) != other.coseKey(algorithm: algorithm))

        let signature = try first.sign(Self.message, algorithm: algorithm)
        #expect(try again.sign(Self.message, algorithm: algorithm) == signature)
        #expect(try first.publicKey.verify(signature: signature[...], over: Self.message[...], algorithm: algorithm))
        // The deterministic signature is still a real one: another message does not verify.
        #expect(try !first.publicKey.verify(signature: signature[...], over: Array("other".utf8)[...], algorithm: algorithm))
    }

    @Test("a seeded RSA-2048 key has a 2048-bit modulus")
    func rsaSize() throws {
        let key = try PrivateKey.derive(.rsa(bits: 2048), seed: "rsa size")
        #expect(LibCryptoDeterministic.rsaModulusBits(key.keyPair) == 2048)
    }

    @Test("certificates signed with ECDSA are byte-identical when built twice")
    func certificates() throws {
        func build() throws -> [UInt8] {
            let key = try PrivateKey.derive(.p256, seed: "certificate")
            var builder = CertificateBuilder(
                subject: try DistinguishedName([.commonName("Deterministic")]),
                publicKey: key.publicKey, notBefore: Date(timeIntervalSince1970: 1_700_000_000),
                notAfter: Date(timeIntervalSince1970: 1_800_000_000))
            builder.basicConstraints = .init(isCA: true)
            let certificate = try builder.sign(with: key)
            #expect(certificate.publicKey.isEqual(to: key.publicKey))
            return certificate.derBytes
        }
        let first = try build()
        #expect(try build() == first)
    }
}
