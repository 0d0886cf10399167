import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

extension Corpus {
    /// Credential keys a registration must refuse although they decode: EdDSA on Ed448
    /// (L3 §5.8.5), forgeable Edwards points (a deliberate extra check), and CBOR that is not
    /// CTAP2 canonical (L3 §2.5), in the key or in the extensions map of authenticator data.
    func credentialKeyRejections() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/credential-key.json",
            "Registration and login: credential keys and extension maps that decode but are refused: "
                + "EdDSA (-8) on Ed448, Ed25519/Ed448 points of small order or non-canonically encoded, "
                + "and CBOR that is not CTAP2 canonical")
        let ed448Offered: [COSEAlgorithm] = FixtureFile.offered + [.ed448]

        var mislabelled = try file.authenticator("ed448 as -8", key: .ed448)
        mislabelled.coseKey = Self.okpKey(alg: .edDSA, crv: .ed448, x: mislabelled.privateKey.publicKey.rawOKPKey ?? [])
        try file.register("eddsa-with-ed448", mislabelled, algorithms: ed448Offered, .reject(.malformed))
        try file.register("ed448-as-minus-53", try file.authenticator("ed448", key: .ed448), algorithms: ed448Offered, .accept)

        let forgeable: [(name: String, key: TestAuthenticator.KeySpec, crv: COSECurve, x: [UInt8])] = [
            ("ed25519-identity", .edDSA, .ed25519, [0x01] + Array(repeating: 0, count: 31)),
            ("ed25519-order-4", .edDSA, .ed25519, Array(repeating: 0, count: 32)),
            (
                "ed25519-order-8", .ed25519, .ed25519,
                [
                    0xC7, 0x17, 0x6A, 0x70, 0x3D, 0x4D, 0xD8, 0x4F, 0xBA, 0x3C, 0x0B, 0x76, 0x0D, 0x10, 0x67, 0x0F,
                    0x2A, 0x20, 0x53, 0xFA, 0x2C, 0x39, 0xCC, 0xC6, 0x4E, 0xC7, 0xFD, 0x77, 0x92, 0xAC, 0x03, 0x7A,
                ]
            ),
            ("ed25519-y-is-p", .edDSA, .ed25519, [0xED] + Array(repeating: 0xFF, count: 30) + [0x7F]),
            ("ed448-identity", .ed448, .ed448, [0x01] + Array(repeating: 0, count: 56)),
        ]
        for case let (name, key, crv, x) in forgeable {
            var authenticator = try file.authenticator(name, key: key)
            authenticator.coseKey = Self.okpKey(alg: key.algorithm, crv: crv, x: x)
            try file.register(name, authenticator, algorithms: ed448Offered + [.ed25519], .reject(.malformed))
        }

        // The ES256 key a5 01 02 03 26 20 01 21 58 20 … 22 58 20 …, rewritten three ways.
        var longHead = try file.authenticator("long head")
        longHead.coseKey.replaceSubrange(2..<3, with: [0x18, 0x02])
        try file.register("key-integer-in-long-head", longHead, .reject(.malformed))
        var indefinite = try file.authenticator("indefinite map")
        indefinite.coseKey[0] = 0xBF
        indefinite.coseKey.append(0xFF)
        try file.register("key-indefinite-length-map", indefinite, .reject(.malformed))
        var unordered = try file.authenticator("unordered")
        if let entries = try CBOR.decode(unordered.coseKey).mapEntries {
            unordered.coseKey = [0xA0 | UInt8(entries.count)]
            for entry in entries.reversed() { unordered.coseKey += CBOREncoder.encode(entry.key) + CBOREncoder.encode(entry.value) }
        }
        try file.register("key-labels-out-of-order", unordered, .reject(.malformed))

        // {"credProtect": 2}, with the 2 in a one-byte head (canonical) and in a two-byte head.
        let canonicalExtensions: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x02]
        let longExtensions: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x18, 0x02]
        func extensions(_ map: [UInt8]) -> (inout [UInt8]) -> Void {
            { data in
                data[32] |= AuthenticatorFlags.extensionData.rawValue; data += map
            }
        }
        var registration = TestAuthenticator.RegistrationOptions()
        registration.authData = extensions(longExtensions)
        var withExtensions = try file.authenticator("extensions")
        try file.register("extensions-not-canonical", withExtensions, options: registration, .reject(.malformed))
        registration.authData = extensions(canonicalExtensions)
        try file.register("extensions-canonical", withExtensions, options: registration, .accept)
        var login = TestAuthenticator.AuthenticationOptions()
        login.authData = extensions(longExtensions)
        try file.authenticate("login-extensions-not-canonical", &withExtensions, options: login, .reject(.malformed))
        login.authData = extensions(canonicalExtensions)
        try file.authenticate("login-extensions-canonical", &withExtensions, options: login, .accept)
        return file
    }

    static func okpKey(alg: COSEAlgorithm, crv: COSECurve, x: [UInt8]) -> [UInt8] {
        CBOREncoder.encode(
            CBORItem.map([
                (.int(1), .int(1)), (.int(3), .int(Int64(alg.rawValue))),
                (.int(-1), .int(Int64(crv.rawValue))), (.int(-2), .bytes(x[...])),
            ]))
    }
}
