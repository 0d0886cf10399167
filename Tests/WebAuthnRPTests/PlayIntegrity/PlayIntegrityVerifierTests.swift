import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Play Integrity verdicts verified locally, check by check: a token made the way Google
/// documents it (JWS ES256 inside JWE A256KW/A256GCM) under test keys is accepted with what it
/// establishes, and every check refuses the one thing made wrong, with its category and step.
@Suite("Play Integrity verifier")
struct PlayIntegrityVerifierTests {
    static let now = TestCertificates.now
    static let binding = PlayIntegrityRequestBinding.requestHash("r7Rx-the-request-hash")

    static func verifier(_ play: TestPlayIntegrity, policy: PlayIntegrityPolicy = PlayIntegrityPolicy()) throws -> PlayIntegrityVerifier {
        PlayIntegrityVerifier(
            decryptionKey: play.decryptionKey, verificationKey: play.signingKey.publicKey, apps: [try play.app], policy: policy)
    }

    static func verify(
        _ token: String, _ verifier: PlayIntegrityVerifier, binding: PlayIntegrityRequestBinding = binding, at time: Date = now
    ) throws(WebAuthnError) -> VerifiedPlayIntegrityVerdict {
        var trace = CeremonyTrace()
        return try verifier.verify(token: token, binding: binding, at: time, trace: &trace)
    }

    /// The refusal of `token`, required to be of `category` at `step`.
    static func expectRefusal(
        _ token: String, _ verifier: PlayIntegrityVerifier, _ category: WebAuthnError.Category, at step: String,
        binding: PlayIntegrityRequestBinding = binding, time: Date = now, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try verify(token, verifier, binding: binding, at: time)
            Issue.record("accepted, expected \(category) at \(step)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.category == category, "\(error)", sourceLocation: sourceLocation)
            #expect(error.step == step, "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// The test builder, a verifier of its keys and app, and its default verdict.
    static func fixture() throws -> (TestPlayIntegrity, PlayIntegrityVerifier, [String: Any]) {
        let play = try TestPlayIntegrity()
        return (play, try verifier(play), play.verdict(binding: binding, at: now))
    }

    /// The default verdict with one member changed.
    static func verdict(_ play: TestPlayIntegrity, _ section: String, _ member: String?, _ value: Any?) -> [String: Any] {
        TestPlayIntegrity.setting(play.verdict(binding: binding, at: now), section, member, to: value)
    }

    @Test("a token for the declared app on a certified device is accepted with what it establishes")
    func accepted() throws {
        let play = try TestPlayIntegrity()
        let verified = try Self.verify(try play.token(play.verdict(binding: Self.binding, at: Self.now)), try Self.verifier(play))
        #expect(verified.packageName == "com.example.app" && verified.versionCode == 42)
        #expect(verified.certificateDigests == [play.signingDigest])
        #expect(verified.appRecognition == "PLAY_RECOGNIZED")
        #expect(verified.deviceVerdicts == ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"])
        #expect(verified.recentDeviceActivity == "LEVEL_1" && verified.appLicensing == "LICENSED")
        #expect(abs(verified.timestamp.timeIntervalSince(Self.now)) < 0.001)
    }

    @Test("every step of an accepted token is in the trace, in order")
    func traceOrder() throws {
        let play = try TestPlayIntegrity()
        var trace = CeremonyTrace()
        _ = try Self.verifier(play).verify(
            token: try play.token(play.verdict(binding: Self.binding, at: Self.now)), binding: Self.binding, at: Self.now,
            trace: &trace)
        #expect(
            trace.rows.map(\.step) == [
                PlayIntegrityStep.token, PlayIntegrityStep.encryptionHeader, PlayIntegrityStep.keyUnwrap,
                PlayIntegrityStep.decryption, PlayIntegrityStep.signatureHeader, PlayIntegrityStep.signature,
                PlayIntegrityStep.payload, PlayIntegrityStep.package, PlayIntegrityStep.binding, PlayIntegrityStep.timestamp,
                PlayIntegrityStep.appRecognition, PlayIntegrityStep.certificates, PlayIntegrityStep.device,
                PlayIntegrityStep.licensing, PlayIntegrityStep.established,
            ])
        #expect(trace.rows.map(\.outcome).filter { $0 != "passed" } == ["skipped"])  // licensing, off by default
    }

    @Test("a classic request's nonce binds as the standard request's hash does, and neither answers for the other")
    func bindings() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        let nonce = PlayIntegrityRequestBinding.nonce("bm9uY2UtZnJvbS10aGUtc2VydmVy")
        _ = try Self.verify(try play.token(play.verdict(binding: nonce, at: Self.now)), verifier, binding: nonce)
        let hashed = try play.token(play.verdict(binding: Self.binding, at: Self.now))
        Self.expectRefusal(hashed, verifier, .challenge, at: PlayIntegrityStep.binding, binding: nonce)
        Self.expectRefusal(hashed, verifier, .challenge, at: PlayIntegrityStep.binding, binding: .requestHash("another request"))
        Self.expectRefusal(
            try play.token(play.verdict(binding: .nonce("bm9uY2UtZnJvbS10aGUtc2VydmVY"), at: Self.now)), verifier, .challenge,
            at: PlayIntegrityStep.binding, binding: nonce)
        // One character more is another request, not a prefix match.
        Self.expectRefusal(hashed, verifier, .challenge, at: PlayIntegrityStep.binding, binding: .requestHash("r7Rx-the-request-hash."))
    }

