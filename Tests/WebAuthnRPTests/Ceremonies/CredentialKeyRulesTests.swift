import Foundation
import Testing
import WebAuthnCoding
import WebAuthnCrypto
@testable import WebAuthnRP
import WebAuthnTestSupport

/// §7.1 step 20 and the credential key rules around it: which algorithms an options document
/// lets the client use (L3 §5.1.3), EdDSA's curve (L3 §5.8.5), canonical CBOR (L3 §2.5), and the
/// deliberate refusal of forgeable Edwards keys (SpecMap, "Deliberate extra checks", in the DocC catalog).
@Suite("§7.1 step 20: offered algorithms and credential key rules")
struct CredentialKeyRulesTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.RegistrationOptions

    /// The challenge that `pubKeyCredParams` issues, through the same path the service uses.
    static func issued(_ params: [PublicKeyCredentialParameters]) -> IssuedChallenge {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: "example.org", name: "Example"),
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "a", displayName: "A"),
            challenge: Base64URLBytes(Array(repeating: 0xA1, count: 32)), pubKeyCredParams: params)
        return IssuedChallenge(creationOptions: options, relyingParty: F.relyingParty, expiresAt: F.now.addingTimeInterval(300))
    }

    func register(_ key: TestAuthenticator.KeySpec, issued: IssuedChallenge,
                  _ options: Options = Options()) throws -> CeremonyOutcome<VerifiedRegistration> {
        let authenticator = try TestAuthenticator(key: key)
        return F.register(try authenticator.register(challenge: issued.challenge, options), issued: issued)
    }

    /// An authenticator whose registration carries `coseKey` as its credential public key.
    func register(coseKey: [UInt8], issued: IssuedChallenge = F.registrationChallenge()) throws -> CeremonyOutcome<VerifiedRegistration> {
        var authenticator = try TestAuthenticator(key: .edDSA)
        authenticator.coseKey = coseKey
        return F.register(try authenticator.register(challenge: issued.challenge), issued: issued)
    }

    static func okpKey(alg: COSEAlgorithm, crv: COSECurve, x: [UInt8]) -> [UInt8] {
        CBOREncoder.encode(CBORItem.map([(.int(1), .int(1)), (.int(3), .int(Int64(alg.rawValue))),
                                         (.int(-1), .int(Int64(crv.rawValue))), (.int(-2), .bytes(x[...]))]))
    }

    // MARK: §5.1.3: the algorithms the client may use

    @Test("an empty pubKeyCredParams lets the client use ES256 and RS256 only")
    func emptyParameters() throws {
        let issued = Self.issued([])
        #expect(issued.offeredAlgorithms == [.es256, .rs256])
        _ = try #require(try register(.es256, issued: issued).accepted())
        _ = try #require(try register(.rs256, issued: issued).accepted())
        for key in [TestAuthenticator.KeySpec.edDSA, .es384, .ps256, .ed25519] {
            try register(key, issued: issued).expectRejected(.algorithm, step: "§7.1 step 20")
        }
    }

    @Test("when every pubKeyCredParams entry has an unknown type, no response is accepted")
    func everyEntryDropped() throws {
        let issued = Self.issued([PublicKeyCredentialParameters(type: PublicKeyCredentialType(rawValue: "password"), alg: -7),
                                  PublicKeyCredentialParameters(type: PublicKeyCredentialType(rawValue: "future-type"), alg: -257)])
        #expect(issued.offeredAlgorithms.isEmpty)
        for key in [TestAuthenticator.KeySpec.es256, .rs256] {
            try register(key, issued: issued).expectRejected(.algorithm, step: "§7.1 step 20")
        }
    }

    @Test("entries of an unknown type are skipped; the public-key entries stand")
    func unknownTypeSkipped() throws {
        let issued = Self.issued([PublicKeyCredentialParameters(type: PublicKeyCredentialType(rawValue: "password"), alg: -7), PublicKeyCredentialParameters(.edDSA)])
        #expect(issued.offeredAlgorithms == [.edDSA])
        _ = try #require(try register(.edDSA, issued: issued).accepted())
        try register(.es256, issued: issued).expectRejected(.algorithm, step: "§7.1 step 20")
    }

    // MARK: §5.8.5: EdDSA is Ed25519

    @Test("EdDSA (-8) on Ed448 is malformed; Ed448 under its own identifier (-53) registers and logs in")
    func edDSAOnEd448() throws {
        let ed448 = try PrivateKey.derive(.ed448, seed: "ed448 rule")
        let mislabelled = Self.okpKey(alg: .edDSA, crv: .ed448, x: try #require(ed448.publicKey.rawOKPKey))
        try register(coseKey: mislabelled, issued: F.registrationChallenge(offered: [.edDSA, .ed448]))
            .expectRejected(.malformed, step: "§7.1 step 20")
        var authenticator = try TestAuthenticator(key: .ed448)
        let issued = F.registrationChallenge(offered: [.ed448])
        let verified = try #require(F.register(try authenticator.register(challenge: issued.challenge), issued: issued).accepted())
        #expect(verified.record.algorithm == COSEAlgorithm.ed448.rawValue)
        let login = try authenticator.authenticate(challenge: F.authenticationChallenge().challenge)
        _ = try #require(F.authenticate(login, record: verified.record).accepted())
    }

    // MARK: §2.5: canonical CBOR (checked as authenticator data decodes the key, step 13)

    @Test("a credential key with an integer in a longer head than needed is malformed")
    func longHead() throws {
        let authenticator = try TestAuthenticator(key: .es256)
        var key = authenticator.coseKey
        // a5 01 02 ...: kty 2 written as 18 02.
        #expect(Array(key.prefix(3)) == [0xA5, 0x01, 0x02])
        key.replaceSubrange(2 ..< 3, with: [0x18, 0x02])
        _ = try COSEKey(cbor: key[...])  // a well-formed key all the same
        try register(coseKey: key).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("a credential key as an indefinite-length map is malformed")
    func indefiniteMap() throws {
        let authenticator = try TestAuthenticator(key: .es256)
        var key = authenticator.coseKey
        key[0] = 0xBF
        key.append(0xFF)
        _ = try COSEKey(cbor: key[...])
        try register(coseKey: key).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("a credential key with its labels out of canonical order is malformed")
    func keyOrder() throws {
        let authenticator = try TestAuthenticator(key: .es256)
        let item = try CBOR.decode(authenticator.coseKey)
        let entries = try #require(item.mapEntries)
        var reordered: [UInt8] = [0xA0 | UInt8(entries.count)]
        for entry in entries.reversed() { reordered += CBOREncoder.encode(entry.key) + CBOREncoder.encode(entry.value) }
        try register(coseKey: reordered).expectRejected(.malformed, step: "§7.1 step 13")
    }

    @Test("the stored record holds the canonical key bytes, exactly as received")
    func storedCanonical() throws {
        let authenticator = try TestAuthenticator(key: .es256)
        let verified = try #require(try register(coseKey: authenticator.coseKey).accepted())
        #expect(verified.record.publicKey == authenticator.coseKey)
        #expect(CBOREncoder.encode(try CBOR.decode(verified.record.publicKey)) == verified.record.publicKey)
    }

    @Test("a stored key read back at login is not held to canonical form (records written before the rule)")
    func storedNonCanonicalStillLogsIn() throws {
        var authenticator = try TestAuthenticator(key: .es256)
        let verified = try #require(try register(coseKey: authenticator.coseKey).accepted())
        var record = verified.record
        var key = record.publicKey
        key.replaceSubrange(2 ..< 3, with: [0x18, 0x02])
        record.publicKey = key
        let login = try authenticator.authenticate(challenge: F.authenticationChallenge().challenge)
        _ = try #require(F.authenticate(login, record: record).accepted())
    }

    @Test("an extensions map in authenticator data that is not canonical CBOR is malformed, at registration and login")
    func extensionsNotCanonical() throws {
        // {"credProtect": 2} with the integer in a two-byte head.
        let nonCanonical: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x18, 0x02]
        let canonical: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x02]
        func withExtensions(_ map: [UInt8]) -> (inout [UInt8]) -> Void {
            { data in data[32] |= AuthenticatorFlags.extensionData.rawValue; data += map }
        }
        var authenticator = try TestAuthenticator(key: .es256)
        var options = Options()
        options.authData = withExtensions(nonCanonical)
        let issued = F.registrationChallenge()
        F.register(try authenticator.register(challenge: issued.challenge, options), issued: issued)
            .expectRejected(.malformed, step: "§7.1 step 13")
        options.authData = withExtensions(canonical)
        let verified = try #require(F.register(try authenticator.register(challenge: issued.challenge, options), issued: issued).accepted())

        var login = TestAuthenticator.AuthenticationOptions()
        login.authData = withExtensions(nonCanonical)
        F.authenticate(try authenticator.authenticate(challenge: F.authenticationChallenge().challenge, login), record: verified.record)
            .expectRejected(.malformed, step: "§7.2 step 7")
        login.authData = withExtensions(canonical)
        _ = try #require(F.authenticate(try authenticator.authenticate(challenge: F.authenticationChallenge().challenge, login),
                                        record: verified.record).accepted())
    }

    // MARK: Forgeable Edwards keys (a deliberate extra check)

    static let ed25519SmallOrder: [(String, [UInt8])] = [
        ("identity", [0x01] + Array(repeating: 0, count: 31)),
        ("order 2", [0xEC] + Array(repeating: 0xFF, count: 30) + [0x7F]),
        ("order 4", Array(repeating: 0, count: 32)),
        ("order 4, x negative", Array(repeating: 0, count: 31) + [0x80]),
        ("order 8", [0x26, 0xE8, 0x95, 0x8F, 0xC2, 0xB2, 0x27, 0xB0, 0x45, 0xC3, 0xF4, 0x89, 0xF2, 0xEF, 0x98, 0xF0,
                     0xD5, 0xDF, 0xAC, 0x05, 0xD3, 0xC6, 0x33, 0x39, 0xB1, 0x38, 0x02, 0x88, 0x6D, 0x53, 0xFC, 0x05]),
        ("order 8, other y, x negative",
         [0xC7, 0x17, 0x6A, 0x70, 0x3D, 0x4D, 0xD8, 0x4F, 0xBA, 0x3C, 0x0B, 0x76, 0x0D, 0x10, 0x67, 0x0F,
          0x2A, 0x20, 0x53, 0xFA, 0x2C, 0x39, 0xCC, 0xC6, 0x4E, 0xC7, 0xFD, 0x77, 0x92, 0xAC, 0x03, 0xFA]),
        ("y = p (non-canonical 0)", [0xED] + Array(repeating: 0xFF, count: 30) + [0x7F]),
        ("y = p + 1 (non-canonical identity)", [0xEE] + Array(repeating: 0xFF, count: 30) + [0x7F]),
        ("identity with the sign bit set", [0x01] + Array(repeating: 0, count: 30) + [0x80]),
    ]

    @Test("Ed25519 keys of small order or non-canonically encoded are refused, under -8 and -19",
          arguments: ed25519SmallOrder.map(\.0))
    func ed25519SmallOrderRefused(_ label: String) throws {
        let x = try #require(Self.ed25519SmallOrder.first { $0.0 == label }?.1)
        for alg in [COSEAlgorithm.edDSA, .ed25519] {
            let key = Self.okpKey(alg: alg, crv: .ed25519, x: x)
            #expect(throws: CryptoError.self, "\(label)") { try COSEKey(cbor: key[...]) }
            try register(coseKey: key, issued: F.registrationChallenge(offered: [alg])).expectRejected(.malformed, step: "§7.1 step 20")
        }
    }

    @Test("the identity key cannot log in with the universal signature (R = identity, S = 0)")
    func identityKeyForgery() throws {
        // Stored before this rule existed, the record would verify R = identity, S = 0 for any
        // message; libcrypto accepts the key, so the check is ours.
        let identity = Self.okpKey(alg: .edDSA, crv: .ed25519, x: [0x01] + Array(repeating: 0, count: 31))
        var authenticator = try TestAuthenticator(key: .edDSA)
        let good = try #require(try register(coseKey: authenticator.coseKey).accepted())
        var record = good.record
        record.publicKey = identity
        var login = TestAuthenticator.AuthenticationOptions()
        login.signature = { $0 = [0x01] + Array(repeating: 0, count: 63) }
        F.authenticate(try authenticator.authenticate(challenge: F.authenticationChallenge().challenge, login), record: record)
            .expectRejected(.malformed, step: "§7.2 step 22")
    }

    @Test("Ed448 keys of small order or non-canonically encoded are refused")
    func ed448SmallOrderRefused() throws {
        let p: [UInt8] = Array(repeating: 0xFF, count: 28) + [0xFE] + Array(repeating: 0xFF, count: 27)
        let cases: [(String, [UInt8])] = [
            ("identity", [0x01] + Array(repeating: 0, count: 55) + [0x00]),
            ("order 2", [0xFE] + Array(p.dropFirst()) + [0x00]),
            ("order 4", Array(repeating: 0, count: 56) + [0x00]),
            ("order 4, x odd", Array(repeating: 0, count: 56) + [0x80]),
            ("y = p", p + [0x00]),
            ("stray bits in the last byte", Array(try #require(try PrivateKey.derive(.ed448, seed: "stray").publicKey.rawOKPKey).dropLast()) + [0x01]),
        ]
        for (label, x) in cases {
            let key = Self.okpKey(alg: .ed448, crv: .ed448, x: x)
            #expect(throws: CryptoError.self, "\(label)") { try COSEKey(cbor: key[...]) }
            try register(coseKey: key, issued: F.registrationChallenge(offered: [.ed448])).expectRejected(.malformed, step: "§7.1 step 20")
        }
    }

    @Test("ordinary Ed25519 and Ed448 keys, including ones whose y has the top bits set, are accepted")
    func ordinaryEdwardsKeys() throws {
        for seed in 0 ..< 16 {
            let ed25519 = try PrivateKey.derive(.ed25519, seed: "edwards \(seed)")
            _ = try COSEKey(cbor: try ed25519.coseKey(algorithm: .edDSA)[...])
            let ed448 = try PrivateKey.derive(.ed448, seed: "edwards \(seed)")
            _ = try COSEKey(cbor: try ed448.coseKey(algorithm: .ed448)[...])
        }
        // The base point of edwards25519 (y = 4/5): canonical, prime order.
        let base: [UInt8] = [0x58] + Array(repeating: 0x66, count: 31)
        _ = try COSEKey(cbor: Self.okpKey(alg: .edDSA, crv: .ed25519, x: base)[...])
    }
}
