import Testing
import WebAuthnCoding

@testable import WebAuthnRP

/// Runs `body` and checks that it fails with a `malformed` WebAuthnError whose
/// message mentions `mention`.
func expectMalformed<T>(
    mentioning mention: String? = nil, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(WebAuthnError) -> T
) {
    do {
        _ = try body()
        Issue.record(
            "expected a malformed error, but parsing succeeded. \(comment.map { "\($0)" } ?? "")",
            sourceLocation: sourceLocation)
    } catch {
        #expect(error.category == .malformed, "\(error)", sourceLocation: sourceLocation)
        if let mention {
            #expect(
                error.message.contains(mention), "message \"\(error.message)\" should mention \"\(mention)\"",
                sourceLocation: sourceLocation)
        }
    }
}

/// Builds authenticator data byte by byte for tests.
struct AuthenticatorDataBuilder {
    var rpIdHash = [UInt8](repeating: 0xAB, count: 32)
    /// Flags to write; nil derives AT and ED from the members below, with UP set.
    var flags: UInt8?
    var signCount: UInt32 = 0x0102_0304
    var aaguid: [UInt8] = (0..<16).map { UInt8($0) }
    /// When non-nil, attested credential data is written.
    var credentialId: [UInt8]?
    /// Overrides the 2-byte credential ID length.
    var credentialIdLength: UInt16?
    var publicKey: [UInt8] = AuthenticatorDataBuilder.ec2Key
    /// When non-nil, written after the attested credential data.
    var extensions: [UInt8]?
    var trailing: [UInt8] = []

    /// A COSE EC2 P-256 key map (the coordinates need not be on the curve here).
    static let ec2Key: [UInt8] = CBOREncoder.encode(
        .map([
            (.int(1), .int(2)),
            (.int(3), .int(-7)),
            (.int(-1), .int(1)),
            (.int(-2), .bytes([UInt8](repeating: 0x11, count: 32))),
            (.int(-3), .bytes([UInt8](repeating: 0x22, count: 32))),
        ]))

    static let credProtectExtension: [UInt8] = CBOREncoder.encode(
        .map([
            (.text("credProtect"), .int(2))
        ]))

    func bytes() -> [UInt8] {
        var derived: UInt8 = 0x01
        if credentialId != nil { derived |= 0x40 }
        if extensions != nil { derived |= 0x80 }
        var out = rpIdHash
        out.append(flags ?? derived)
        out += [
            UInt8(signCount >> 24), UInt8((signCount >> 16) & 0xff), UInt8((signCount >> 8) & 0xff),
            UInt8(signCount & 0xff),
        ]
        if let credentialId {
            out += aaguid
            let length = credentialIdLength ?? UInt16(credentialId.count)
            out += [UInt8(length >> 8), UInt8(length & 0xff)]
            out += credentialId
            out += publicKey
        }
        if let extensions { out += extensions }
        return out + trailing
    }
}