    @Test("a token that is not five strict base64url parts of at most 16 KiB is malformed at the token step")
    func tokenShape() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        let good = try play.token(play.verdict(binding: Self.binding, at: Self.now))
        let parts = good.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let header = parts[0], rest = parts.dropFirst().joined(separator: ".")
        let standardAlphabet = good.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "+"
        let duplicated = Base64URL.encode(Array(#"{"alg":"A256KW","alg":"A256KW","enc":"A256GCM"}"#.utf8))
        var shapes: [String] = ["", ".", "....", parts.dropLast().joined(separator: "."), good + ".AAAA", good + "=", standardAlphabet]
        shapes += [header + ".." + parts.dropFirst(2).joined(separator: "."), "é" + good, good + "\n"]
        shapes.append(String(repeating: "A", count: PlayIntegrityVerifier.maximumTokenLength + 1))
        // Five well-formed parts, too long together: refused for its length before anything is decoded.
        let huge = String(repeating: "A", count: PlayIntegrityVerifier.maximumTokenLength)
        shapes.append(([header, parts[1], parts[2], huge, parts[4]]).joined(separator: "."))
        shapes.append(Base64URL.encode(Array("not json".utf8)) + "." + rest)
        shapes.append(Base64URL.encode(Array("[1,2]".utf8)) + "." + rest)
        shapes.append(duplicated + "." + rest)
        for token in shapes {
            Self.expectRefusal(token, verifier, .malformed, at: PlayIntegrityStep.token)
        }
    }

    @Test("a JWE header with another alg or enc, compression or a critical extension is refused")
    func encryptionHeader() throws {
        let (play, verifier, verdict) = try Self.fixture()
        for (header, category) in [
            (["alg": "RSA-OAEP-256", "enc": "A256GCM"], WebAuthnError.Category.algorithm),
            (["alg": "A128KW", "enc": "A256GCM"], .algorithm),
            (["alg": "dir", "enc": "A256GCM"], .algorithm), (["enc": "A256GCM"], .algorithm),
            (["alg": "A256KW", "enc": "A128GCM"], .algorithm), (["alg": "A256KW", "enc": "A256CBC-HS512"], .algorithm),
            (["alg": "A256KW"], .algorithm), (["alg": "A256KW", "enc": 1], .algorithm),
            (["alg": "A256KW", "enc": "A256GCM", "zip": "DEF"], .malformed),
            (["alg": "A256KW", "enc": "A256GCM", "crit": ["exp"], "exp": 1], .malformed),
        ] as [([String: Any], WebAuthnError.Category)] {
            Self.expectRefusal(
                try play.token(verdict, encryptionHeader: header), verifier, category, at: PlayIntegrityStep.encryptionHeader)
        }
        // Header members the verifier does not read (a key id, a content type) are fine.
        _ = try Self.verify(
            try play.token(verdict, encryptionHeader: ["alg": "A256KW", "enc": "A256GCM", "kid": "1", "cty": "JWT"]), verifier)
    }

    @Test("a content key wrapped under another key, or damaged, does not unwrap")
    func keyUnwrap() throws {
        let (play, verifier, verdict) = try Self.fixture()
        Self.expectRefusal(
            try play.token(verdict, wrappingKey: Digest.sha256.hash(Array("another app's key".utf8))), verifier, .signature,
            at: PlayIntegrityStep.keyUnwrap)
        Self.expectRefusal(
            try play.token(verdict) { $0[1] = Base64URL.encode(Array(try Base64URL.decode($0[1]).reversed())) }, verifier, .signature,
            at: PlayIntegrityStep.keyUnwrap)
        Self.expectRefusal(
            try play.token(verdict) { $0[1] = Base64URL.encode(Array(try Base64URL.decode($0[1]).dropLast(8))) }, verifier, .signature,
            at: PlayIntegrityStep.keyUnwrap)
        // The wrong key for the service, the token right: every token of another app is refused.
        let other = try TestPlayIntegrity(seed: "another app")
        Self.expectRefusal(try other.token(verdict), verifier, .signature, at: PlayIntegrityStep.keyUnwrap)
    }

    @Test("altered ciphertext, tag, iv or protected header does not decrypt")
    func decryption() throws {
        let (play, verifier, verdict) = try Self.fixture()
        func flipFirstByte(_ part: String) -> String {
            var bytes = (try? Base64URL.decode(part)) ?? []
            if !bytes.isEmpty { bytes[0] ^= 0x01 }
            return Base64URL.encode(bytes)
        }
        for index in [2, 3, 4] {
            Self.expectRefusal(
                try play.token(verdict) { $0[index] = flipFirstByte($0[index]) }, verifier, .signature, at: PlayIntegrityStep.decryption)
        }
        // The protected header is the additional data: a member added after encryption breaks the tag.
        let rewritten = Base64URL.encode(Array(#"{"alg":"A256KW","enc":"A256GCM","kid":"x"}"#.utf8))
        Self.expectRefusal(try play.token(verdict) { $0[0] = rewritten }, verifier, .signature, at: PlayIntegrityStep.decryption)
        // An iv or tag of another length is not A256GCM's.
        Self.expectRefusal(
            try play.token(verdict) { $0[2] = Base64URL.encode([UInt8](repeating: 7, count: 16)) }, verifier, .malformed,
            at: PlayIntegrityStep.decryption)
        Self.expectRefusal(
            try play.token(verdict) { $0[4] = Base64URL.encode([UInt8](repeating: 7, count: 12)) }, verifier, .malformed,
            at: PlayIntegrityStep.decryption)
    }

    @Test("a JWS whose alg is not ES256, or with a critical extension, is refused before its signature")
    func signatureHeader() throws {
        let (play, verifier, verdict) = try Self.fixture()
        for (header, category) in [
            (["alg": "ES384"], WebAuthnError.Category.algorithm), (["alg": "none"], .algorithm), (["alg": "HS256"], .algorithm),
            (["typ": "JWT"], .algorithm), (["alg": "ES256", "crit": ["b64"], "b64": false], .malformed),
        ] as [([String: Any], WebAuthnError.Category)] {
            Self.expectRefusal(try play.token(verdict, signatureHeader: header), verifier, category, at: PlayIntegrityStep.signatureHeader)
        }
        for content in ["a.b", "a.b.c.d", "e30.e30.", "{}"] {
            Self.expectRefusal(
                try play.token(content: Array(content.utf8)), verifier, .malformed, at: PlayIntegrityStep.signatureHeader)
        }
        // A signature that is not 64 bytes of r || s (a DER one, say) does not verify.
        let der = try play.signingKey.sign(Array("x".utf8), algorithm: .es256)
        let jws = try Self.decrypt(try play.token(verdict), play).split(separator: ".").map(String.init)
        Self.expectRefusal(
            try play.token(content: Array((jws[0] + "." + jws[1] + "." + Base64URL.encode(der)).utf8)), verifier, .signature,
            at: PlayIntegrityStep.signature)
    }

    @Test("a verdict signed by another key, or altered after signing, is a signature refusal")
    func signature() throws {
        let (play, verifier, verdict) = try Self.fixture()
        Self.expectRefusal(
            try play.token(verdict, signer: try PrivateKey.derive(.p256, seed: "not google")), verifier, .signature,
            at: PlayIntegrityStep.signature)
        // The decryption key alone does not let its holder write verdicts: re-encrypting a changed
        // payload under it keeps the old signature, which no longer verifies.
        let signed = try play.token(verdict)
        let jws = try Self.decrypt(signed, play)
        var pieces = jws.split(separator: ".").map(String.init)
        pieces[1] = Base64URL.encode(
            Array(try JSONSerialization.data(withJSONObject: Self.verdict(play, "appIntegrity", "versionCode", "43"), options: .sortedKeys))
        )
        Self.expectRefusal(
            try play.token(content: Array(pieces.joined(separator: ".").utf8)), verifier, .signature, at: PlayIntegrityStep.signature)
    }

    /// The JWS inside a test token.
    static func decrypt(_ token: String, _ play: TestPlayIntegrity) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        let key = try #require(try AESKeyWrap.unwrap(try Base64URL.decode(parts[1]), key: play.decryptionKey))
        let opened = try AES256GCM.open(
            try Base64URL.decode(parts[3]) + (try Base64URL.decode(parts[4])), key: key, nonce: try Base64URL.decode(parts[2]),
            aad: Array(parts[0].utf8))
        return String(decoding: try #require(opened), as: UTF8.self)
    }

    @Test("a payload that is not the verdict's JSON form is malformed at the payload step")
    func payload() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        let payloads: [[UInt8]] = [
            Array("not json".utf8), Array("[]".utf8), Array(#"{"requestDetails":{}}"#.utf8),
            Array(#"{"a":1,"a":2}"#.utf8), [0xFF, 0xFE],
        ]
        for payload in payloads {
            Self.expectRefusal(try play.token(payload: payload), verifier, .malformed, at: PlayIntegrityStep.payload)
        }
        let edits: [(String, String?, Any?)] = [
            ("requestDetails", nil, nil), ("appIntegrity", nil, nil), ("deviceIntegrity", nil, nil),
            ("requestDetails", "requestPackageName", nil), ("requestDetails", "requestPackageName", 7),
            ("requestDetails", "timestampMillis", nil), ("requestDetails", "timestampMillis", "12a"),
            ("requestDetails", "timestampMillis", "-5"), ("requestDetails", "timestampMillis", "1234567890123456"),
            ("requestDetails", "timestampMillis", 1.5), ("requestDetails", "timestampMillis", -1),
            ("requestDetails", "timestampMillis", true),
            ("requestDetails", "requestHash", ["x"]), ("appIntegrity", "appRecognitionVerdict", nil),
            ("appIntegrity", "certificateSha256Digest", "one"), ("appIntegrity", "certificateSha256Digest", ["not+base64url"]),
            ("appIntegrity", "certificateSha256Digest", [Base64URL.encode([1, 2, 3])]), ("appIntegrity", "versionCode", "4.2"),
            ("deviceIntegrity", "deviceRecognitionVerdict", "MEETS_DEVICE_INTEGRITY"),
            ("deviceIntegrity", "deviceRecognitionVerdict", [1]), ("deviceIntegrity", "recentDeviceActivity", "LEVEL_1"),
            ("accountDetails", nil, "LICENSED"), ("accountDetails", "appLicensingVerdict", false),
        ]
        for (section, member, value) in edits {
            Self.expectRefusal(
                try play.token(Self.verdict(play, section, member, value)), verifier, .malformed, at: PlayIntegrityStep.payload)
        }
        // proto3's JSON form may write an int64 as a number; Google writes a string. Both read.
        let numeric = try Self.verify(try play.token(Self.verdict(play, "appIntegrity", "versionCode", 42)), verifier)
        #expect(numeric.versionCode == 42)
        let padded = Self.verdict(play, "appIntegrity", "certificateSha256Digest", [Base64URL.encode(play.signingDigest) + "="])
        #expect(try Self.verify(try play.token(padded), verifier).certificateDigests == [play.signingDigest])
        let bare = Self.verdict(play, "accountDetails", nil, nil)
        #expect(try Self.verify(try play.token(bare), verifier).appLicensing == nil)
    }

    @Test("a verdict requested for another package, or evaluating another app, is refused")
    func package() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        Self.expectRefusal(
            try play.token(Self.verdict(play, "requestDetails", "requestPackageName", "com.example.other")), verifier, .attestation,
            at: PlayIntegrityStep.package)
        Self.expectRefusal(
            try play.token(Self.verdict(play, "appIntegrity", "packageName", "com.example.other")), verifier, .attestation,
            at: PlayIntegrityStep.package)
        // A second declared app is accepted for its own package.
        let second = try TestPlayIntegrity(packageName: "com.example.second", signer: "second")
        let both = PlayIntegrityVerifier(
            decryptionKey: play.decryptionKey, verificationKey: play.signingKey.publicKey, apps: [try play.app, try second.app],
            policy: PlayIntegrityPolicy())
        #expect(
            try Self.verify(try second.token(second.verdict(binding: Self.binding, at: Self.now)), both).packageName == "com.example.second"
        )
    }

    @Test("a verdict older than the window or too far in the future is refused; the edges are accepted")
    func timestamp() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        let token = try play.token(play.verdict(binding: Self.binding, at: Self.now))
        _ = try Self.verify(token, verifier, at: Self.now.addingTimeInterval(120))
        _ = try Self.verify(token, verifier, at: Self.now.addingTimeInterval(-10))
        Self.expectRefusal(token, verifier, .challenge, at: PlayIntegrityStep.timestamp, time: Self.now.addingTimeInterval(121))
        Self.expectRefusal(token, verifier, .challenge, at: PlayIntegrityStep.timestamp, time: Self.now.addingTimeInterval(-11))
        let patient = try Self.verifier(play, policy: PlayIntegrityPolicy(maximumAge: 3600, allowedClockSkew: 0))
        _ = try Self.verify(token, patient, at: Self.now.addingTimeInterval(3600))
        Self.expectRefusal(token, patient, .challenge, at: PlayIntegrityStep.timestamp, time: Self.now.addingTimeInterval(-1))
    }

    @Test("an app Play does not recognize is refused unless the policy accepts its verdict")
    func appRecognition() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        for verdict in ["UNRECOGNIZED_VERSION", "UNEVALUATED", "play_recognized", ""] {
            Self.expectRefusal(
                try play.token(Self.verdict(play, "appIntegrity", "appRecognitionVerdict", verdict)), verifier, .attestation,
                at: PlayIntegrityStep.appRecognition)
        }
        // Accepting UNEVALUATED accepts a verdict without the app's details, whose certificate step is skipped.
        let lenient = try Self.verifier(play, policy: PlayIntegrityPolicy(acceptedAppRecognition: ["PLAY_RECOGNIZED", "UNEVALUATED"]))
        let unevaluated = TestPlayIntegrity.setting(
            play.verdict(binding: Self.binding, at: Self.now), "appIntegrity", nil, to: ["appRecognitionVerdict": "UNEVALUATED"])
        var trace = CeremonyTrace()
        let verified = try lenient.verify(token: try play.token(unevaluated), binding: Self.binding, at: Self.now, trace: &trace)
        #expect(verified.appRecognition == "UNEVALUATED" && verified.versionCode == nil && verified.certificateDigests.isEmpty)
        #expect(trace.rows.first { $0.step == PlayIntegrityStep.certificates }?.outcome == "skipped")
    }

