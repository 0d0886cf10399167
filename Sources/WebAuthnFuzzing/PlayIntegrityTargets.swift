import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Play Integrity: the integrity token (hostile text: JWE, then JWS, then the verdict's JSON),
/// verified with fixed keys, the test token builder's (`TestPlayIntegrity(seed: "play")`), so a
/// token it makes is accepted at the fixed time. A random token stops at the key unwrap, so the
/// first byte also chooses a deeper entry: the JWE's content, sealed here under a fixed content
/// key (the JWS header and signature steps see the fuzzed bytes), or the payload reader alone.
enum PlayIntegrityTargets {
    static let all: [FuzzTarget] = [token]

    /// The test builder's decryption key.
    static let decryptionKey = Digest.sha256.hash(Array("play integrity decryption key play".utf8))
    /// The test builder's verification key (DER SubjectPublicKeyInfo, EC P-256).
    static let verificationKey =
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE3pzOpnmbqNQgRUKZ4y4h4ctU0YK8vnH4oIFZ5R4FxkSkwBkblD/MXn1vGBNffe6G8Gr454wxAYila2T8lC8bag=="
    /// A content key of 32 bytes 0x11, wrapped under ``decryptionKey`` (RFC 3394).
    static let wrappedContentKey = Base64URL.encode(
        [
            0xac, 0x7a, 0x35, 0xe2, 0x92, 0x45, 0x09, 0x31, 0x02, 0xc9, 0xe0, 0x77, 0x9b, 0x8f, 0xfd, 0x83, 0xc4, 0x25, 0x47, 0x64,
            0x5e, 0x77, 0x47, 0x83, 0x4f, 0xf1, 0xd8, 0x4f, 0xc7, 0xa2, 0x5e, 0xc8, 0xa7, 0x51, 0x3f, 0x7e, 0x61, 0xb1, 0x75, 0xfb,
        ])
    /// The verification time: the builder's default verdict time (2025-01-01).
    static let time = Date(timeIntervalSince1970: 1_735_689_600)
    static let binding = PlayIntegrityRequestBinding.requestHash("r7Rx-the-request-hash")

    static let verifier: PlayIntegrityVerifier? = {
        guard let der = Data(base64Encoded: verificationKey), let key = try? PublicKey(subjectPublicKeyInfoDER: Array(der)[...]),
            let app = try? AndroidApp(
                packageName: "com.example.app",
                sha256Fingerprint: Digest.sha256.hash(Array("release".utf8)).map { String(format: "%02X", $0) }.joined())
        else { return nil }
        return PlayIntegrityVerifier(decryptionKey: decryptionKey, verificationKey: key, apps: [app], policy: PlayIntegrityPolicy())
    }()

    /// The verdict on `token`: `accepted` with what it established, or the category and step.
    static func verdict(_ token: String) -> String {
        guard let verifier else { return "no verifier" }
        var trace = CeremonyTrace()
        do {
            return "accepted \(try verifier.verify(token: token, binding: binding, at: time, trace: &trace))"
        } catch {
            return "refused \(error.category) at \(error.step ?? "-")"
        }
    }

    /// `content` as the JWE of a token under the fixed keys.
    static func sealed(_ content: [UInt8]) -> String? {
        let header = Base64URL.encode(Array(#"{"alg":"A256KW","enc":"A256GCM"}"#.utf8))
        let iv = [UInt8](repeating: 0x22, count: AES256GCM.nonceSize)
        guard
            let ciphertext = try? AES256GCM.seal(
                content, key: [UInt8](repeating: 0x11, count: 32), nonce: iv, aad: Array(header.utf8))
        else { return nil }
        let body = Base64URL.encode(Array(ciphertext.dropLast(AES256GCM.tagSize)))
        return [header, wrappedContentKey, Base64URL.encode(iv), body, Base64URL.encode(Array(ciphertext.suffix(AES256GCM.tagSize)))]
            .joined(separator: ".")
    }

    static let token = FuzzTarget(
        "play-integrity-token",
        checks: """
            0x00 + a token (its text as received), 0x01 + a JWE's content sealed under the fixed keys, 0x02 + a \
            verdict's payload JSON: verified (or read) twice with the same verdict; a token whose content \
            does not verify under the fixed key is never accepted
            """
    ) { bytes, check in
        guard let mode = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        switch mode {
        case 0x00:
            let token = String(decoding: input, as: UTF8.self)
            let first = verdict(token)
            check.requireSame(first, verdict(token), "verifying twice gives the same verdict")
        case 0x01:
            guard let token = sealed(input) else { return }
            let first = verdict(token)
            check.requireSame(first, verdict(token), "verifying twice gives the same verdict")
            // Only a JWS the test key signed can pass; its signature covers everything before it.
            check.require(
                !first.hasPrefix("accepted") || input.starts(with: Array(#"eyJhbGciOiJFUzI1NiJ9."#.utf8)),
                "only a JWS with the test signer's header is accepted", first)
        case 0x02:
            let first = PlayIntegrityPayloadReading.read(input)
            check.requireSame(first, PlayIntegrityPayloadReading.read(input), "reading twice gives the same result")
        default:
            return
        }
    }
}