@Suite("Authenticator data")
struct AuthenticatorDataTests {
    @Test("the minimal 37 bytes parse into rpIdHash, flags and a big-endian counter")
    func minimal() throws {
        let bytes = AuthenticatorDataBuilder().bytes()
        #expect(bytes.count == 37)
        let data = try AuthenticatorData(bytes: bytes)
        #expect(Array(data.rpIdHash) == [UInt8](repeating: 0xAB, count: 32))
        #expect(data.flags == .userPresent)
        #expect(data.userPresent && !data.userVerified)
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil)
        #expect(data.extensions == nil)
        #expect(Array(data.rawBytes) == bytes)
    }

    @Test("fewer than 37 bytes are malformed")
    func tooShort() {
        expectMalformed(mentioning: "at least 37") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: [UInt8](repeating: 0, count: 36))
        }
        expectMalformed { () throws(WebAuthnError) in try AuthenticatorData(bytes: []) }
    }

    @Test("the reserved flag bits 0x02 and 0x20 are ignored, not rejected")
    func reservedFlags() throws {
        var builder = AuthenticatorDataBuilder()
        builder.flags = 0x01 | 0x02 | 0x20 | 0x04 | 0x08 | 0x10
        let data = try AuthenticatorData(bytes: builder.bytes())
        #expect(data.flags.rawValue == 0x3f)
        #expect(data.flags.contains([.userPresent, .userVerified, .backupEligible, .backupState]))
        #expect(!data.flags.contains(.attestedCredentialData))
    }

    @Test("attested credential data: AAGUID, credential ID and the exact COSE key bytes")
    func attested() throws {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = (0..<20).map { UInt8(0xC0 + $0) }
        let bytes = builder.bytes()
        let data = try AuthenticatorData(bytes: bytes[...])
        let attested = try #require(data.attestedCredentialData)
        #expect(attested.aaguid.uuidString == "00010203-0405-0607-0809-0a0b0c0d0e0f")
        #expect(Array(attested.credentialId) == builder.credentialId)
        #expect(Array(attested.credentialPublicKey.encodedBytes) == AuthenticatorDataBuilder.ec2Key)
        // The key is a slice of the input, not a re-encoding.
        #expect(attested.credentialPublicKey.encodedBytes.startIndex == 37 + 16 + 2 + 20)
        #expect(attested.credentialPublicKey[intKey: 3]?.int == -7)
        #expect(data.extensions == nil)
    }

    @Test("a COSE key not in CTAP2 canonical form is malformed, checked as it is decoded (L3 §2.5)")
    func nonCanonicalKey() throws {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [1, 2, 3, 4]
        // {1: 2, 3: -7} in canonical form is accepted.
        builder.publicKey = [0xA2, 0x01, 0x02, 0x03, 0x26]
        let data = try AuthenticatorData(bytes: builder.bytes())
        #expect(data.attestedCredentialData?.credentialPublicKey[intKey: 1]?.int == 2)
        // The same members out of order, or with a longer head than needed, are not.
        builder.publicKey = [0xA2, 0x03, 0x26, 0x01, 0x02]
        expectMalformed(mentioning: "credentialPublicKey") { () throws(WebAuthnError) in try AuthenticatorData(bytes: builder.bytes()) }
        builder.publicKey = [0xA2, 0x01, 0x18, 0x02, 0x03, 0x26]
        expectMalformed(mentioning: "credentialPublicKey") { () throws(WebAuthnError) in try AuthenticatorData(bytes: builder.bytes()) }
    }

    @Test("extensions: one CBOR map when ED is set, alone or after attested data")
    func extensions() throws {
        var builder = AuthenticatorDataBuilder()
        builder.extensions = AuthenticatorDataBuilder.credProtectExtension
        let alone = try AuthenticatorData(bytes: builder.bytes())
        #expect(alone.flags.contains(.extensionData))
        #expect(alone.extensions?[textKey: "credProtect"]?.int == 2)
        #expect(alone.attestedCredentialData == nil)

        builder.credentialId = [9, 9, 9]
        let both = try AuthenticatorData(bytes: builder.bytes())
        #expect(both.attestedCredentialData.map { Array($0.credentialId) } == [9, 9, 9])
        #expect(both.extensions.map { Array($0.encodedBytes) } == AuthenticatorDataBuilder.credProtectExtension)
    }

    @Test("a credential ID of 1023 bytes is accepted, 1024 is malformed")
    func credentialIdLimit() throws {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [UInt8](repeating: 0x5A, count: 1023)
        let data = try AuthenticatorData(bytes: builder.bytes())
        #expect(data.attestedCredentialData?.credentialId.count == 1023)

        builder.credentialId = [UInt8](repeating: 0x5A, count: 1024)
        let tooLong = builder.bytes()
        expectMalformed(mentioning: "credentialIdLength 1024") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: tooLong)
        }
    }

    @Test("a credential ID length beyond the input is malformed")
    func credentialIdLengthBeyondInput() {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [1, 2, 3]
        builder.credentialIdLength = 1000
        let bytes = builder.bytes()
        expectMalformed(mentioning: "credentialId") { () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }
    }

    @Test("every truncation of valid authenticator data is malformed, never a crash")
    func truncation() throws {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = (0..<32).map { UInt8($0) }
        builder.extensions = AuthenticatorDataBuilder.credProtectExtension
        let full = builder.bytes()
        _ = try AuthenticatorData(bytes: full)
        for length in 0..<full.count {
            expectMalformed("prefix of \(length) bytes") { () throws(WebAuthnError) in
                try AuthenticatorData(bytes: full[0..<length])
            }
        }
    }

    @Test("bytes left over are malformed, whatever the flags", arguments: [false, true])
    func trailingBytes(withAttested: Bool) {
        var builder = AuthenticatorDataBuilder()
        if withAttested { builder.credentialId = [7, 7] }
        builder.trailing = [0x00]
        let bytes = builder.bytes()
        expectMalformed(mentioning: "left over") { () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }

        builder.extensions = AuthenticatorDataBuilder.credProtectExtension
        let afterExtensions = builder.bytes()
        expectMalformed(mentioning: "left over") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: afterExtensions)
        }
    }

    @Test("attested data present while AT is clear is malformed")
    func attestedWithoutFlag() {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [1, 2, 3, 4]
        builder.flags = 0x01
        let bytes = builder.bytes()
        expectMalformed(mentioning: "neither AT nor ED") { () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }
    }

    @Test("AT set with no attested credential data is malformed")
    func atWithoutData() {
        var builder = AuthenticatorDataBuilder()
        builder.flags = 0x41
        let bytes = builder.bytes()
        expectMalformed(mentioning: "AT flag") { () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }
    }

    @Test("ED set with no extensions is malformed, also after attested data")
    func edWithoutExtensions() {
        var builder = AuthenticatorDataBuilder()
        builder.flags = 0x81
        let bare = builder.bytes()
        expectMalformed(mentioning: "ED flag") { () throws(WebAuthnError) in try AuthenticatorData(bytes: bare) }

        builder.flags = 0xC1
        builder.credentialId = [1, 2]
        let afterAttested = builder.bytes()
        expectMalformed(mentioning: "ED flag") { () throws(WebAuthnError) in try AuthenticatorData(bytes: afterAttested) }
    }

    @Test("a public key or extensions that is not a CBOR map is malformed")
    func notMaps() {
        var builder = AuthenticatorDataBuilder()
        builder.credentialId = [1]
        builder.publicKey = CBOREncoder.encode(CBORItem.array([.int(1), .int(2)]))
        let keyArray = builder.bytes()
        expectMalformed(mentioning: "credentialPublicKey") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: keyArray)
        }

        builder.publicKey = [0xA1, 0x01]  // map announcing one entry, value missing
        let keyTruncated = builder.bytes()
        expectMalformed(mentioning: "credentialPublicKey") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: keyTruncated)
        }

        builder = AuthenticatorDataBuilder()
        builder.extensions = CBOREncoder.encode(CBORItem.text("credProtect"))
        let extensionText = builder.bytes()
        expectMalformed(mentioning: "extensions") { () throws(WebAuthnError) in
            try AuthenticatorData(bytes: extensionText)
        }
    }

    @Test("the W3C none-ES256 registration authenticator data parses")
    func w3cVector() throws {
        let bytes = try Base64URL.decode(
            "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVZAAAAAIRGzLmrHbN0dQsjZ_9vOh8AIPkfOR20ybL94OpwGJy6P7Y_V5umEiszrZT_"
                + "PsMwCEvkpQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6yScM6m2cvJt9hIlggkwpWuHovymYzSwNFir-HlxfBLMaO1zKQry4m"
                + "ZHlrkiA")
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.flags == [.userPresent, .backupEligible, .backupState, .attestedCredentialData])
        #expect(data.signCount == 0)
        let attested = try #require(data.attestedCredentialData)
        #expect(attested.credentialId.count == 32)
        #expect(Base64URL.encode(attested.credentialId) == "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q")
        #expect(attested.aaguid.uuidString == "8446ccb9-ab1d-b374-750b-2367ff6f3a1f")
        #expect(attested.credentialPublicKey[intKey: 3]?.int == -7)
    }
}

