import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Builds `android-safetynet` statements: a SafetyNet-style JWS signed by a leaf
/// certificate (issued by a test CA) for attest.android.com.
private struct SafetyNetFixture {
    enum Signer { case rs256, es256 }

    var signer = Signer.rs256
    var commonName: String? = "attest.android.com"
    var dnsNames: [String]? = ["attest.android.com"]
    var includeX5c = true
    /// Replaces the x5c JSON array text (nil: the chain, standard base64).
    var x5cJSON: String?
    /// Replaces the alg header member's JSON value.
    var algJSON: String?
    var extraHeader = ""
    /// nil: the correct nonce.
    var nonce: String?
    var ctsProfileMatch = "true"
    /// Seconds relative to the verification time.
    var timestampOffset: TimeInterval = -5
    /// Rewrites the timestampMs JSON value (given the right milliseconds); nil: the integer itself.
    var timestampJSON: ((Int64) -> String)?
    var ver: CBORItem? = .text("17122037")
    var corruptSignature = false
    /// Rewrites the finished compact JWS text.
    var rewriteJWS: ((String) -> String)?
    var policy = AttestationPolicy()
    /// Fixed per fixture so that authenticator data (and the right nonce) stay the same across contexts.
    let credential: TestCredential

    init() throws { credential = try TestCredential() }

    static func standardBase64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    func context() throws -> AttestationContext {
        let authData = TestAuthData(credentialKey: credential.coseKey).bytes
        let clientDataHash = AttestationTestSupport.clientDataHash

        let ca = try AttestationTestSupport.makeCA(name: "Test GTS CA")
        let leafKey = try PrivateKey.generate(signer == .rs256 ? .rsa(bits: 2048) : .p256)
        var attributes: [DistinguishedName.Attribute] = [.organization("Google LLC"), .country("US")]
        if let commonName { attributes.append(.commonName(commonName)) }
        var builder = CertificateBuilder(
            subject: try DistinguishedName(attributes), publicKey: leafKey.publicKey,
            notBefore: AttestationTestSupport.now.addingTimeInterval(-86_400),
            notAfter: AttestationTestSupport.now.addingTimeInterval(86_400 * 90))
        builder.issued(by: ca.cert)
        builder.subjectAlternativeNames = dnsNames.map { $0.map { GeneralName.dnsName($0) } }
        let leaf = try builder.sign(with: ca.key)

        let chain = x5cJSON ?? "[\"\(Self.standardBase64(leaf.derBytes))\",\"\(Self.standardBase64(ca.cert.derBytes))\"]"
        let alg = algJSON ?? (signer == .rs256 ? "\"RS256\"" : "\"ES256\"")
        let header = "{\"alg\":\(alg)" + (includeX5c ? ",\"x5c\":\(chain)" : "") + extraHeader + "}"
        let expectedNonce = Self.standardBase64(Digest.sha256.hash(authData + clientDataHash))
        let timestamp = Int64(((AttestationTestSupport.now.timeIntervalSince1970 + timestampOffset) * 1000).rounded())
        let payload =
            "{\"nonce\":\"\(nonce ?? expectedNonce)\",\"timestampMs\":\(timestampJSON?(timestamp) ?? String(timestamp)),"
            + "\"apkPackageName\":\"com.google.android.gms\",\"ctsProfileMatch\":\(ctsProfileMatch),\"basicIntegrity\":true}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        var signature: [UInt8]
        switch signer {
        case .rs256:
            signature = try leafKey.sign(Array(signingInput.utf8), algorithm: .rs256)
        case .es256:
            signature = try Self.rawECDSA(try leafKey.sign(Array(signingInput.utf8), algorithm: .es256), coordinateLength: 32)
        }
        if corruptSignature, let first = signature.indices.first { signature[first] ^= 0x01 }
        var jws = signingInput + "." + Base64URL.encode(signature)
        if let rewriteJWS { jws = rewriteJWS(jws) }

        var entries: [(CBORItem, CBORItem)] = [(.text("response"), .bytes(Array(jws.utf8)))]
        if let ver { entries.append((.text("ver"), ver)) }
        return try AttestationTestSupport.context(
            format: "android-safetynet",
            statement: .map(entries), authData: authData,
            clientDataHash: clientDataHash, policy: policy)
    }

