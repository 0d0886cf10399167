import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnCrypto
@testable import WebAuthnRP

@Suite("WebAuthn JSON types")
struct JSONTypesTests {
    static let registrationJSON = #"""
        {
          "id": "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q",
          "rawId": "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q",
          "response": {
            "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQU1NUHQ0VXh4R1RTdG5jZHE0MTdZRHdCRmk4dnBJYS1wdzhvT3VWVzRUQSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2UsImV4dHJhRGF0YSI6ImNsaWVudERhdGFKU09OIG1heSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMgdGhpczogQmtRZURqZGNUQnJYQmlBd0pUTEU1USJ9",
            "authenticatorData": "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVZAAAAAIRGzLmrHbN0dQsjZ_9vOh8AIPkfOR20ybL94OpwGJy6P7Y_V5umEiszrZT_PsMwCEvkpQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6yScM6m2cvJt9hIlggkwpWuHovymYzSwNFir-HlxfBLMaO1zKQry4mZHlrkiA",
            "transports": ["internal", "hybrid"],
            "publicKey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEr--hb5fKmy0j64bMtkCY0g25CFYGLrJJwzqbZy8m32GTCla4ei_KZjNLA0WKv4eXF8Esxo7XMpCvLiZkeWuSIA",
            "publicKeyAlgorithm": -7,
            "attestationObject": "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikv6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVZAAAAAIRGzLmrHbN0dQsjZ_9vOh8AIPkfOR20ybL94OpwGJy6P7Y_V5umEiszrZT_PsMwCEvkpQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6yScM6m2cvJt9hIlggkwpWuHovymYzSwNFir-HlxfBLMaO1zKQry4mZHlrkiA"
          },
          "authenticatorAttachment": "platform",
          "type": "public-key",
          "clientExtensionResults": {"credProps": {"rk": true}}
        }
        """#

    static let authenticationJSON = #"""
        {
          "id": "uK1ZuZYEerGOLOtXIGw2LaV0WHk0gfSo6_EBx8p8wPE",
          "rawId": "uK1ZuZYEerGOLOtXIGw2LaV0WHk0gfSo6_EBx8p8wPE",
          "response": {
            "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiMVVwY2pLUzJLbzQ3c3lIanNyeHpoVy1Gb1FGUTJ5azVyQmxYT2VzZW9HWSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6dHJ1ZSwidG9wT3JpZ2luIjoiaHR0cHM6Ly9leGFtcGxlLmNvbSIsImV4dHJhRGF0YSI6ImNsaWVudERhdGFKU09OIG1heSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMgdGhpczogVWlGb0pNVlJRSERBRldGaTR2eFVwUSJ9",
            "authenticatorData": "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LUFAAAAAA",
            "signature": "MEUCIQC1pwyBeA1fzJpPKunKrpkFj4rMr1i5H7WTKWRsKKxv_AIgEuEBwWXbPI6ZV_DFTdbKm1a8O9LygL0vqmwdAsblwXE",
            "userHandle": null
          },
          "type": "public-key",
          "clientExtensionResults": {}
        }
        """#

    @Test("a registration response decodes, and its binary members parse")
    func registration() throws {
        let response = try RegistrationResponseJSON(jsonData: Data(Self.registrationJSON.utf8))
        #expect(response.rawId.base64URL == response.id)
        #expect(response.rawId.bytes.count == 32)
        #expect(response.type == .publicKey)
        #expect(response.authenticatorAttachment == .platform)
        #expect(response.response.transports == [.internal, .hybrid])
        #expect(response.response.publicKeyAlgorithm == -7)
        #expect(response.response.publicKey?.bytes.count == 91)
        #expect(response.clientExtensionResults["credProps"]?["rk"] == .bool(true))

        let clientData = try CollectedClientData(jsonBytes: response.response.clientDataJSON.bytes)
        #expect(clientData.type == "webauthn.create")
        #expect(Array(clientData.rawBytes) == response.response.clientDataJSON.bytes)
        let attestation = try AttestationObject(bytes: response.response.attestationObject.bytes[...])
        #expect(attestation.format == "none")
        #expect(Array(attestation.authenticatorData.rawBytes) == response.response.authenticatorData?.bytes)
        #expect(attestation.authenticatorData.attestedCredentialData.map { Array($0.credentialId) } == response.rawId.bytes)
    }

    @Test("an authentication response decodes; a null user handle is nil")
    func authentication() throws {
        let response = try AuthenticationResponseJSON(jsonData: Data(Self.authenticationJSON.utf8))
        #expect(response.response.userHandle == nil)
        #expect(response.authenticatorAttachment == nil)
        #expect(response.clientExtensionResults.isEmpty)
        let clientData = try CollectedClientData(jsonBytes: response.response.clientDataJSON.bytes)
        #expect(clientData.type == "webauthn.get")
        #expect(clientData.crossOrigin == true)
        #expect(clientData.topOrigin == "https://example.com")
        let authData = try AuthenticatorData(bytes: response.response.authenticatorData.bytes[...])
        #expect(authData.flags == [.userPresent, .userVerified])
        #expect(response.response.signature.bytes.first == 0x30)

        let withHandle = Self.authenticationJSON.replacingOccurrences(of: #""userHandle": null"#, with: #""userHandle": "AQID""#)
        let decoded = try AuthenticationResponseJSON(jsonData: Data(withHandle.utf8))
        #expect(decoded.response.userHandle?.bytes == [1, 2, 3])
    }

    @Test("JSONValue(jsonData:) reads with the strict reader: duplicate names, bad UTF-8, depth and trailing bytes are malformed")
    func strictDocument() throws {
        let value = try JSONValue(jsonData: Data(#"{"username":"ada","n":[1,2,{"a":true}]}"#.utf8))
        #expect(value["username"] == .string("ada"))
        #expect(value["n"]?.arrayValue?.count == 3)
        let refused: [[UInt8]] = [
            Array(#"{"username":"ada","username":"eve"}"#.utf8),
            Array(#"{"a":{"b":1,"b":2}}"#.utf8),
            Array(#"{"u\u0073ername":"ada","username":"eve"}"#.utf8),  // the same name once unescaped
            [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // invalid UTF-8 in a name
            Array((String(repeating: "[", count: 40) + String(repeating: "]", count: 40)).utf8),
            Array(#"{"a":1} x"#.utf8),
        ]
        for bytes in refused {
            #expect(throws: WebAuthnError(.malformed, "")) { try JSONValue(jsonData: Data(bytes)) }
        }
    }

    @Test("JSONValue.jsonData() writes members in name order, escapes strings, and reads back as the same value")
    func writtenDocument() throws {
        let value = JSONValue.object([
            "z": .array([.number(1), .number(2.5), .null, .bool(false)]), "a": .string("a\"b\\c\n\u{1}é/"),
            "m": .object(["y": .bool(true), "x": .number(-3)]),
        ])
        let data = try value.jsonData()
        #expect(String(decoding: data, as: UTF8.self) == #"{"a":"a\"b\\c\n\u0001é/","m":{"x":-3,"y":true},"z":[1,2.5,null,false]}"#)
        #expect(try JSONValue(jsonData: data) == value)
        #expect(throws: WebAuthnError(.malformed, "")) { try JSONValue.object(["n": .number(.nan)]).jsonData() }
    }

    @Test("unknown enumeration values are kept through decoding and encoding")
    func unknownEnumValues() throws {
        let text = Self.registrationJSON
            .replacingOccurrences(of: #"["internal", "hybrid"]"#, with: #"["usb", "quantum-link"]"#)
            .replacingOccurrences(of: #""authenticatorAttachment": "platform""#, with: #""authenticatorAttachment": "wrist""#)
            .replacingOccurrences(of: #""type": "public-key""#, with: #""type": "future-key""#)
        let response = try RegistrationResponseJSON(jsonData: Data(text.utf8))
        #expect(response.response.transports == [.usb, AuthenticatorTransport(rawValue: "quantum-link")])
        #expect(response.authenticatorAttachment?.rawValue == "wrist")
        #expect(response.type.rawValue == "future-key")
        #expect(response.type != .publicKey)

        let encoded = String(decoding: try response.jsonData(), as: UTF8.self)
        #expect(encoded.contains(#""quantum-link""#))
        #expect(encoded.contains(#""authenticatorAttachment":"wrist""#))
        #expect(try RegistrationResponseJSON(jsonData: Data(encoded.utf8)) == response)
    }

    @Test("responses round-trip through JSON, leaving out nil members")
    func roundTrip() throws {
        let registration = try RegistrationResponseJSON(jsonData: Data(Self.registrationJSON.utf8))
        let registrationAgain = try RegistrationResponseJSON(jsonData: registration.jsonData())
        #expect(registrationAgain == registration)

        let authentication = try AuthenticationResponseJSON(jsonData: Data(Self.authenticationJSON.utf8))
        let encoded = try authentication.jsonData()
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(!text.contains("userHandle"))
        #expect(!text.contains("authenticatorAttachment"))
        #expect(!text.contains("="))  // unpadded base64url
        #expect(try AuthenticationResponseJSON(jsonData: encoded) == authentication)
    }

    @Test(
        "bad base64url names the member in a malformed error",
        arguments: [
            (#""rawId": "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q""#, #""rawId": "+R85HbTJ""#, "RegistrationResponseJSON.rawId"),
            (#""rawId": "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q""#, #""rawId": "AA==""#, "RegistrationResponseJSON.rawId"),
            (#""clientDataJSON": "eyJ0"#, #""clientDataJSON": "e yJ0"#, "RegistrationResponseJSON.response.clientDataJSON"),
            (#""attestationObject": "o2Nm"#, #""attestationObject": "o2N!"#, "RegistrationResponseJSON.response.attestationObject"),
            (#""publicKeyAlgorithm": -7"#, #""publicKeyAlgorithm": "ES256""#, "RegistrationResponseJSON.response.publicKeyAlgorithm"),
            (#""transports": ["internal", "hybrid"]"#, #""transports": [1]"#, "RegistrationResponseJSON.response.transports[0]"),
            (#""rawId": "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q","#, "", "RegistrationResponseJSON.rawId is missing"),
            (
                #""clientExtensionResults": {"credProps": {"rk": true}}"#, #""clientExtensionResults": null"#,
                "RegistrationResponseJSON.clientExtensionResults"
            ),
        ] as [(String, String, String)])
    func badMembers(original: String, replacement: String, mention: String) throws {
        #expect(Self.registrationJSON.contains(original))
        let text = Self.registrationJSON.replacingOccurrences(of: original, with: replacement)
        expectMalformed(mentioning: mention) { () throws(WebAuthnError) in
            try RegistrationResponseJSON(jsonData: Data(text.utf8))
        }
    }

    @Test("text that is not JSON is malformed")
    func notJSON() {
        expectMalformed(mentioning: "AuthenticationResponseJSON") { () throws(WebAuthnError) in
            try AuthenticationResponseJSON(jsonData: Data("{not json".utf8))
        }
        expectMalformed(mentioning: "AuthenticationResponseJSON.response.signature") { () throws(WebAuthnError) in
            try AuthenticationResponseJSON(
                jsonData: Data(
                    Self.authenticationJSON.replacingOccurrences(
                        of: #""signature": "MEUC"#, with: #""signature": "ME/C"#
                    ).utf8))
        }
    }

    /// Fuzz/FailingCases/authentication/extension-results-error-order-ad2a21ecba74: of several extension
    /// outputs that are not JSON values (strings with invalid UTF-8), the error named a different one
    /// from one decode to the next (dictionary order). The one reader now refuses the document's
    /// invalid UTF-8 before any member is typed, with the same error every time.
    @Test("of several malformed extension outputs the error is the same on every decode")
    func extensionResultsErrorIsDeterministic() throws {
        var bytes = Array(Self.authenticationJSON.utf8)
        let marker = Array(#""clientExtensionResults": {}"#.utf8)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: marker) })
        let invalid: [UInt8] = [0x22, 0x61, 0xFF, 0xFE, 0x22]  // "a\xff\xfe": not UTF-8
        var members: [UInt8] = Array(#""clientExtensionResults": {"#.utf8)
        for (index, name) in ["zeta", "mu", "alpha", "omega", "beta", "kappa"].enumerated() {
            if index > 0 { members.append(UInt8(ascii: ",")) }
            members += Array("\"\(name)\":".utf8) + invalid
        }
        members.append(UInt8(ascii: "}"))
        bytes.replaceSubrange(start..<(start + marker.count), with: members)
        var messages: Set<String> = []
        for _ in 0..<50 {
            expectMalformed(mentioning: "not valid UTF-8") { () throws(WebAuthnError) in
                try AuthenticationResponseJSON(jsonData: Data(bytes))
            }
            do { _ = try AuthenticationResponseJSON(jsonData: Data(bytes)) } catch { messages.insert(error.message) }
        }
        #expect(messages.count == 1)
        // Well-formed outputs still decode, whatever their order.
        let valid = Self.authenticationJSON.replacingOccurrences(
            of: #""clientExtensionResults": {}"#, with: #""clientExtensionResults": {"b": [1, {"c": null}], "a": true}"#)
        let decoded = try AuthenticationResponseJSON(jsonData: Data(valid.utf8))
        #expect(decoded.clientExtensionResults == ["a": .bool(true), "b": .array([.number(1), .object(["c": .null])])])
    }

    /// Fuzz/FailingCases/fixture/expect-extensions-error-order-00f6059f19d3: an object nested in a
    /// JSON value, with several members that do not decode, was decoded as `[String: JSONValue]`
    /// (dictionary order) and the error named only the enclosing member. Nested objects are now
    /// decoded in member-name order too, and the error names the member at fault.
    @Test("of several malformed members of a nested object the error always names the first by name")
    func nestedJSONValueErrorIsDeterministic() throws {
        let members = ["zeta", "mu", "alpha", "omega", "beta", "kappa"].map { #""\#($0)": "\udc00""# }
        let text = #"{"outer": [1, {"inner": {"# + members.joined(separator: ", ") + "}}]}"
        for _ in 0..<50 {
            do {
                _ = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
                Issue.record("a lone surrogate decoded as a JSON value")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.map(\.stringValue) == ["outer", "Index 1", "inner", "alpha"])
            }
        }
        // Well-formed nested values still decode whole.
        let valid = #"{"b": [1, {"c": null, "a": "x"}], "a": true}"#
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data(valid.utf8))
                == .object(["a": .bool(true), "b": .array([.number(1), .object(["c": .null, "a": .string("x")])])]))
    }

    /// Fuzz/FailingCases/extension-outputs/deep-nesting-quadratic-99c96cbc2934: 1.8 KB of objects
    /// nested 450 deep took half a second per decode under ASan (0.9 s through the replay in
    /// release), JSONDecoder's work per level growing with the depth. JSONValue now refuses to
    /// sit deeper than 64 levels, wherever it is decoded from.
    @Test("a JSON value nested deeper than 64 levels is refused, at any entry point; 64 levels decode")
    func deepJSONValueRefused() throws {
        func nested(_ depth: Int) -> String { String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth) }
        // The value 1 sits at codingPath length `depth`: 64 is the deepest allowed.
        let deepest = try JSONDecoder().decode(JSONValue.self, from: Data(nested(64).utf8))
        var level = deepest, count = 0
        while case .object(let members) = level, let next = members["a"] { level = next; count += 1 }
        #expect(count == 64 && level == .number(1))
        for depth in [65, 450] {
            do {
                _ = try JSONDecoder().decode(JSONValue.self, from: Data(nested(depth).utf8))
                Issue.record("\(depth) levels decoded")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.count == 65 && context.debugDescription.contains("deeper than 64"))
            }
        }
        // Through a response body: malformed, naming where.
        let body = Self.authenticationJSON.replacingOccurrences(
            of: #""clientExtensionResults": {}"#, with: #""clientExtensionResults": {"prf": "# + nested(450) + "}")
        expectMalformed(mentioning: "deeper than") { () throws(WebAuthnError) in
            try AuthenticationResponseJSON(jsonData: Data(body.utf8))
        }
    }

    /// A stored issued challenge decodes its extension inputs in member-name order as well
    /// (version 1 rows, where they are an object; version 2 reads JSON text in document order).
    @Test("a stored challenge with several malformed extension inputs always gets the same error")
    func storedChallengeExtensionsErrorIsDeterministic() throws {
        let bad = #""\udc00""#
        let text =
            #"{"v":1,"challenge":"AAAAAAAAAAAAAAAAAAAAAA","kind":"authentication","rpId":"example.org","#
            + #""expiresAt":1800000000,"extensions":{"zeta":\#(bad),"mu":\#(bad),"alpha":\#(bad),"omega":\#(bad)}}"#
        #expect(text.components(separatedBy: #"\udc00"#).count == 5)
        for _ in 0..<50 {
            do {
                _ = try JSONDecoder().decode(IssuedChallenge.self, from: Data(text.utf8))
                Issue.record("a lone surrogate decoded as an extension input")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.map(\.stringValue) == ["extensions", "alpha"])
            }
        }
    }

    /// A sealed challenge is written by the library's writer, a stored one by `Codable`: the two
    /// must be one document, or a token sealed by one release would read differently.
    @Test("a challenge's stored form is the same document from the writer and from JSONEncoder")
    func storedChallengeWriterMatchesCodable() throws {
        let challenges = [
            IssuedChallenge(
                challenge: [1, 2, 3], kind: .authentication, rpId: "example.org", expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            IssuedChallenge(
                challenge: Array(repeating: 9, count: 32), kind: .registration, rpId: "login.example.org", userHandle: [7, 7],
                allowCredentials: [[1], [2, 3]], userVerification: .required, offeredAlgorithms: [.es256, .rs256],
                conditionalCreate: true, attestation: .direct,
                extensions: ["prf": .object(["eval": .object(["first": .string("AAEC")])]), "credProps": .bool(true)],
                issuedAt: Date(timeIntervalSince1970: 1_799_999_700.125), expiresAt: Date(timeIntervalSince1970: 1_800_000_000.5)),
        ]
        for issued in challenges {
            let written = try issued.storedJSON()
            #expect(try JSONValue(jsonData: Data(written)) == JSONValue(jsonData: try JSONEncoder().encode(issued)))
            #expect(try JSONDecoder().decode(IssuedChallenge.self, from: Data(written)) == issued)
        }
        let never = IssuedChallenge(
            challenge: [1], kind: .authentication, rpId: "example.org", expiresAt: Date(timeIntervalSince1970: .infinity))
        #expect(throws: WebAuthnError(.malformed, "")) { try never.storedJSON() }
    }

    @Test("creation options decode with the IDL default for excludeCredentials and round-trip")
    func creationOptions() throws {
        let text = #"""
            {"rp":{"id":"example.org","name":"Example"},
             "user":{"id":"h5BAzdD8jmeyTXdoSpzULw","name":"alice@example.org","displayName":"Alice"},
             "challenge":"AMMPt4UxxGTStncdq417YDwBFi8vpIa-pw8oOuVW4TA",
             "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-257}],
             "timeout":60000,
             "authenticatorSelection":{"residentKey":"required","userVerification":"preferred","authenticatorAttachment":"cross-platform"},
             "hints":["security-key","smart-watch"],
             "attestation":"direct",
             "attestationFormats":["packed"],
             "extensions":{"credProps":true,"prf":{"eval":{"first":"AAEC"}}}}
            """#
        let options = try PublicKeyCredentialCreationOptionsJSON(jsonData: Data(text.utf8))
        #expect(options.rp.id == "example.org")
        #expect(options.user.id.bytes.count == 16)
        #expect(options.challenge.bytes.count == 32)
        #expect(options.pubKeyCredParams.map(\.algorithm) == [.es256, COSEAlgorithm(rawValue: -257)])
        #expect(options.timeout == 60000)
        #expect(options.excludeCredentials.isEmpty)
        #expect(options.authenticatorSelection?.residentKey == .required)
        #expect(options.authenticatorSelection?.authenticatorAttachment == .crossPlatform)
        #expect(options.hints == [.securityKey, PublicKeyCredentialHint(rawValue: "smart-watch")])
        #expect(options.attestation == .direct)
        #expect(options.extensions?["credProps"] == .bool(true))
        #expect(options.extensions?["prf"]?["eval"]?["first"] == .string("AAEC"))

        let encoded = try options.jsonData()
        #expect(try PublicKeyCredentialCreationOptionsJSON(jsonData: encoded) == options)
        let encodedText = String(decoding: encoded, as: UTF8.self)
        #expect(encodedText.contains(#""excludeCredentials":[]"#))
        #expect(!encodedText.contains("requireResidentKey"))

        for badTimeout in ["-1", "1.5", "4294967296", "\"60000\""] {
            let bad = text.replacingOccurrences(of: "60000", with: badTimeout)
            expectMalformed(mentioning: "PublicKeyCredentialCreationOptionsJSON.timeout") { () throws(WebAuthnError) in
                try PublicKeyCredentialCreationOptionsJSON(jsonData: Data(bad.utf8))
            }
        }
    }

    @Test("request options decode and round-trip; absent members stay absent")
    func requestOptions() throws {
        let text = #"""
            {"challenge":"1UpcjKS2Ko47syHjsrxzhW-FoQFQ2yk5rBlXOeseoGY","rpId":"example.org",
             "allowCredentials":[{"type":"public-key","id":"uK1ZuZYEerGOLOtXIGw2LaV0WHk0gfSo6_EBx8p8wPE","transports":["usb","nfc"]}],
             "userVerification":"required"}
            """#
        let options = try PublicKeyCredentialRequestOptionsJSON(jsonData: Data(text.utf8))
        #expect(options.rpId == "example.org")
        #expect(options.allowCredentials?.first?.id.bytes.count == 32)
        #expect(options.allowCredentials?.first?.transports == [.usb, .nfc])
        #expect(options.userVerification == .required)
        #expect(options.timeout == nil && options.hints == nil && options.extensions == nil)
        let withTimeout = text.replacingOccurrences(of: #""rpId""#, with: #""timeout":4294967295,"rpId""#)
        #expect(try PublicKeyCredentialRequestOptionsJSON(jsonData: Data(withTimeout.utf8)).timeout == UInt32.max)
        let encoded = try options.jsonData()
        let encodedText = String(decoding: encoded, as: UTF8.self)
        #expect(!encodedText.contains("timeout") && !encodedText.contains("hints") && !encodedText.contains("extensions"))
        #expect(try PublicKeyCredentialRequestOptionsJSON(jsonData: encoded) == options)
    }

    /// What `JSONEncoder` writes for the options' `Encodable` form, the document `jsonData()` must match.
    func encoderText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("jsonData() writes the options as JSONEncoder writes their Encodable form, byte for byte")
    func optionsWriterMatchesEncoder() throws {
        let extensions: [String: JSONValue] = [
            "credProps": .bool(true), "zeta": .null, "Alpha": .number(-3), "ratio": .number(0.25),
            "prf": .object(["eval": .object(["first": .string("AAEC"), "second": .string("q\"u/o\\te\n\t\u{1}é")])]),
            "list": .array([.number(1), .string(""), .array([]), .object([:]), .bool(false)]),
        ]
        let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes([1, 2, 3, 4]), name: "al\"ice", displayName: "Älice </>")
        let descriptors = [
            PublicKeyCredentialDescriptorJSON(
                id: Base64URLBytes([9, 9]), transports: [.usb, AuthenticatorTransport(rawValue: "x\u{7F}")]),
            PublicKeyCredentialDescriptorJSON(id: Base64URLBytes([7])),
        ]
        let creations = [
            try PublicKeyCredentialCreationOptionsJSON.make(rp: PublicKeyCredentialRpEntity(id: nil, name: "Example"), user: user),
            try PublicKeyCredentialCreationOptionsJSON.make(
                rp: PublicKeyCredentialRpEntity(id: "example.org", name: "Example"), user: user, timeout: nil,
                excludeCredentials: descriptors,
                authenticatorSelection: AuthenticatorSelectionCriteria(
                    authenticatorAttachment: .platform, residentKey: .required, requireResidentKey: true, userVerification: .required),
                hints: [.securityKey, .hybrid], attestation: nil, attestationFormats: ["packed", "tpm"], extensions: extensions),
        ]
        for options in creations {
            #expect(String(decoding: try options.jsonData(), as: UTF8.self) == (try encoderText(options)))
        }
        let requests = [
            try PublicKeyCredentialRequestOptionsJSON.make(),
            try PublicKeyCredentialRequestOptionsJSON.make(
                timeout: 1, rpId: "example.org", allowCredentials: descriptors, userVerification: .discouraged,
                hints: [.clientDevice], extensions: extensions),
            try PublicKeyCredentialRequestOptionsJSON.make(timeout: nil, allowCredentials: [], userVerification: nil, extensions: [:]),
        ]
        for options in requests {
            #expect(String(decoding: try options.jsonData(), as: UTF8.self) == (try encoderText(options)))
        }
        // A number JSON cannot carry is refused, as JSONEncoder refuses it.
        let notFinite = try PublicKeyCredentialRequestOptionsJSON.make(extensions: ["x": .number(.infinity)])
        expectMalformed(mentioning: "cannot be encoded") { () throws(WebAuthnError) in _ = try notFinite.jsonData() }
    }

    @Test("builders draw a fresh 32-byte challenge, or check the one given")
    func builders() throws {
        let rp = PublicKeyCredentialRpEntity(id: "example.org", name: "Example")
        let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes([1, 2, 3, 4]), name: "alice", displayName: "Alice")
        let first = try PublicKeyCredentialCreationOptionsJSON.make(rp: rp, user: user)
        let second = try PublicKeyCredentialCreationOptionsJSON.make(rp: rp, user: user)
        #expect(first.challenge.bytes.count == 32)
        #expect(first.challenge != second.challenge)
        #expect(first.attestation == AttestationConveyancePreference.none)
        #expect(first.pubKeyCredParams.map(\.alg) == [-8, -7, -257])
        #expect(String(decoding: try first.jsonData(), as: UTF8.self).contains(#""attestation":"none""#))

        let given = [UInt8](repeating: 7, count: 16)
        #expect(try PublicKeyCredentialCreationOptionsJSON.make(rp: rp, user: user, challenge: given).challenge.bytes == given)
        expectMalformed(mentioning: "challenge") { () throws(WebAuthnError) in
            try PublicKeyCredentialCreationOptionsJSON.make(rp: rp, user: user, challenge: [UInt8](repeating: 7, count: 15))
        }
        for bad in [[UInt8](), [UInt8](repeating: 1, count: 65)] {
            let badUser = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(bad), name: "a", displayName: "A")
            expectMalformed(mentioning: "user.id") { () throws(WebAuthnError) in
                try PublicKeyCredentialCreationOptionsJSON.make(rp: rp, user: badUser)
            }
        }

        let request = try PublicKeyCredentialRequestOptionsJSON.make(rpId: "example.org")
        let request2 = try PublicKeyCredentialRequestOptionsJSON.make(rpId: "example.org")
        #expect(request.challenge.bytes.count == 32 && request.challenge != request2.challenge)
        #expect(request.userVerification == .preferred)
        expectMalformed(mentioning: "challenge") { () throws(WebAuthnError) in
            try PublicKeyCredentialRequestOptionsJSON.make(challenge: [1, 2, 3])
        }
    }

    @Test("JSONValue keeps every JSON kind")
    func jsonValue() throws {
        let text = #"{"a":null,"b":true,"c":-1.5,"d":"s","e":[1,[]],"f":{"g":{}}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value["a"] == .null)
        #expect(value["b"]?.boolValue == true)
        #expect(value["c"]?.numberValue == -1.5)
        #expect(value["d"]?.stringValue == "s")
        #expect(value["e"]?.arrayValue == [.number(1), .array([])])
        #expect(value["f"]?["g"]?.objectValue?.isEmpty == true)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test("Base64URLBytes names the member when built from text")
    func base64URLBytes() throws {
        #expect(try Base64URLBytes(base64URL: "AQID", member: "userHandle").bytes == [1, 2, 3])
        expectMalformed(mentioning: "userHandle") { () throws(WebAuthnError) in
            try Base64URLBytes(base64URL: "AQID=", member: "userHandle")
        }
        #expect(Base64URLBytes([0xFB, 0xFF]).description == "-_8")
    }
}
