import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnRP

/// The readers on top of `JSONReader`: client data read in one pass against the value-tree
/// path, and the response fast path in front of `JSONDecoder` (what it reads, what it leaves
/// to `JSONDecoder`, and that the two always reach the same verdict).
@Suite("Plain-JSON fast path")
struct PlainJSONFastPathTests {
    static let plainClientData =
        #"{"type":"webauthn.get","challenge":"AAECAwQFBgcICQoLDA0ODw","origin":"https://example.org","crossOrigin":false}"#

    /// Client data texts around the plain form: accepted ones, ones the fast path leaves
    /// to the strict reader, and every kind of rejection.
    static let clientDataCases: [String] = [
        plainClientData,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,
        #" { "type" : "webauthn.get" , "challenge" : "AA" , "origin" : "https://a.example" } "#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":true,"topOrigin":"https://t.example"}"#,
        // Unknown members of every plain kind, and Chrome's hint member.
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","other_keys_can_be_added_here":"do not compare clientDataJSON against a template. See https://goo.gl/yabPex"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","n":-12,"b":true,"z":null,"o":{"x":[1,"y",{}]},"e":[]}"#,
        // Outside the plain subset, still valid: escapes, non-ASCII, numbers with fractions, a BOM.
        #"{"type":"webauthn.get","challenge":"AA","origin":"https:\/\/a.example"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\u00e9"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"é"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1.5e3}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":-0}"#,
        "\u{FEFF}" + #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,
        // Duplicates: known members, unknown members, and one written with an escape.
        #"{"type":"webauthn.get","type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1,"x":1}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":{"y":1,"y":2}}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","t\u0079pe":"webauthn.get"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":false,"crossOrigin":true}"#,
        // Wrong types and missing members.
        #"{"type":1,"challenge":"AA","origin":"https://a.example"}"#,
        #"{"type":"webauthn.get","challenge":null,"origin":"https://a.example"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":["https://a.example"]}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":"false"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","topOrigin":true}"#,
        #"{"type":"webauthn.get","origin":"https://a.example"}"#,
        #"["webauthn.get"]"#,
        // Not JSON: trailing bytes, bad literals, bad numbers, control characters, truncation.
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"} x"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","b":tru}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","n":01}"#,
        "{\"type\":\"webauthn.get\",\"challenge\":\"AA\",\"origin\":\"https://a.\texample\"}",
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example""#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example",}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\q"}"#,
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\ud800"}"#,
        "",
    ]

    @Test("plain client data is read in one pass with its values")
    func plainClientDataValues() throws {
        let bytes = Array(Self.plainClientData.utf8)
        let data = try CollectedClientData(jsonBytes: bytes[...])
        #expect(data.type == "webauthn.get")
        #expect(data.challenge == "AAECAwQFBgcICQoLDA0ODw")
        #expect(data.origin == "https://example.org")
        #expect(data.crossOrigin == false)
        #expect(data.topOrigin == nil)
    }

    @Test(
        "escapes, non-ASCII, fractions and a BOM are read in one pass too, with the tree's values",
        arguments: [
            #"{"type":"webauthn.get","challenge":"AA","origin":"https:\/\/a.example"}"#,
            #"{"type":"webauthn.\u0067et","challenge":"AA","origin":"https://a.example","x":"é"}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1.5}"#,
            "\u{FEFF}" + #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,
        ])
    func unusualClientDataInOnePass(_ text: String) throws {
        let bytes = Array(text.utf8)
        let onePass = try CollectedClientData(jsonBytes: bytes[...])
        let tree = try CollectedClientData(treeJSONBytes: bytes[...])
        #expect(onePass.type == "webauthn.get" && onePass.type == tree.type)
        #expect(onePass.origin == "https://a.example" && onePass.origin == tree.origin)
    }

    @Test("client data: the one-pass reading and the tree path agree on every case, errors included", arguments: clientDataCases)
    func clientDataAgrees(_ text: String) {
        let bytes = Array(text.utf8)
        let combined = Result { () throws(WebAuthnError) in try CollectedClientData(jsonBytes: bytes[...]) }
        let strict = Result { () throws(WebAuthnError) in try CollectedClientData(treeJSONBytes: bytes[...]) }
        switch (combined, strict) {
        case (.success(let a), .success(let b)):
            #expect(a.type == b.type && a.challenge == b.challenge && a.origin == b.origin)
            #expect(a.crossOrigin == b.crossOrigin && a.topOrigin == b.topOrigin)
            #expect(Array(a.rawBytes) == Array(b.rawBytes))
        case (.failure(let a), .failure(let b)):
            #expect(a.category == .malformed && a == b, "\(a) vs \(b)")
        default:
            Issue.record("verdicts differ for \(text): \(combined) vs \(strict)")
        }
    }

    @Test("bad UTF-8 in client data is malformed, through either path")
    func badUTF8() {
        var bytes = Array(#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"??"}"#.utf8)
        if let index = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes[index] = 0xC3; bytes[index + 1] = 0x28 }
        #expect { try CollectedClientData(jsonBytes: bytes) } throws: { error in
            (error as? WebAuthnError)?.category == .malformed && "\(error)".contains("UTF-8")
        }
        #expect { try CollectedClientData(treeJSONBytes: bytes[...]) } throws: { error in
            (error as? WebAuthnError)?.category == .malformed && "\(error)".contains("UTF-8")
        }
    }

    @Test(
        "client data rejections keep their category and reason",
        arguments: [
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1,"x":1}"#, "duplicate member"),
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","t\u0079pe":"x"}"#, "duplicate member"),
            (#"{"type":1,"challenge":"AA","origin":"https://a.example"}"#, "type is a number"),
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":"no"}"#, "crossOrigin is a string"),
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","topOrigin":1}"#, "topOrigin is a number"),
            (#"{"type":"webauthn.get","origin":"https://a.example"}"#, "challenge is missing"),
            (#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\q"}"#, "invalid escape"),
        ])
    func clientDataRejections(_ text: String, _ reason: String) {
        #expect { try CollectedClientData(jsonBytes: Array(text.utf8)) } throws: { error in
            (error as? WebAuthnError)?.category == .malformed && "\(error)".contains(reason)
        }
    }

    // MARK: Response documents

    static let plainAuthentication =
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","userHandle":"dXNlcg"},"authenticatorAttachment":"platform","clientExtensionResults":{},"type":"public-key"}"#

    static let authenticationCases: [String] = [
        plainAuthentication,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","userHandle":null},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"authenticatorAttachment":null,"clientExtensionResults":{},"type":"public-key","extra":[1,{"a":null}]}"#,
        #"{"type":"public-key","clientExtensionResults":{},"response":{"signature":"MEU","authenticatorData":"AAEC","clientDataJSON":"e30","unknown":"x"},"rawId":"AAECAw","id":"AAECAw"}"#,
        // Extension outputs in plain JSON: read on the fast path, with JSONDecoder's values.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"credProps":{"rk":true}},"type":"public-key"}"#,
        Self.prfAuthentication,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"largeBlob":{"written":false},"appid":true,"x":[1,-2,null,[]],"y":{}},"type":"public-key"}"#,
        // Outside the plain subset, still accepted by JSONDecoder: fractions, escapes, a repeated
        // name and deep nesting in extension outputs, escapes elsewhere.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"x":1.5},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"x":"\u0041"},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"x":1,"x":2},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":[],"type":"public-key"}"#,
        #"{"id":"AA\u0045CAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAEC\u0041w","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        // An empty user handle is none, on both paths.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","userHandle":""},"clientExtensionResults":{},"type":"public-key"}"#,
        // The binary members in the order userHandle, signature, authenticatorData, clientDataJSON.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"userHandle":"dXNlcg","signature":"MEU","authenticatorData":"AAEC","clientDataJSON":"e30"},"clientExtensionResults":{},"type":"public-key"}"#,
        // Member names the fast path leaves to JSONDecoder: an escape, a repeated unknown name
        // (refused there), seventeen unknown names (accepted there).
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"t\u0079pe":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","x":1,"x":2},"clientExtensionResults":{},"type":"public-key"}"#,
        "{" + (0..<17).map { #""u\#($0)":0,"# }.joined()
            + #""id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        // No clientExtensionResults: read as `{}` on both paths.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"type":"public-key"}"#,
        // Rejected: missing, mistyped, bad base64url, trailing bytes, not an object.
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEV"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":7}"#,
        #"{"id":"AAECAw","rawId":"AAECA=","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAx","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","userHandle":5},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}]"#,
        #"[]"#,
        // Duplicate members: the fast path leaves them to the general path, which refuses them.
        #"{"id":"AAECAw","id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
    ]

    static let prfAuthentication =
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"prf":{"results":{"first":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","second":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"}}},"type":"public-key"}"#

    @Test("a login carrying PRF results stays on the fast path (JSONDecoder would cost a quarter more per login)")
    func prfResultsAreFast() throws {
        let fast = try #require(PlainResponseDecoding.authentication(Array(Self.prfAuthentication.utf8)[...]))
        let results = fast.clientExtensionResults["prf"]?.objectValue?["results"]?.objectValue
        #expect(results?["first"] == .string("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"))
        #expect(results?["second"] != nil)
    }

    @Test("a plain authentication response is read by the fast path")
    func plainAuthenticationIsFast() throws {
        let fast = try #require(PlainResponseDecoding.authentication(Array(Self.plainAuthentication.utf8)[...]))
        #expect(fast.id == "AAECAw" && fast.rawId.bytes == [0, 1, 2, 3])
        #expect(fast.response.clientDataJSON.bytes == Array("{}".utf8))
        #expect(fast.response.userHandle?.bytes == Array("user".utf8))
        #expect(fast.authenticatorAttachment == .platform)
        #expect(fast.type == .publicKey)
    }

    @Test(
        "the response built straight from plain JSON is the one AuthenticationResponse(json:) makes",
        arguments: authenticationCases + [plainAuthentication, prfAuthentication])
    func directResponseAgrees(_ text: String) {
        let bytes = Array(text.utf8)[...]
        let direct = AuthenticationResponse(plainJSON: bytes)
        let viaJSON = PlainResponseDecoding.authentication(bytes).map(AuthenticationResponse.init(json:))
        #expect((direct == nil) == (viaJSON == nil))
        if let direct, let viaJSON {
            #expect(direct.id == viaJSON.id && direct.rawId == viaJSON.rawId && direct.type == viaJSON.type)
            #expect(direct.clientDataJSON == viaJSON.clientDataJSON && direct.authenticatorData == viaJSON.authenticatorData)
            #expect(direct.signature == viaJSON.signature && direct.userHandle == viaJSON.userHandle)
            #expect(direct.clientExtensionResults == viaJSON.clientExtensionResults)
        }
    }

    @Test("authentication responses: the fast path and the tree path agree on every case", arguments: authenticationCases)
    func authenticationAgrees(_ text: String) {
        let data = Data(text.utf8)
        let combined = Result { () throws(WebAuthnError) in try AuthenticationResponseJSON(jsonData: data) }
        let general = Result { () throws(WebAuthnError) in
            try WebAuthnJSONCoding.decode(AuthenticationResponseJSON.self, from: Array(data)[...], root: "AuthenticationResponseJSON")
        }
        switch (combined, general) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.category == .malformed && a == b, "\(a) vs \(b)")
        default: Issue.record("verdicts differ for \(text): \(combined) vs \(general)")
        }
        // Whatever the fast path reads, the tree path reads the same way.
        if let fast = PlainResponseDecoding.authentication(Array(text.utf8)[...]) {
            #expect(Result.success(fast) == general.mapError { $0 as WebAuthnError })
        }
    }

    static let registrationCases: [String] = [
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA","transports":["usb","internal"],"publicKeyAlgorithm":-7,"publicKey":"AAEC","authenticatorData":"AAEC"},"authenticatorAttachment":"cross-platform","clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA","transports":null,"publicKeyAlgorithm":null,"publicKey":null},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA","publicKeyAlgorithm":-7.0},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA","publicKeyAlgorithm":"-7"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA","transports":["usb",1]},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30"},"clientExtensionResults":{},"type":"public-key"}"#,
        #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","attestationObject":"oA"},"clientExtensionResults":{"credProps":{"rk":true}},"type":"public-key"}"#,
    ]

    @Test("registration responses: the fast path and the tree path agree on every case", arguments: registrationCases)
    func registrationAgrees(_ text: String) {
        let data = Data(text.utf8)
        let combined = Result { () throws(WebAuthnError) in try RegistrationResponseJSON(jsonData: data) }
        let general = Result { () throws(WebAuthnError) in
            try WebAuthnJSONCoding.decode(RegistrationResponseJSON.self, from: Array(data)[...], root: "RegistrationResponseJSON")
        }
        switch (combined, general) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.category == .malformed && a == b, "\(a) vs \(b)")
        default: Issue.record("verdicts differ for \(text): \(combined) vs \(general)")
        }
        if let fast = PlainResponseDecoding.registration(Array(text.utf8)[...]) {
            #expect(Result.success(fast) == general.mapError { $0 as WebAuthnError })
        }
    }

    @Test("a response with bad UTF-8 or a duplicate member where the fast path does not look is refused, though JSONDecoder takes it")
    func badUTF8InSkippedMember() {
        var bytes = Array(
            #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key","x":"??"}"#
                .utf8)
        if let index = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes[index] = 0xC3; bytes[index + 1] = 0x28 }
        let duplicate = Array(
            #"{"id":"AAECAw","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{"x":1,"x":2},"type":"public-key"}"#
                .utf8)
        for input in [bytes, duplicate] {
            #expect(PlainResponseDecoding.authentication(input[...]) == nil)
            #expect((try? JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(input))) != nil)
            let error = #expect(throws: WebAuthnError.self) { try AuthenticationResponseJSON(jsonData: Data(input)) }
            #expect(error?.category == .malformed && error?.message.contains("JSON at byte") == true)
        }
    }

    @Test(
        "a response with a duplicate member, non-ASCII, an escape, a fraction or deep extension outputs is not read by the fast path",
        arguments: Array(authenticationCases[7...13]) + [
            authenticationCases[22], authenticationCases[23],
            #"{"id":"é","rawId":"AAECAw","response":{"clientDataJSON":"e30","authenticatorData":"AAEC","signature":"MEU"},"clientExtensionResults":{},"type":"public-key"}"#,
        ])
    func unusualResponsesAreNotFast(_ text: String) {
        #expect(PlainResponseDecoding.authentication(Array(text.utf8)[...]) == nil)
    }
}