    /// DER ECDSA-Sig-Value to the JWS form r || s, each left-padded to the coordinate length.
    static func rawECDSA(_ der: [UInt8], coordinateLength: Int) throws -> [UInt8] {
        let parts = try DER.parseSequence(der)
        var out: [UInt8] = []
        for part in parts {
            let magnitude = Array(try part.unsignedIntegerBytes())
            out += Array(repeating: 0, count: coordinateLength - magnitude.count) + magnitude
        }
        return out
    }
}

@Suite("android-safetynet attestation (§8.5)")
struct AndroidSafetyNetAttestationTests {
    private static func rejection(_ context: AttestationContext) -> WebAuthnError? {
        do throws(WebAuthnError) {
            _ = try AndroidSafetyNetAttestation().verify(context)
            return nil
        } catch {
            return error
        }
    }

    /// Expects an `attestation` rejection whose message mentions `fragment`.
    private func expectRejected(
        _ fixture: SafetyNetFixture, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard let error = Self.rejection(try fixture.context()) else {
            Issue.record("accepted; expected a rejection mentioning \"\(fragment)\"", sourceLocation: sourceLocation)
            return
        }
        #expect(error.category == .attestation, sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "message: \(error.message)", sourceLocation: sourceLocation)
    }

    @Test("a valid RS256 response verifies as basic with the header's x5c as trust path")
    func validRS256() throws {
        let outcome = try AndroidSafetyNetAttestation().verify(try SafetyNetFixture().context())
        #expect(outcome.type == .basic)
        #expect(outcome.trustPath.count == 2)
        #expect(outcome.trustPath.first?.subject.commonName == "attest.android.com")
        #expect(outcome.trustPath.last?.subject.commonName == "Test GTS CA")
    }

    @Test("a valid ES256 response (raw r || s signature) verifies")
    func validES256() throws {
        var fixture = try SafetyNetFixture()
        fixture.signer = .es256
        #expect(try AndroidSafetyNetAttestation().verify(try fixture.context()).type == .basic)
    }

    @Test("the format is registered in the standard table")
    func registered() {
        #expect(AttestationFormatTable.standard.format("android-safetynet") is AndroidSafetyNetAttestation)
    }

    @Test("the subject CN names the host when the certificate has no dNSName")
    func commonNameFallback() throws {
        var fixture = try SafetyNetFixture()
        fixture.dnsNames = nil
        #expect(try AndroidSafetyNetAttestation().verify(try fixture.context()).type == .basic)
    }

    @Test("a timestamp inside the window on either side is accepted", arguments: [-59.0, 59.0])
    func timestampInsideWindow(offset: TimeInterval) throws {
        var fixture = try SafetyNetFixture()
        fixture.timestampOffset = offset
        #expect(try AndroidSafetyNetAttestation().verify(try fixture.context()).type == .basic)
    }

    @Test(
        "a response that is not a three-part compact JWS is rejected",
        arguments: [
            "a.b",  // two parts
            "a.b.c.d",  // four parts
            "..",  // empty parts
        ])
    func badShape(jws: String) throws {
        var fixture = try SafetyNetFixture()
        fixture.rewriteJWS = { _ in jws }
        try expectRejected(fixture, "not a compact JWS")
    }

    @Test("a JWS part that is not base64url is rejected")
    func partNotBase64URL() throws {
        var fixture = try SafetyNetFixture()
        fixture.rewriteJWS = { "+" + $0.dropFirst() }
        try expectRejected(fixture, "not base64url")
    }

