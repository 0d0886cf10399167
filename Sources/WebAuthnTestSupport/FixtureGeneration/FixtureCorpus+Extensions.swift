import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Extension fixtures (WebAuthn L3 §9, §10; CTAP 2.2 §12): each extension accepted with its
/// verified outputs in `expect.extensions`, and each way an output can break its definition or
/// what was asked (`extension`), or the CBOR around it (`malformed`).
extension Corpus {
    typealias Outputs = TestAuthenticator.ExtensionOutputs

    func extensionFiles() throws -> [FixtureFile] {
        [try registrationExtensions(), try authenticationExtensions(), try appidExtension(), try absentExtensions()]
    }

    // MARK: Must be absent

    /// `null` in `expect.extensions`: an output that must not be reported (an unsolicited PRF
    /// result, an extension never used), and `"extensions": null`, no output at all.
    func absentExtensions() throws -> FixtureFile {
        var file = FixtureFile(
            "extensions/absent.json",
            "Extension outputs that must be absent (null in expect.extensions): PRF results nobody asked "
                + "for are not reported while prf.enabled is, outputs of extensions never used are not "
                + "reported, and a ceremony without extensions reports none (\"extensions\": null)")
        let result32 = JSONValue.string(Base64URL.encode(Array(repeating: 0x5A, count: 32)))
        try record(
            &file, "unsolicited-prf-results-not-reported", RegistrationExtensionInputs(),
            Outputs(client: [
                "credProps": .object(["rk": .bool(true)]),
                "prf": .object(["enabled": .bool(true), "results": .object(["first": result32])]),
            ]),
            expect: [
                ("credProps", .object([("rk", .bool(true))])),
                ("prf", .object([("enabled", .bool(true)), ("results", .null)])),
                ("largeBlob", .null), ("credProtect", .null), ("hmacSecret", .null),
            ])
        try record(&file, "no-extensions-none-reported", RegistrationExtensionInputs(), Outputs(), expect: nil)
        file.editLastCeremony { $0.edit("expect") { $0.set("extensions", .null) } }
        var user = try file.authenticator("no-extensions-none-reported")
        try login(
            &file, "login-without-extensions-none-reported", &user, AuthenticationExtensionInputs(), Outputs(),
            allow: [user.credentialId])
        file.editLastCeremony { $0.edit("expect") { $0.set("extensions", .null) } }
        try login(
            &file, "login-prf-results-absent-when-not-asked", &user, AuthenticationExtensionInputs(), Outputs(),
            allow: [user.credentialId], expect: [("prf", .null), ("largeBlob", .null), ("appid", .null)])
        return file
    }

    // MARK: Registration

