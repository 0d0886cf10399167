import WebAuthnCoding
package import WebAuthnCrypto

// Seeded keys and deterministic signatures for the test authenticator, so that the
// project's Fixtures regenerate byte for byte: the same seed gives the same key, and
// the same key and message give the same signature, for every algorithm.

extension PrivateKey {
    /// A key pair derived from a seed: the same seed always gives the same key.
    /// - Parameters:
    ///   - kind: the key type and size (ML-DSA is not supported).
    ///   - seed: any text; different texts give unrelated keys.
    /// - Returns: the key.
    /// - Throws: ``CryptoError`` when libcrypto refuses the key.
    package static func derive(_ kind: Kind, seed: String) throws(CryptoError) -> PrivateKey {
        let material = SeedExpander(seed: Array(seed.utf8))
        switch kind {
        case .p256, .p384, .p521, .secp256k1:
            let curve: COSECurve = kind.ecCurve ?? .p256
            // 64 extra bits beyond the order make the reduction's bias negligible.
            return try PrivateKey(
                keyPair: try LibCryptoDeterministic.ecKeyPair(group: curve.libcryptoName) { orderLength in
                    material.bytes("ec-scalar", count: orderLength + 8)
                })
        case .ed25519:
            return try PrivateKey(
                keyPair: try LibCryptoDeterministic.rawPrivateKey(
                    algorithm: "ED25519", material.bytes("ed25519", count: 32)))
        case .ed448:
            return try PrivateKey(
                keyPair: try LibCryptoDeterministic.rawPrivateKey(
                    algorithm: "ED448", material.bytes("ed448", count: 57)))
        case .rsa(let bits):
            guard bits >= 1024, bits % 16 == 0 else { throw CryptoError(.weakKey, "cannot derive RSA-\(bits)") }
            let primeBytes = bits / 16
            return try PrivateKey(
                keyPair: try LibCryptoDeterministic.rsaKeyPair(
                    primeSeeds: (material.bytes("rsa-p", count: primeBytes), material.bytes("rsa-q", count: primeBytes)),
                    primeBits: bits / 2))
        case .mlDSA44, .mlDSA65, .mlDSA87:
            throw CryptoError(.unsupportedByLibCrypto, "seeded ML-DSA keys are not supported")
        }
    }

    /// ECDSA with the nonce of RFC 6979 §3.2, DER-encoded.
    func deterministicECDSA(_ data: [UInt8], digest: Digest) throws(CryptoError) -> [UInt8] {
        let hash = digest.hash(data)
        let (parameters, reducedHash) = try LibCryptoDeterministic.ecParameters(keyPair, hash: hash)
        let length = parameters.privateScalar.count
        var v = [UInt8](repeating: 0x01, count: digest.byteCount)
        var k = [UInt8](repeating: 0x00, count: digest.byteCount)
        k = HMAC.code(digest, key: k, v + [0x00] + parameters.privateScalar + reducedHash)
        v = HMAC.code(digest, key: k, v)
        k = HMAC.code(digest, key: k, v + [0x01] + parameters.privateScalar + reducedHash)
        v = HMAC.code(digest, key: k, v)
        for _ in 0..<64 {
            var candidate: [UInt8] = []
            while candidate.count < length {
                v = HMAC.code(digest, key: k, v)
                candidate += v
            }
            if let raw = try LibCryptoDeterministic.ecdsaSign(keyPair, hash: hash, nonceCandidate: Array(candidate.prefix(length))) {
                return try ECDSASignature.derEncoded(raw: raw[...], coordinateLength: length)
            }
            k = HMAC.code(digest, key: k, v + [0x00])
            v = HMAC.code(digest, key: k, v)
        }
        throw CryptoError(.libcrypto, "no usable RFC 6979 nonce")
    }

    /// RSASSA-PSS (RFC 8017 §9.1.1) with MGF1 and a salt as long as the digest, derived
    /// from the message instead of drawn at random.
    func deterministicPSS(_ data: [UInt8], digest: Digest) throws(CryptoError) -> [UInt8] {
        let modulusBits = LibCryptoDeterministic.rsaModulusBits(keyPair)
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        let hashLength = digest.byteCount
        guard emLength >= 2 * hashLength + 2 else { throw CryptoError(.weakKey, "RSA key too small for PSS") }
        let messageHash = digest.hash(data)
        let salt = digest.hash(Array("pss-salt".utf8) + messageHash)
        let h = digest.hash([UInt8](repeating: 0, count: 8) + messageHash + salt)
        var db = [UInt8](repeating: 0, count: emLength - salt.count - hashLength - 2) + [0x01] + salt
        let mask = Self.mgf1(digest, seed: h, count: db.count)
        for index in db.indices { db[index] ^= mask[index] }
        db[0] &= UInt8(0xFF) >> (8 * emLength - emBits)
        let encoded = db + h + [0xBC]
        let modulusLength = (modulusBits + 7) / 8
        let block = [UInt8](repeating: 0, count: modulusLength - encoded.count) + encoded
        return try LibCryptoDeterministic.rsaPrivateOperation(keyPair, block: block)
    }

    /// MGF1 (RFC 8017 §B.2.1).
    private static func mgf1(_ digest: Digest, seed: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var counter: UInt32 = 0
        while out.count < count {
            out += digest.hash(seed + withUnsafeBytes(of: counter.bigEndian, Array.init))
            counter += 1
        }
        return Array(out.prefix(count))
    }
}

/// HMAC (RFC 2104) over one of the supported digests.
enum HMAC {
    static func code(_ digest: Digest, key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let blockSize = digest.byteCount > 32 ? 128 : 64
        var block = key.count > blockSize ? digest.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = digest.hash(block.map { $0 ^ 0x36 } + message)
        return digest.hash(block.map { $0 ^ 0x5C } + inner)
    }
}

/// Expands a seed into labelled byte strings: HMAC-SHA-256(seed, label ‖ counter) blocks.
struct SeedExpander {
    let seed: [UInt8]

    func bytes(_ label: String, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var counter: UInt32 = 0
        while out.count < count {
            out += HMAC.code(.sha256, key: seed, Array(label.utf8) + withUnsafeBytes(of: counter.bigEndian, Array.init))
            counter += 1
        }
        return Array(out.prefix(count))
    }
}