    @Test("a JWS header that is not a JSON object is rejected", arguments: ["[1]", "{\"alg\":", "{\"alg\":\"RS256\",\"alg\":\"RS256\"}"])
    func headerNotObject(header: String) throws {
        var fixture = try SafetyNetFixture()
        fixture.rewriteJWS = { jws in
            Base64URL.encode(Array(header.utf8)) + "."
                + jws.split(separator: ".", omittingEmptySubsequences: false).dropFirst().joined(separator: ".")
        }
        try expectRejected(fixture, "JWS header")
    }

    @Test("a JWS signature that does not verify is rejected")
    func badSignature() throws {
        var fixture = try SafetyNetFixture()
        fixture.corruptSignature = true
        try expectRejected(fixture, "signature does not verify")
    }

    @Test("an ES256 signature of the wrong length is rejected")
    func es256WrongLength() throws {
        var fixture = try SafetyNetFixture()
        fixture.signer = .es256
        fixture.rewriteJWS = { $0 + "AAAA" }
        try expectRejected(fixture, "expected 64")
    }

    @Test("a changed payload no longer matches the signature")
    func tamperedPayload() throws {
        var fixture = try SafetyNetFixture()
        fixture.rewriteJWS = { jws in
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let payload = "{\"nonce\":\"x\",\"ctsProfileMatch\":true}"
            return parts[0] + "." + Base64URL.encode(Array(payload.utf8)) + "." + parts[2]
        }
        try expectRejected(fixture, "signature does not verify")
    }

    @Test("an unsupported or unsafe alg is rejected", arguments: ["\"none\"", "\"HS256\"", "\"rs256\"", "256"])
    func unsupportedAlg(alg: String) throws {
        var fixture = try SafetyNetFixture()
        fixture.algJSON = alg
        try expectRejected(fixture, "alg")
    }

    @Test("a header with crit is rejected")
    func critical() throws {
        var fixture = try SafetyNetFixture()
        fixture.extraHeader = ",\"crit\":[\"exp\"],\"exp\":1"
        try expectRejected(fixture, "crit")
    }

    @Test("a nonce other than base64(SHA-256(authenticatorData || clientDataHash)) is rejected")
    func wrongNonce() throws {
        var fixture = try SafetyNetFixture()
        fixture.nonce = SafetyNetFixture.standardBase64(Digest.sha256.hash(Array("other".utf8)))
        try expectRejected(fixture, "nonce")
    }

    @Test("the nonce must use standard base64 with padding, not base64url")
    func nonceInBase64URL() throws {
        // The right hash, encoded URL-safe without padding (a SHA-256 hash always needs one '=').
        var fixture = try SafetyNetFixture()
        fixture.nonce = "unused"
        let context = try fixture.context()
        let urlSafe = Base64URL.encode(Digest.sha256.hash(context.signedData))
        fixture.nonce = urlSafe
        try expectRejected(fixture, "nonce")
    }

    @Test("ctsProfileMatch other than true is rejected", arguments: ["false", "\"true\"", "1", "null"])
    func ctsProfileMismatch(value: String) throws {
        var fixture = try SafetyNetFixture()
        fixture.ctsProfileMatch = value
        try expectRejected(fixture, "ctsProfileMatch")
    }

    @Test(
        "a certificate not issued to attest.android.com is rejected",
        arguments: [
            ("attest.android.com", ["other.example"]),  // dNSName present: CN is not consulted
            ("evil.example", nil),
            ("attest.android.com.evil.example", nil),
            ("*.android.com", ["*.android.com"]),
        ] as [(String, [String]?)])
    func wrongHostname(commonName: String, dnsNames: [String]?) throws {
        var fixture = try SafetyNetFixture()
        fixture.commonName = commonName
        fixture.dnsNames = dnsNames
        try expectRejected(fixture, "not issued to attest.android.com")
    }

