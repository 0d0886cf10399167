import Testing
import WebAuthnCoding

@testable import WebAuthnRP

@Suite("clientDataJSON")
struct ClientDataTests {
    static let valid =
        #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODw","origin":"https://example.org","crossOrigin":false}"#

    func parse(_ text: String) throws(WebAuthnError) -> CollectedClientData {
        try CollectedClientData(jsonBytes: Array(text.utf8))
    }

    func expectRejected(_ text: String, mentioning mention: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        expectMalformed(mentioning: mention, "\(text)", sourceLocation: sourceLocation) { () throws(WebAuthnError) in
            try parse(text)
        }
    }

    @Test("a valid client data parses, keeps the received bytes and decodes its challenge")
    func valid() throws {
        let bytes = Array(Self.valid.utf8)
        let data = try CollectedClientData(jsonBytes: bytes)
        #expect(data.type == "webauthn.create")
        #expect(data.challenge == "AAECAwQFBgcICQoLDA0ODw")
        #expect(data.origin == "https://example.org")
        #expect(data.crossOrigin == false)
        #expect(data.topOrigin == nil)
        #expect(Array(data.rawBytes) == bytes)
        #expect(try data.decodedChallenge() == (0..<16).map { UInt8($0) })
    }

    @Test("crossOrigin and topOrigin are optional; topOrigin is read when present")
    func optionalMembers() throws {
        let minimal = try parse(#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#)
        #expect(minimal.crossOrigin == nil && minimal.topOrigin == nil)
        let framed = try parse(
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":true,"topOrigin":"https://top.example"}"#)
        #expect(framed.crossOrigin == true)
        #expect(framed.topOrigin == "https://top.example")
    }

    @Test("a leading byte order mark is skipped for parsing but kept in rawBytes")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(Self.valid.utf8)
        let data = try CollectedClientData(jsonBytes: bytes[...])
        #expect(data.type == "webauthn.create")
        #expect(Array(data.rawBytes) == bytes)
        // Only one leading BOM: a second one is not JSON white space.
        expectMalformed { () throws(WebAuthnError) in try CollectedClientData(jsonBytes: [0xEF, 0xBB, 0xBF] + bytes) }
    }

    @Test("rawBytes is the caller's slice, not a copy")
    func rawBytesIsASlice() throws {
        let framed: [UInt8] = [0x00, 0x01] + Array(Self.valid.utf8) + [0x02]
        let slice = framed[2..<(framed.count - 1)]
        let data = try CollectedClientData(jsonBytes: slice)
        #expect(data.rawBytes.startIndex == 2 && data.rawBytes.endIndex == framed.count - 1)
    }

    @Test("unknown members of any JSON kind are parsed and ignored")
    func unknownMembers() throws {
        let text = #"""
            { "tokenBinding": {"status": "present", "id": "abc"},
              "type": "webauthn.get", "extraData": [1, -2.5e3, 0, 0.125, true, false, null, {"a": [[]]}, "\u00e9\n"],
              "challenge": "AA", "origin" : "https://example.org", "other_keys_can_be_added_here": "do not compare" }
            """#
        let data = try parse(text)
        #expect(data.type == "webauthn.get")
        #expect(data.origin == "https://example.org")
    }

    @Test("escapes are decoded, surrogate pairs included")
    func escapes() throws {
        let data = try parse(#"{"type":"webauthn.\u0063reate","challenge":"AA","origin":"https:\/\/ex\u00E4mple.org\uD83D\uDE00"}"#)
        #expect(data.type == "webauthn.create")
        #expect(data.origin == "https://exämple.org😀")
    }

    @Test("lone surrogate escapes are malformed", arguments: [#"\uD800"#, #"\uDC00"#, #"\uD83Dx"#, #"\uD83D\u0041"#, #"\uDE00\uD83D"#])
    func loneSurrogates(escape: String) {
        expectRejected(
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\#(escape)"}"#,
            mentioning: "surrogate")
    }

    @Test(
        "a duplicate member is malformed, known or unknown, at any depth",
        arguments: [
            #"{"type":"webauthn.get","type":"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","origin":"https://b.example"}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1,"x":1}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":{"y":1,"y":2}}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","\u0074ype":"webauthn.create"}"#,
        ])
    func duplicates(text: String) {
        expectRejected(text, mentioning: "duplicate member")
    }

    @Test(
        "a mistyped member is malformed",
        arguments: [
            (#"{"type":1,"challenge":"AA","origin":"https://a.example"}"#, "type is a number"),
            (#"{"type":"webauthn.get","challenge":["AA"],"origin":"https://a.example"}"#, "challenge is an array"),
            (#"{"type":"webauthn.get","challenge":"AA","origin":null}"#, "origin is null"),
            (
                #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":"true"}"#,
                "crossOrigin is a string"
            ),
            (
                #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":1}"#,
                "crossOrigin is a number"
            ),
            (
                #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","crossOrigin":null}"#,
                "crossOrigin is null"
            ),
            (
                #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","topOrigin":{}}"#,
                "topOrigin is an object"
            ),
        ])
    func mistyped(text: String, mention: String) {
        expectRejected(text, mentioning: mention)
    }

    @Test("a missing required member is malformed", arguments: ["type", "challenge", "origin"])
    func missing(member: String) {
        let all = ["type": #""webauthn.get""#, "challenge": #""AA""#, "origin": #""https://a.example""#]
        let text = "{" + all.filter { $0.key != member }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        expectRejected(text, mentioning: "\(member) is missing")
    }

    @Test(
        "invalid UTF-8 is malformed",
        arguments: [[0xC3, 0x28], [0xC0, 0xAF], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        let bytes =
            Array(#"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":""#.utf8) + sequence
            + Array(#""}"#.utf8)
        expectMalformed(mentioning: "UTF-8") { () throws(WebAuthnError) in try CollectedClientData(jsonBytes: bytes) }
    }

    @Test(
        "invalid JSON forms are malformed",
        arguments: [
            "", " ", "{", "}", "[]", #""text""#, "null", "42",
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example",}"#,  // trailing comma
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"} x"#,  // garbage after
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example"}{}"#,  // two values
            #"{'type':'webauthn.get','challenge':'AA','origin':'https://a.example'}"#,  // single quotes
            #"{type:"webauthn.get","challenge":"AA","origin":"https://a.example"}"#,  // bare name
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":01}"#,  // leading zero
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1.}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":.5}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":+1}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1e}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":-}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":1e400}"#,  // out of range
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":NaN}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":tru}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":True}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\x41"}"#,  // bad escape
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\u12G4"}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"\u12"}"#,
            "{\"type\":\"webauthn.get\",\"challenge\":\"AA\",\"origin\":\"https://a.example\",\"x\":\"tab\u{09}inside\"}",  // raw tab
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":[1,]}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":[1 2]}"#,
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example" /* c */}"#,  // comment
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"unterminated}"#,
            #"{"type" "webauthn.get","challenge":"AA","origin":"https://a.example"}"#,  // no colon
            "\u{0C}{\"type\":\"webauthn.get\",\"challenge\":\"AA\",\"origin\":\"https://a.example\"}",  // form feed
        ])
    func invalidJSON(text: String) {
        expectRejected(text)
    }

    @Test("nesting up to 32 levels is accepted; deeper is malformed without exhausting the stack")
    func depth() throws {
        func nested(_ arrays: Int) -> String {
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":"#
                + String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays) + "}"
        }
        _ = try parse(nested(31))  // the object is level 1, so 31 arrays reach level 32
        expectRejected(nested(32), mentioning: "nesting")
        expectRejected(nested(20_000), mentioning: "nesting")
        expectRejected(String(repeating: "{\"a\":", count: 10_000), mentioning: "nesting")
    }

    @Test("input over the size limit is malformed")
    func sizeLimit() {
        let prefix = #"{"type":"webauthn.get","challenge":"AA","origin":"https://a.example","x":""#
        let padding = String(repeating: "a", count: CollectedClientData.maximumLength - prefix.utf8.count - 2)
        #expect(throws: Never.self) { try parse(prefix + padding + #""}"#) }
        expectRejected(prefix + padding + #"a"}"#, mentioning: "exceeds")
    }

    @Test("a challenge that is not strict base64url fails to decode as malformed")
    func badChallenge() throws {
        for challenge in ["AA==", "A", "AA+/", "AB"] {
            let data = try parse(#"{"type":"webauthn.get","challenge":"\#(challenge)","origin":"https://a.example"}"#)
            expectMalformed(mentioning: "challenge", "\(challenge)") { () throws(WebAuthnError) in try data.decodedChallenge() }
        }
    }

    @Test("the W3C none-ES256 registration client data parses")
    func w3cVector() throws {
        let bytes = try Base64URL.decode(
            "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQU1NUHQ0VXh4R1RTdG5jZHE0MTdZRHdCRmk4dnBJYS1wdzhvT3VWVzRUQSIs"
                + "Im9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2UsImV4dHJhRGF0YSI6ImNsaWVudERhdGFKU09OIG1h"
                + "eSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMgdGhpczogQmtRZURqZGNUQnJYQmlB"
                + "d0pUTEU1USJ9")
        let data = try CollectedClientData(jsonBytes: bytes)
        #expect(data.type == "webauthn.create")
        #expect(data.challenge == "AMMPt4UxxGTStncdq417YDwBFi8vpIa-pw8oOuVW4TA")
        #expect(data.origin == "https://example.org")
        #expect(data.crossOrigin == false)
        #expect(try data.decodedChallenge().count == 32)
    }

    @Test("random byte mutations of a valid client data parse or fail as malformed, never crash")
    func mutations() {
        let original = Array(Self.valid.utf8)
        var random = SplitMix64(seed: 0x5EED_0002)
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0...(random.next() % 3) {
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            do {
                _ = try CollectedClientData(jsonBytes: bytes)
            } catch {
                #expect(error.category == .malformed)
            }
        }
    }
}