@Suite("AAGUID and flags")
struct AAGUIDTests {
    @Test("uuidString is lowercase 8-4-4-4-12 and parses back")
    func roundTrip() throws {
        let aaguid = try #require(
            AAGUID(bytes: [
                0xAD, 0xCE, 0x00, 0x02, 0x35, 0xBC, 0xC6, 0x0A,
                0x64, 0x8B, 0x0B, 0x25, 0xF1, 0xF0, 0x55, 0x03,
            ]))
        #expect(aaguid.uuidString == "adce0002-35bc-c60a-648b-0b25f1f05503")
        #expect("\(aaguid)" == aaguid.uuidString)
        #expect(AAGUID(uuidString: "ADCE0002-35BC-C60A-648B-0B25F1F05503") == aaguid)
        #expect(AAGUID.zero.isZero && !aaguid.isZero)
        #expect(AAGUID.zero.uuidString == "00000000-0000-0000-0000-000000000000")
    }

    @Test("wrong lengths and malformed strings give nil")
    func rejects() {
        #expect(AAGUID(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(AAGUID(bytes: [UInt8](repeating: 0, count: 17)) == nil)
        #expect(AAGUID(uuidString: "adce0002-35bc-c60a-648b-0b25f1f0550") == nil)
        #expect(AAGUID(uuidString: "adce0002035bc-c60a-648b-0b25f1f05503") == nil)
        #expect(AAGUID(uuidString: "adce0002-35bc-c60a-648b-0b25f1f0550g") == nil)
    }

    @Test("flags describe themselves by short name")
    func flagsDescription() {
        #expect(AuthenticatorFlags(rawValue: 0x45).description == "UP|UV|AT (0x45)")
        #expect(AuthenticatorFlags(rawValue: 0x00).description == "none (0x00)")
    }
}