    @Test("a stale or future timestamp is rejected", arguments: [-61.0, -86_400.0, 61.0, 3600.0])
    func timestampOutsideWindow(offset: TimeInterval) throws {
        var fixture = try SafetyNetFixture()
        fixture.timestampOffset = offset
        try expectRejected(fixture, offset < 0 ? "old" : "future")
    }

    @Test(
        "a timestampMs that is not a non-negative integer is rejected, even inside the window",
        arguments: ["fraction", "string", "negative"])
    func timestampNotAnInteger(form: String) throws {
        var fixture = try SafetyNetFixture()
        switch form {
        case "fraction": fixture.timestampJSON = { "\($0).5" }
        case "string": fixture.timestampJSON = { "\"\($0)\"" }
        default: fixture.timestampJSON = { _ in "-1" }
        }
        try expectRejected(fixture, "timestampMs")
    }

    @Test("a stricter policy window applies")
    func policyWindow() throws {
        var fixture = try SafetyNetFixture()
        fixture.timestampOffset = -20
        fixture.policy = AttestationPolicy(formats: AttestationFormatOptions(safetyNetMaximumAge: 10))
        try expectRejected(fixture, "old")
    }

    @Test("a missing x5c in the header is rejected")
    func missingX5c() throws {
        var fixture = try SafetyNetFixture()
        fixture.includeX5c = false
        try expectRejected(fixture, "x5c")
    }

    @Test("the header's x5c may hold at most 16 certificates (a bound of this library, not the spec's)")
    func longX5c() throws {
        var fixture = try SafetyNetFixture()
        let certificate = "\"\(SafetyNetFixture.standardBase64(try AttestationTestSupport.makeCA(name: "Filler").cert.derBytes))\""
        fixture.x5cJSON = "[" + Array(repeating: certificate, count: 17).joined(separator: ",") + "]"
        try expectRejected(fixture, "JWS header x5c holds 17 certificates, more than 16")
        // At 16 the count passes and the next check decides: the filler did not sign the JWS.
        fixture.x5cJSON = "[" + Array(repeating: certificate, count: 16).joined(separator: ",") + "]"
        let sixteen = try #require(Self.rejection(try fixture.context()))
        #expect(sixteen.category == .attestation && !sixteen.message.contains("more than"), "\(sixteen)")
        try expectRejected(fixture, "JWS")
    }

    @Test("a malformed x5c is rejected", arguments: ["[]", "\"abc\"", "[1]", "[\"AAAA\"]", "[\"not base64!\"]", "[\"AA-_\"]", "[\"AA\"]"])
    func malformedX5c(x5c: String) throws {
        var fixture = try SafetyNetFixture()
        fixture.x5cJSON = x5c
        try expectRejected(fixture, "x5c")
    }

    @Test("a missing, empty or non-text ver is rejected", arguments: [nil, CBORItem.text(""), CBORItem.int(17122037)] as [CBORItem?])
    func badVer(ver: CBORItem?) throws {
        var fixture = try SafetyNetFixture()
        fixture.ver = ver
        try expectRejected(fixture, "ver")
    }

    @Test("a response that is not a byte string is rejected")
    func responseNotBytes() throws {
        let context = try SafetyNetFixture().context()
        let statement = CBORItem.map([(.text("ver"), .text("1")), (.text("response"), .text("a.b.c"))])
        var replaced = context
        replaced.statement = statement
        #expect(Self.rejection(replaced)?.category == .attestation)
    }

    @Test("standard base64 round-trips and is strict")
    func standardBase64() throws {
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 250) }
            let text = StandardBase64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            #expect(try StandardBase64.decode(text) == bytes)
        }
        #expect(throws: StandardBase64.DecodingError.self) { try StandardBase64.decode("+/-_") }
        #expect(throws: StandardBase64.DecodingError.self) { try StandardBase64.decode("AAA") }
        #expect(throws: StandardBase64.DecodingError.self) { try StandardBase64.decode("AB==") }
    }
}
