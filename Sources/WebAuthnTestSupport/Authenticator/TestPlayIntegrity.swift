package import Foundation
import WebAuthnCoding
import WebAuthnCrypto
package import WebAuthnRP

/// A software stand-in for Google Play's integrity servers with developer-managed keys: it makes
/// integrity tokens the way Google documents them (a compact JWS, ES256, inside a compact JWE,
/// A256KW and A256GCM) from a verdict whose every member a test may change, under test keys
/// derived from a seed. Deterministic (derived keys, content key and iv; RFC 6979 signatures), so
/// a token is byte-stable.
package struct TestPlayIntegrity: Sendable {
    /// The AES-256 decryption key, which wraps each token's content key.
    package let decryptionKey: [UInt8]
    /// The EC P-256 key verdicts are signed with.
    package let signingKey: PrivateKey
    /// The app's package and the SHA-256 of its signing certificate.
    package let packageName: String
    package let signingDigest: [UInt8]
    private let seed: String

    /// Keys derived from `seed`, for an app signed by a certificate whose digest is SHA-256 of `signer`.
    package init(seed: String = "play", packageName: String = "com.example.app", signer: String = "release") throws {
        self.seed = seed
        self.decryptionKey = Digest.sha256.hash(Array("play integrity decryption key \(seed)".utf8))
        self.signingKey = try PrivateKey.derive(.p256, seed: "play integrity verification key \(seed)")
        self.packageName = packageName
        self.signingDigest = Digest.sha256.hash(Array(signer.utf8))
    }

    /// The decryption key as the Play Console shows it (base64).
    package var decryptionKeyText: String { Data(decryptionKey).base64EncodedString() }
    /// The verification key as the Play Console shows it (base64 of the DER SubjectPublicKeyInfo).
    package var verificationKeyText: String { Data(signingKey.publicKey.subjectPublicKeyInfoDER).base64EncodedString() }

    /// The app as a relying party declares it.
    package var app: AndroidApp {
        get throws {
            try AndroidApp(packageName: packageName, sha256Fingerprint: signingDigest.map { String(format: "%02X", $0) }.joined())
        }
    }

    /// The verdict Google returns for this app, installed from Play on a certified device, for a
    /// request bound to `binding` and made at `time`.
    package func verdict(binding: PlayIntegrityRequestBinding, at time: Date) -> [String: Any] {
        var request: [String: Any] = [
            "requestPackageName": packageName, "timestampMillis": String(Int64((time.timeIntervalSince1970 * 1000).rounded())),
        ]
        switch binding {
        case .nonce(let nonce): request["nonce"] = nonce
        case .requestHash(let hash): request["requestHash"] = hash
        }
        return [
            "requestDetails": request,
            "appIntegrity": [
                "appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": packageName,
                "certificateSha256Digest": [Base64URL.encode(signingDigest)], "versionCode": "42",
            ],
            "deviceIntegrity": [
                "deviceRecognitionVerdict": ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"],
                "recentDeviceActivity": ["deviceActivityLevel": "LEVEL_1"],
            ],
            "accountDetails": ["appLicensingVerdict": "LICENSED"],
            "environmentDetails": ["appAccessRiskVerdict": ["appsDetected": ["KNOWN_INSTALLED"]]],
        ]
    }

    /// `verdict` with `member` of `section` set to `value` (removed for nil; the section itself
    /// when `member` is nil).
    package static func setting(_ verdict: [String: Any], _ section: String, _ member: String?, to value: Any?) -> [String: Any] {
        var edited = verdict
        guard let member else {
            edited[section] = value
            return edited
        }
        var inner = verdict[section] as? [String: Any] ?? [:]
        inner[member] = value
        edited[section] = inner
        return edited
    }

    /// The token for `verdict` (JSON, keys sorted), or for `payload` bytes as they are.
    /// - Parameters:
    ///   - verdict: the payload's members.
    ///   - payload: the payload bytes, instead of `verdict`.
    ///   - encryptionHeader: the JWE protected header (default `A256KW`, `A256GCM`).
    ///   - signatureHeader: the JWS protected header (default `ES256`).
    ///   - wrappingKey: the key the content key is wrapped under (default the decryption key).
    ///   - signer: the key that signs (default the verification key's private half).
    ///   - content: the JWE's content as it is, instead of a JWS signed here.
    ///   - tamper: a change to the five encoded parts before they are joined.
    package func token(
        _ verdict: [String: Any] = [:], payload: [UInt8]? = nil,
        encryptionHeader: [String: Any] = ["alg": "A256KW", "enc": "A256GCM"], signatureHeader: [String: Any] = ["alg": "ES256"],
        wrappingKey: [UInt8]? = nil, signer: PrivateKey? = nil, content: [UInt8]? = nil,
        tamper: (inout [String]) throws -> Void = { _ in }
    ) throws -> String {
        let payloadBytes = try payload ?? Self.json(verdict)
        let signingInput = Base64URL.encode(try Self.json(signatureHeader)) + "." + Base64URL.encode(payloadBytes)
        let derSignature = try (signer ?? signingKey).sign(Array(signingInput.utf8), algorithm: .es256)
        let jws = signingInput + "." + Base64URL.encode(try TestMetadataService.rawECDSA(derSignature, coordinate: 32))
        let plaintext = content ?? Array(jws.utf8)

        let contentKey = Digest.sha256.hash(Array("play integrity content key \(seed) ".utf8) + plaintext)
        let iv = Array(Digest.sha256.hash(Array("play integrity iv \(seed) ".utf8) + plaintext).prefix(AES256GCM.nonceSize))
        let protected = Base64URL.encode(try Self.json(encryptionHeader))
        let sealed = try AES256GCM.seal(plaintext, key: contentKey, nonce: iv, aad: Array(protected.utf8))
        var parts = [
            protected, Base64URL.encode(try LibCryptoTestKeyWrap.wrap(contentKey, kek: wrappingKey ?? decryptionKey)),
            Base64URL.encode(iv), Base64URL.encode(Array(sealed.dropLast(AES256GCM.tagSize))),
            Base64URL.encode(Array(sealed.suffix(AES256GCM.tagSize))),
        ]
        try tamper(&parts)
        return parts.joined(separator: ".")
    }

    private static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