    func registrationExtensions() throws -> FixtureFile {
        var file = FixtureFile(
            "extensions/registration.json",
            "Registration extensions: credProps, prf, largeBlob, credProtect, minPinLength, hmac-secret, "
                + "credBlob and appidExclude outputs accepted and reported (unsolicited ones accepted, the "
                + "credential facts among them reported), and outputs that break their definition or what "
                + "was asked rejected (extension); malformed maps rejected (malformed)")
        let result32 = JSONValue.string(Base64URL.encode(Array(repeating: 0x5A, count: 32)))
        let everything = RegistrationExtensionInputs(
            credProps: true, prf: PRFInputs(eval: PRFValues(first: Array("salt one".utf8))), largeBlob: .preferred,
            credentialProtectionPolicy: .userVerificationOptionalWithCredentialIDList, enforceCredentialProtectionPolicy: true,
            minPinLength: true, hmacCreateSecret: true, credBlob: Array("blob".utf8), appidExclude: "https://example.org/appid")
        let all = Outputs(
            authenticator: [
                ("credBlob", .bool(true)), ("credProtect", .int(2)), ("hmac-secret", .bool(true)),
                ("minPinLength", .int(6)),
            ],
            client: [
                "credProps": .object(["rk": .bool(true)]),
                "prf": .object(["enabled": .bool(true), "results": .object(["first": result32])]),
                "largeBlob": .object(["supported": .bool(true)]), "hmacCreateSecret": .bool(true),
                "credBlob": .bool(true), "appidExclude": .bool(false),
            ])
        try record(
            &file, "all-extensions", everything, all,
            expect: [
                ("credProps", .object([("rk", .bool(true))])), ("credProtect", .int(2)),
                ("prf", .object([("enabled", .bool(true)), ("results", .object([("first", .bytes(Array(repeating: 0x5A, count: 32)))]))])),
                ("largeBlob", .object([("supported", .bool(true))])), ("minPinLength", .int(6)), ("hmacSecret", .bool(true)),
                ("credBlob", .bool(true)), ("appidExclude", .bool(false)),
            ])
        try record(
            &file, "credprops-rk-false", RegistrationExtensionInputs(credProps: true),
            Outputs(client: ["credProps": .object(["rk": .bool(false)])]), expect: [("credProps", .object([("rk", .bool(false))]))])
        try record(
            &file, "prf-enabled-false", RegistrationExtensionInputs(prf: PRFInputs()),
            Outputs(client: ["prf": .object(["enabled": .bool(false)])]), expect: [("prf", .object([("enabled", .bool(false))]))])
        // Nothing asked: the credential facts are reported, the PRF results (an answer to no input) are not.
        try record(
            &file, "unsolicited-outputs-accepted", RegistrationExtensionInputs(),
            Outputs(
                authenticator: [("credProtect", .int(1))],
                client: [
                    "credProps": .object(["rk": .bool(true)]),
                    "prf": .object(["enabled": .bool(true), "results": .object(["first": result32])]),
                ]),
            expect: [
                ("credProps", .object([("rk", .bool(true))])), ("credProtect", .int(1)),
                ("prf", .object([("enabled", .bool(true))])),
            ])
        let rejections: [(String, RegistrationExtensionInputs, Outputs, WebAuthnError.Category)] = [
            (
                "credprops-rk-not-boolean", RegistrationExtensionInputs(credProps: true),
                Outputs(client: ["credProps": .object(["rk": .string("true")])]), .extension
            ),
            (
                "prf-results-without-eval", RegistrationExtensionInputs(prf: PRFInputs()),
                Outputs(client: ["prf": .object(["enabled": .bool(true), "results": .object(["first": result32])])]), .extension
            ),
            (
                "prf-results-short", RegistrationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1]))),
                Outputs(client: [
                    "prf": .object([
                        "enabled": .bool(true),
                        "results": .object([
                            "first": .string(Base64URL.encode(Array(repeating: 1, count: 16)))
                        ]),
                    ])
                ]), .extension
            ),
            (
                "prf-second-not-asked", RegistrationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1]))),
                Outputs(client: ["prf": .object(["enabled": .bool(true), "results": .object(["first": result32, "second": result32])])]),
                .extension
            ),
            (
                "largeblob-required-unsupported", RegistrationExtensionInputs(largeBlob: .required),
                Outputs(client: ["largeBlob": .object(["supported": .bool(false)])]), .extension
            ),
            (
                "largeblob-blob-at-registration", RegistrationExtensionInputs(largeBlob: .preferred),
                Outputs(client: ["largeBlob": .object(["supported": .bool(true), "blob": .string("AQ")])]), .extension
            ),
            (
                "credprotect-below-enforced",
                RegistrationExtensionInputs(
                    credentialProtectionPolicy: .userVerificationRequired,
                    enforceCredentialProtectionPolicy: true),
                Outputs(authenticator: [("credProtect", .int(2))]), .extension
            ),
            (
                "credprotect-out-of-range", RegistrationExtensionInputs(credentialProtectionPolicy: .userVerificationRequired),
                Outputs(authenticator: [("credProtect", .int(4))]), .extension
            ),
            (
                "minpinlength-not-integer", RegistrationExtensionInputs(minPinLength: true),
                Outputs(authenticator: [("minPinLength", .text("6"))]), .extension
            ),
            (
                "hmac-secret-bytes-at-registration", RegistrationExtensionInputs(hmacCreateSecret: true),
                Outputs(authenticator: [("hmac-secret", .bytes(Array(repeating: 0, count: 32)))]), .extension
            ),
            (
                "extension-key-not-text", RegistrationExtensionInputs(),
                Outputs(authenticatorBytes: CBOREncoder.encode(CBORItem.map([(.int(1), .bool(true))]))), .extension
            ),
            (
                "extensions-map-too-deep", RegistrationExtensionInputs(),
                Outputs(
                    authenticatorBytes: CBOREncoder.encode(CBORItem.map([(.text("deep"), .array([.array([.array([.array([.int(1)])])])]))]))
                ),
                .malformed
            ),
            ("extensions-map-truncated", RegistrationExtensionInputs(), Outputs(authenticatorBytes: [0xA1, 0x6B]), .malformed),
        ]
        for (name, inputs, outputs, category) in rejections {
            try record(&file, name, inputs, outputs, verdict: .reject(category))
        }
        return file
    }

    // MARK: Authentication

    func authenticationExtensions() throws -> FixtureFile {
        var file = FixtureFile(
            "extensions/authentication.json",
            "Authentication extensions: prf results (evalByCredential over eval, second only when asked), "
                + "largeBlob read and write, getCredBlob, hmac-secret output; outputs that break their "
                + "definition or what was asked rejected (extension)")
        var authenticator = try file.authenticator("prf")
        file.preload(authenticator)
        let id = authenticator.credentialId
        let first = Array("first salt".utf8), second = Array("second salt".utf8)
        let out1 = authenticator.prf(first), out2 = authenticator.prf(second), own = authenticator.prf(Array("own salt".utf8))
        func results(_ values: [[UInt8]]) -> JSONValue {
            var members: [String: JSONValue] = ["first": .string(Base64URL.encode(values[0]))]
            if values.count > 1 { members["second"] = .string(Base64URL.encode(values[1])) }
            return .object(["results": .object(members)])
        }
        func expected(_ values: [[UInt8]]) -> [(String, FixtureValue)] {
            var members: [(String, FixtureValue)] = [("first", .bytes(values[0]))]
            if values.count > 1 { members.append(("second", .bytes(values[1]))) }
            return [("prf", .object([("results", .object(members))]))]
        }
        let both = AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: first, second: second)))
        let hmacOutput: [(String, CBORItem)] = [("hmac-secret", .bytes(Array(repeating: 0xC3, count: 80)))]
        try login(
            &file, "prf-eval-two-outputs", &authenticator, both,
            Outputs(authenticator: hmacOutput, client: ["prf": results([out1, out2])]),
            expect: expected([out1, out2]) + [("hmacSecret", .bool(true))])
        let byCredential = AuthenticationExtensionInputs(
            prf: PRFInputs(
                eval: PRFValues(first: first, second: second), evalByCredential: [id: PRFValues(first: Array("own salt".utf8))]))
        try login(
            &file, "prf-eval-by-credential", &authenticator, byCredential, Outputs(client: ["prf": results([own])]),
            allow: [id], expect: expected([own]))
        try login(&file, "prf-no-evaluation", &authenticator, both, Outputs(client: ["prf": .object([:])]), expect: [])
        try login(
            &file, "largeblob-read", &authenticator, AuthenticationExtensionInputs(largeBlob: .read),
            Outputs(client: ["largeBlob": .object(["blob": .string(Base64URL.encode(Array("stored".utf8)))])]),
            expect: [("largeBlob", .object([("blob", .bytes(Array("stored".utf8)))]))])
        try login(
            &file, "largeblob-write", &authenticator, AuthenticationExtensionInputs(largeBlob: .write([1, 2, 3])),
            Outputs(client: ["largeBlob": .object(["written": .bool(true)])]), allow: [id],
            expect: [("largeBlob", .object([("written", .bool(true))]))])
        try login(
            &file, "get-cred-blob", &authenticator, AuthenticationExtensionInputs(getCredBlob: true),
            Outputs(authenticator: [("credBlob", .bytes(Array("blob".utf8)))], client: ["getCredBlob": .string("YmxvYg")]),
            expect: [("credBlob", .bytes(Array("blob".utf8)))])
        let rejections: [(String, AuthenticationExtensionInputs, Outputs, [[UInt8]])] = [
            ("prf-second-missing", both, Outputs(client: ["prf": results([out1])]), []),
            ("prf-second-not-asked-for-credential", byCredential, Outputs(client: ["prf": results([own, out2])]), [id]),
            ("prf-enabled-at-authentication", both, Outputs(client: ["prf": .object(["enabled": .bool(true)])]), []),
            (
                "prf-results-without-eval", AuthenticationExtensionInputs(prf: PRFInputs()),
                Outputs(client: ["prf": results([out1])]), []
            ),
            ("prf-results-not-base64url", both, Outputs(client: ["prf": .object(["results": .object(["first": .string("+/+/")])])]), []),
            (
                "largeblob-written-after-read", AuthenticationExtensionInputs(largeBlob: .read),
                Outputs(client: ["largeBlob": .object(["written": .bool(true)])]), []
            ),
            (
                "largeblob-supported-at-authentication", AuthenticationExtensionInputs(largeBlob: .read),
                Outputs(client: ["largeBlob": .object(["supported": .bool(true)])]), []
            ),
            (
                "hmac-secret-output-wrong-length", both, Outputs(authenticator: [("hmac-secret", .bytes(Array(repeating: 1, count: 20)))]),
                []
            ),
            (
                "cred-blob-not-bytes", AuthenticationExtensionInputs(getCredBlob: true),
                Outputs(authenticator: [("credBlob", .bool(true))]), []
            ),
        ]
        for (name, inputs, outputs, allow) in rejections {
            try login(&file, name, &authenticator, inputs, outputs, allow: allow, verdict: .reject(.extension))
        }
        return file
    }

    // MARK: appid

    func appidExtension() throws -> FixtureFile {
        var file = FixtureFile(
            "extensions/appid.json",
            "appid (L3 §10.1.1): a credential registered with U2F under an AppID signs rpIdHash = "
                + "SHA-256(AppID); accepted when the RP sent appid and the client reports appid true. appid true "
                + "without the input is extension; an rpIdHash that is not the one the answer implies is rpIdHash")
        let appid = "https://example.org/u2f-appid.json"
        var legacy = try file.authenticator("u2f")
        file.preload(legacy)
        legacy.rpId = appid
        let inputs = AuthenticationExtensionInputs(appid: appid)
        try login(
            &file, "appid-used", &legacy, inputs, Outputs(client: ["appid": .bool(true)]), allow: [legacy.credentialId],
            expect: [("appid", .bool(true))])
        try login(
            &file, "appid-not-asked", &legacy, AuthenticationExtensionInputs(), Outputs(client: ["appid": .bool(true)]),
            allow: [legacy.credentialId], verdict: .reject(.extension))
        try login(
            &file, "appid-false-but-appid-hash", &legacy, inputs, Outputs(client: ["appid": .bool(false)]),
            allow: [legacy.credentialId], verdict: .reject(.rpIdHash))
        var modern = try file.authenticator("fido2")
        file.preload(modern)
        try login(
            &file, "appid-asked-not-used", &modern, inputs, Outputs(client: ["appid": .bool(false)]),
            allow: [modern.credentialId], expect: [("appid", .bool(false))])
        try login(
            &file, "appid-true-but-rpid-hash", &modern, inputs, Outputs(client: ["appid": .bool(true)]),
            allow: [modern.credentialId], verdict: .reject(.rpIdHash))
        return file
    }

    // MARK: Recording

    /// Records a registration with extension inputs (in `options.extensions`) and outputs.
    private func record(
        _ file: inout FixtureFile, _ name: String, _ inputs: RegistrationExtensionInputs, _ outputs: Outputs,
        expect: [(String, FixtureValue)]? = nil, verdict: FixtureFile.Verdict = .accept
    ) throws {
        var options = TestAuthenticator.RegistrationOptions()
        options.extensions = outputs
        try file.register(
            name, try file.authenticator(name), options: options,
            editJSON: { $0.set("clientExtensionResults", Self.fixtureValue(.object(outputs.client))) }, verdict)
        let inputJSON = try inputs.validatedJSON()
        file.editLastCeremony { ceremony in
            if let inputJSON { ceremony.edit("options") { $0.set("extensions", Self.fixtureValue(.object(inputJSON))) } }
            if let expect { ceremony.edit("expect") { $0.set("extensions", .object(expect)) } }
        }
    }

    /// Records an assertion with extension inputs and outputs.
    private func login(
        _ file: inout FixtureFile, _ name: String, _ authenticator: inout TestAuthenticator,
        _ inputs: AuthenticationExtensionInputs, _ outputs: Outputs, allow: [[UInt8]] = [],
        expect: [(String, FixtureValue)]? = nil, verdict: FixtureFile.Verdict = .accept
    ) throws {
        var options = TestAuthenticator.AuthenticationOptions()
        options.extensions = outputs
        try file.authenticate(
            name, &authenticator, allow: allow, options: options,
            editJSON: { $0.set("clientExtensionResults", Self.fixtureValue(.object(outputs.client))) }, verdict)
        let inputJSON = try inputs.validatedJSON(allowCredentials: allow)
        file.editLastCeremony { ceremony in
            if let inputJSON { ceremony.edit("options") { $0.set("extensions", Self.fixtureValue(.object(inputJSON))) } }
            if let expect { ceremony.edit("expect") { $0.set("extensions", .object(expect)) } }
        }
    }

    /// A JSON value as the fixture writer spells it (object members in name order).
    static func fixtureValue(_ value: JSONValue) -> FixtureValue {
        switch value {
        case .null: return .string("")
        case .bool(let b): return .bool(b)
        case .number(let n): return .int(Int(exactly: n) ?? 0)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(fixtureValue))
        case .object(let members): return .object(members.keys.sorted().compactMap { key in members[key].map { (key, fixtureValue($0)) } })
        }
    }
}