    @Test("an app signed with another certificate is refused, even when the declared one is among several")
    func certificates() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        let debug = Base64URL.encode(Digest.sha256.hash(Array("debug".utf8)))
        Self.expectRefusal(
            try play.token(Self.verdict(play, "appIntegrity", "certificateSha256Digest", [debug])), verifier, .attestation,
            at: PlayIntegrityStep.certificates)
        Self.expectRefusal(
            try play.token(Self.verdict(play, "appIntegrity", "certificateSha256Digest", [])), verifier, .attestation,
            at: PlayIntegrityStep.certificates)
        Self.expectRefusal(
            try play.token(Self.verdict(play, "appIntegrity", "certificateSha256Digest", nil)), verifier, .attestation,
            at: PlayIntegrityStep.certificates)
        // A rotated signing key lists the old and the new certificate.
        let rotated = Self.verdict(play, "appIntegrity", "certificateSha256Digest", [debug, Base64URL.encode(play.signingDigest)])
        #expect(try Self.verify(try play.token(rotated), verifier).certificateDigests.count == 2)
    }

    @Test("a device without every required label is refused")
    func device() throws {
        let play = try TestPlayIntegrity()
        let verifier = try Self.verifier(play)
        for labels in [[], ["MEETS_BASIC_INTEGRITY"], ["MEETS_VIRTUAL_INTEGRITY"], ["meets_device_integrity"]] {
            Self.expectRefusal(
                try play.token(Self.verdict(play, "deviceIntegrity", "deviceRecognitionVerdict", labels)), verifier, .attestation,
                at: PlayIntegrityStep.device)
        }
        Self.expectRefusal(
            try play.token(Self.verdict(play, "deviceIntegrity", "deviceRecognitionVerdict", nil)), verifier, .attestation,
            at: PlayIntegrityStep.device)
        let strong = try Self.verifier(
            play, policy: PlayIntegrityPolicy(requiredDeviceVerdicts: ["MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"]))
        Self.expectRefusal(
            try play.token(play.verdict(binding: Self.binding, at: Self.now)), strong, .attestation, at: PlayIntegrityStep.device)
        let strongDevice = Self.verdict(
            play, "deviceIntegrity", "deviceRecognitionVerdict",
            ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"])
        _ = try Self.verify(try play.token(strongDevice), strong)
        let anyDevice = try Self.verifier(play, policy: PlayIntegrityPolicy(requiredDeviceVerdicts: []))
        _ = try Self.verify(try play.token(Self.verdict(play, "deviceIntegrity", "deviceRecognitionVerdict", [])), anyDevice)
    }

    @Test("licensing is checked only when the policy requires it, and then only LICENSED passes")
    func licensing() throws {
        let play = try TestPlayIntegrity()
        let unlicensed = try play.token(Self.verdict(play, "accountDetails", "appLicensingVerdict", "UNLICENSED"))
        #expect(try Self.verify(unlicensed, try Self.verifier(play)).appLicensing == "UNLICENSED")
        let strict = try Self.verifier(play, policy: PlayIntegrityPolicy(requireLicensed: true))
        _ = try Self.verify(try play.token(play.verdict(binding: Self.binding, at: Self.now)), strict)
        Self.expectRefusal(unlicensed, strict, .attestation, at: PlayIntegrityStep.licensing)
        for verdict in ["UNEVALUATED", nil] as [String?] {
            Self.expectRefusal(
                try play.token(Self.verdict(play, "accountDetails", "appLicensingVerdict", verdict)), strict, .attestation,
                at: PlayIntegrityStep.licensing)
        }
    }
}
