import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnCrypto
@testable import WebAuthnFuzzing
@testable import WebAuthnRP

/// The hostile cases of the foundation issue, for every parser and not just CBOR: empty input,
/// every truncation of a valid input, deep nesting, huge declared lengths with no bytes behind
/// them, and wrong types. Each must be refused with the parser's own typed error, never a trap.
///
/// Memory: a declared length the input does not deliver is checked against the bytes left
/// before anything is allocated. The lengths used here (2^63 - 1 and 2^32 - 1 elements) would
/// trap or exhaust memory if any parser reserved space for them; the fuzz harnesses run the
/// same inputs (they are seeds) under `-malloc_limit_mb=256`, which reports any allocation
/// above 256 MB as a crash.
@Suite struct HostileInputTests {
    /// The recorded credentials are text lines the targets parse: every line must give a record
    /// and every record a credential, or the ceremony targets would lose recorded logins silently.
    @Test("every recorded credential line parses into a credential record")
    func recordedCredentialLines() {
        let lines = RecordedInputs.recordLines.split(separator: "\n")
        #expect(lines.count == 66)
        #expect(RecordedInputs.records.count == lines.count)
        #expect(CeremonyTargets.records.count == lines.count)
        #expect(RecordedInputs.Record(line: "attestation/x.json id key -7 user maybe 0") == nil)
        #expect(RecordedInputs.Record(line: "attestation/x.json id key -7 user true") == nil)
    }

    /// How a parser answered: accepted, or refused with `<module>.<category or code>`.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted
        case rejected(String)

        var description: String {
            switch self {
            case .accepted: return "accepted"
            case .rejected(let kind): return "rejected(\(kind))"
            }
        }
    }

    static func outcome(_ body: () throws -> Void) -> Outcome {
        do {
            try body()
            return .accepted
        } catch let error as WebAuthnError {
            return .rejected("webauthn.\(error.category.rawValue)")
        } catch let error as CryptoError {
            return .rejected("crypto.\(error.code.rawValue)")
        } catch let error as CBORError {
            return .rejected("cbor.\(error.code.rawValue)")
        } catch {
            return .rejected("untyped \(type(of: error)): \(error)")
        }
    }

    /// One parser: a valid input, how to run it, and the rejection its hostile inputs must get.
    struct Parser: CustomStringConvertible, Sendable {
        let name: String
        let valid: [UInt8]
        let rejection: String
        let parse: @Sendable ([UInt8]) throws -> Void
        var description: String { name }

        func run(_ bytes: [UInt8]) -> Outcome { HostileInputTests.outcome { try parse(bytes) } }
    }

    static func seed(_ target: String, prefix: String) -> [UInt8] {
        let files = CorpusReplayTests.inputs("Seeds", target).filter { $0.lastPathComponent.hasPrefix(prefix) }
        return files.first.flatMap { try? [UInt8](Data(contentsOf: $0)) } ?? []
    }

    static func decoded(_ text: String) -> [UInt8] { (try? Base64URL.decode(text)) ?? [] }

    /// A one-entry MDS3 payload (the seeds' payloads are larger than a truncation sweep needs).
    static let smallMetadataPayload = Array(
        ("""
        {"no":3,"nextUpdate":"2025-07-01","entries":[{"aaguid":"4d455441-0000-4000-8000-000000000001",        "attestationCertificateKeyIdentifiers":["82cc4a935ab01f94473d23fec38697e81b83bffa"],        "statusReports":[{"status":"FIDO_CERTIFIED_L1","effectiveDate":"2024-01-01"}],        "timeOfLastStatusChange":"2024-01-01","metadataStatement":{"description":"Key","authenticatorVersion":2,        "attestationTypes":["basic_full"],"attestationRootCertificates":["MIIB"],"keyProtection":["hardware"],        "userVerificationDetails":[[{"userVerificationMethod":"presence_internal"}]]}}]}
        """).utf8)

    static let parsers: [Parser] = [
        Parser(
            name: "authenticator data", valid: decoded(RecordedInputs.contexts["packed"]?.authenticatorData ?? ""),
            rejection: "webauthn.malformed"
        ) { _ = try AuthenticatorData(bytes: $0) },
        Parser(
            name: "attestation object", valid: seed("attestation-object", prefix: "attestation-packed-x5c-es256-register"),
            rejection: "webauthn.malformed"
        ) { _ = try AttestationObject(bytes: $0) },
        Parser(
            name: "COSE key", valid: decoded(RecordedInputs.records.first?.publicKey ?? ""),
            rejection: "crypto.malformedKey"
        ) { _ = try COSEKey(cbor: $0[...]) },
        Parser(
            name: "client data JSON", valid: decoded(RecordedInputs.contexts["packed"]?.clientDataJSON ?? ""),
            rejection: "webauthn.malformed"
        ) { _ = try CollectedClientData(jsonBytes: $0) },
        Parser(
            name: "registration response JSON", valid: seed("registration", prefix: "attestation-packed-x5c-es256-register"),
            rejection: "webauthn.malformed"
        ) { _ = try RegistrationResponseJSON(jsonData: Data($0)) },
        Parser(
            name: "authentication response JSON",
            valid: seed("authentication", prefix: "attestation-packed-x5c-es256-login-discoverable"),
            rejection: "webauthn.malformed"
        ) { _ = try AuthenticationResponseJSON(jsonData: Data($0)) },
        Parser(
            name: "X.509 certificate", valid: decoded(RecordedInputs.trustAnchorsBase64URL.first ?? ""),
            rejection: "crypto.malformedCertificate"
        ) { _ = try Certificate(derEncoded: $0) },
        Parser(
            name: "metadata BLOB payload", valid: smallMetadataPayload,
            rejection: "webauthn.metadata"
        ) { _ = try MetadataBLOB.indexUnverifiedPayload($0) },
    ]

    @Test("the valid inputs parse", arguments: parsers)
    func validParses(_ parser: Parser) {
        #expect(!parser.valid.isEmpty)
        #expect(parser.run(parser.valid) == .accepted)
    }

    @Test("empty input is refused with the parser's typed error", arguments: parsers)
    func empty(_ parser: Parser) {
        #expect(parser.run([]) == .rejected(parser.rejection))
    }

    @Test("every truncation of a valid input is refused with the parser's typed error", arguments: parsers)
    func truncations(_ parser: Parser) {
        for length in 0..<parser.valid.count {
            let outcome = parser.run(Array(parser.valid.prefix(length)))
            #expect(outcome == .rejected(parser.rejection), "\(parser.name) cut to \(length) of \(parser.valid.count) bytes")
        }
    }

    // MARK: Deep nesting

    /// 100,000 nested CBOR arrays: the decoder's depth cap (16) refuses them without recursion.
    static let deepCBOR = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
    /// 100,000 nested JSON arrays.
    static let deepJSON = Array(String(repeating: "[", count: 100_000).utf8)
    /// 10,000 properly nested DER SEQUENCEs (each length exact).
    static let deepDER: [UInt8] = {
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<10_000 {
            let count = bytes.count
            let length: [UInt8] =
                count < 0x80
                ? [UInt8(count)]
                : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
            bytes = [0x30] + length + bytes
        }
        return bytes
    }()

    /// authData whose attested credential data carries `key` (AT set, zero AAGUID, 1-byte id).
    static func authData(key: [UInt8], flags: UInt8 = 0x45) -> [UInt8] {
        [UInt8](repeating: 0xAA, count: 32) + [flags, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0, 1, 0x7F] + key
    }

    /// An attestation object `{fmt: "none", attStmt: <statement>, authData: <authData>}` from encoded parts.
    static func attestationObject(statement: [UInt8] = [0xA0], authData: [UInt8]) -> [UInt8] {
        [0xA3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8) + statement
            + [0x68] + Array("authData".utf8) + authData
    }

    static func responseJSON(clientExtensionResults: String) -> [UInt8] {
        Array(
            #"{"id":"AQ","rawId":"AQ","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"},"clientExtensionResults":"#
                .utf8)
            + Array(clientExtensionResults.utf8) + Array("}".utf8)
    }

    @Test("deep nesting is refused with the parser's typed error, without exhausting the stack")
    func deepNesting() {
        let cases: [(String, Outcome, Outcome)] = [
            ("CBOR", Self.outcome { _ = try CBOR.decode(Self.deepCBOR) }, .rejected("cbor.depth")),
            (
                "authenticator data key", Self.outcome { _ = try AuthenticatorData(bytes: Self.authData(key: Self.deepCBOR)) },
                .rejected("webauthn.malformed")
            ),
            (
                "authenticator data extensions",
                Self.outcome {
                    _ = try AuthenticatorData(bytes: [UInt8](repeating: 0xAA, count: 32) + [0x81, 0, 0, 0, 1] + Self.deepCBOR)
                },
                .rejected("webauthn.malformed")
            ),
            (
                "attestation object statement",
                Self.outcome { _ = try AttestationObject(bytes: Self.attestationObject(statement: Self.deepCBOR, authData: [0x40])) },
                .rejected("webauthn.malformed")
            ),
            ("attestation object", Self.outcome { _ = try AttestationObject(bytes: Self.deepCBOR) }, .rejected("webauthn.malformed")),
            ("COSE key", Self.outcome { _ = try COSEKey(cbor: Self.deepCBOR[...]) }, .rejected("crypto.malformedKey")),
            (
                "client data", Self.outcome { _ = try CollectedClientData(jsonBytes: Array(#"{"type":"#.utf8) + Self.deepJSON) },
                .rejected("webauthn.malformed")
            ),
            (
                "registration response",
                Self.outcome {
                    _ = try RegistrationResponseJSON(
                        jsonData: Data(Self.responseJSON(clientExtensionResults: String(repeating: "{\"a\":", count: 100_000))))
                },
                .rejected("webauthn.malformed")
            ),
            (
                "authentication response", Self.outcome { _ = try AuthenticationResponseJSON(jsonData: Data(Self.deepJSON)) },
                .rejected("webauthn.malformed")
            ),
            ("X.509", Self.outcome { _ = try Certificate(derEncoded: Self.deepDER) }, .rejected("crypto.malformedCertificate")),
            (
                "metadata payload", Self.outcome { _ = try MetadataBLOB.indexUnverifiedPayload(Self.deepJSON) },
                .rejected("webauthn.metadata")
            ),
        ]
        for (name, outcome, expected) in cases {
            #expect(outcome == expected, "\(name)")
        }
    }

    // MARK: Huge declared lengths

    /// CBOR heads declaring 2^63 - 1 and 2^32 - 1 bytes or elements, with nothing behind them.
    static let hugeCBOR: [[UInt8]] =
        [0x5B, 0x7B, 0x9B, 0xBB].map { [$0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] }
        + [0x5A, 0x7A, 0x9A, 0xBA].map { [$0, 0xFF, 0xFF, 0xFF, 0xFF] }

    @Test("huge declared lengths with no bytes behind them are refused with the parser's typed error")
    func hugeDeclaredLengths() {
        for head in Self.hugeCBOR {
            let hex = head.map { String($0, radix: 16) }.joined(separator: " ")
            #expect(Self.outcome { _ = try CBOR.decode(head) } == .rejected("cbor.limit"), "CBOR \(hex)")
            #expect(
                Self.outcome { _ = try AuthenticatorData(bytes: Self.authData(key: head)) } == .rejected("webauthn.malformed"),
                "authData key \(hex)")
            #expect(
                Self.outcome { _ = try AttestationObject(bytes: Self.attestationObject(statement: head, authData: [0x40])) }
                    == .rejected("webauthn.malformed"), "attStmt \(hex)")
            #expect(
                Self.outcome { _ = try AttestationObject(bytes: Self.attestationObject(authData: head)) }
                    == .rejected("webauthn.malformed"), "authData member \(hex)")
            #expect(
                Self.outcome { _ = try COSEKey(cbor: ([0xA2, 0x01, 0x02, 0x21] + head)[...]) } == .rejected("crypto.malformedKey"),
                "COSE x \(hex)")
        }
        // authenticator data: credentialIdLength 0xFFFF (over the 1023 cap) and 1023 with one byte behind it.
        let header = [UInt8](repeating: 0xAA, count: 32) + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16)
        #expect(Self.outcome { _ = try AuthenticatorData(bytes: header + [0xFF, 0xFF, 0x01]) } == .rejected("webauthn.malformed"))
        #expect(Self.outcome { _ = try AuthenticatorData(bytes: header + [0x03, 0xFF, 0x01]) } == .rejected("webauthn.malformed"))
        // DER: 2^31 - 1 (under the cap, truncated), 2^31 and 2^63 (over the cap), in a certificate.
        for head: [UInt8] in [
            [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF], [0x30, 0x84, 0x80, 0, 0, 0],
            [0x30, 0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ] {
            #expect(
                Self.outcome { _ = try Certificate(derEncoded: head + [0x02, 0x01, 0x00]) } == .rejected("crypto.malformedCertificate"))
        }
        // JSON has no declared lengths; its counterpart is a document over the size cap.
        let oversized = Array(#"{"type":""#.utf8) + [UInt8](repeating: 0x61, count: CollectedClientData.maximumLength) + Array(#""}"#.utf8)
        #expect(Self.outcome { _ = try CollectedClientData(jsonBytes: oversized) } == .rejected("webauthn.malformed"))
    }

    // MARK: Wrong types

    @Test("wrong types are refused with the parser's typed error")
    func wrongTypes() {
        let key: [UInt8] = [0xA1, 0x01, 0x02]
        let cases: [(String, Outcome, Outcome)] = [
            (
                "authData key is an array", Self.outcome { _ = try AuthenticatorData(bytes: Self.authData(key: [0x81, 0x01])) },
                .rejected("webauthn.malformed")
            ),
            (
                "authData key is text", Self.outcome { _ = try AuthenticatorData(bytes: Self.authData(key: [0x61, 0x61])) },
                .rejected("webauthn.malformed")
            ),
            (
                "attestation object is an array", Self.outcome { _ = try AttestationObject(bytes: [0x83, 0x01, 0x02, 0x03]) },
                .rejected("webauthn.malformed")
            ),
            (
                "attStmt is bytes",
                Self.outcome { _ = try AttestationObject(bytes: Self.attestationObject(statement: [0x40], authData: [0x40])) },
                .rejected("webauthn.malformed")
            ),
            (
                "authData is a map", Self.outcome { _ = try AttestationObject(bytes: Self.attestationObject(authData: key)) },
                .rejected("webauthn.malformed")
            ),
            ("COSE key is an array", Self.outcome { _ = try COSEKey(cbor: [0x82, 0x01, 0x02][...]) }, .rejected("crypto.malformedKey")),
            (
                "COSE kty is bytes", Self.outcome { _ = try COSEKey(cbor: [0xA2, 0x01, 0x41, 0x02, 0x03, 0x26][...]) },
                .rejected("crypto.malformedKey")
            ),
            (
                "COSE x is an integer",
                Self.outcome { _ = try COSEKey(cbor: [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x01, 0x22, 0x01][...]) },
                .rejected("crypto.malformedKey")
            ),
            (
                "client data is an array", Self.outcome { _ = try CollectedClientData(jsonBytes: Array("[]".utf8)) },
                .rejected("webauthn.malformed")
            ),
            (
                "client data type is a number",
                Self.outcome { _ = try CollectedClientData(jsonBytes: Array(#"{"type":1,"challenge":"AA","origin":"o"}"#.utf8)) },
                .rejected("webauthn.malformed")
            ),
            (
                "response rawId is a number",
                Self.outcome { _ = try RegistrationResponseJSON(jsonData: Data(#"{"id":"AQ","rawId":1}"#.utf8)) },
                .rejected("webauthn.malformed")
            ),
            (
                "response is an array", Self.outcome { _ = try AuthenticationResponseJSON(jsonData: Data("[]".utf8)) },
                .rejected("webauthn.malformed")
            ),
            (
                "extension results are an array",
                Self.outcome { _ = try RegistrationResponseJSON(jsonData: Data(Self.responseJSON(clientExtensionResults: "[]"))) },
                .rejected("webauthn.malformed")
            ),
            (
                "certificate is a SET", Self.outcome { _ = try Certificate(derEncoded: [0x31, 0x03, 0x02, 0x01, 0x00]) },
                .rejected("crypto.malformedCertificate")
            ),
            (
                "certificate is an INTEGER", Self.outcome { _ = try Certificate(derEncoded: [0x02, 0x01, 0x00]) },
                .rejected("crypto.malformedCertificate")
            ),
        ]
        for (name, outcome, expected) in cases {
            #expect(outcome == expected, "\(name)")
        }
    }

    // MARK: Attestation statement formats

    /// Every format, with a statement of its own shape (Fuzz/Seeds/attstmt-<fmt>/).
    static let formats = AttestationStatementTargets.formats

    /// Verifies with every sub-statement of a compound required (the fuzz target asks for any one,
    /// under which a compound with one intact component still verifies).
    static func verify(_ format: String, _ statement: CBORItem) -> Outcome {
        var policy = AttestationStatementTargets.policy
        policy.formats.compoundRequirement = .all
        guard let context = AttestationStatementTargets.context(for: format) else { return .rejected("no context") }
        return outcome {
            _ = try AttestationStatementCheck.verify(
                format: format, statement: statement,
                authenticatorData: context.authenticatorData,
                clientDataHash: context.clientDataHash,
                policy: policy, at: ParserTargets.verificationTime)
        }
    }

    static func statement(_ format: String) -> CBORItem? {
        let file = CorpusReplayTests.inputs("Seeds", "attstmt-\(format)").first
        return file.flatMap { try? CBOR.decode([UInt8](Data(contentsOf: $0))) }
    }

    @Test("the recorded packed and fido-u2f statements verify against the fixed contexts")
    func recordedStatementsVerify() throws {
        let packed = try CBOR.decode(Self.seed("attstmt-packed", prefix: "attestation-packed-x5c-es256-register"))
        #expect(Self.verify("packed", packed) == .accepted)
        let u2f = try CBOR.decode(Self.seed("attstmt-fido-u2f", prefix: "attestation-fido-u2f-es256-register"))
        #expect(Self.verify("fido-u2f", u2f) == .accepted)
    }

    @Test(
        "statements of the wrong type, empty, or with members of the wrong type are refused as attestation",
        arguments: formats)
    func statementWrongTypes(_ format: String) throws {
        let valid = try #require(Self.statement(format))
        let wrongValues: [CBORItem] = [.int(1), .text("x"), .bytes([1]), .array([]), .map([]), .bool(true), CBORItem(.null)]
        for item in wrongValues where item != valid {
            let outcome = Self.verify(format, item)
            #expect(outcome == .rejected("webauthn.attestation"), "\(format) statement \(item.value)")
        }
        guard let entries = valid.mapEntries else { return }  // compound: an array, checked above
        for (index, entry) in entries.enumerated() {
            for wrong in wrongValues where wrong.value != entry.value.value && !Self.sameKind(wrong, entry.value) {
                var replaced = entries.map { ($0.key, $0.value) }
                replaced[index].1 = wrong
                let outcome = Self.verify(format, .map(replaced))
                #expect(
                    outcome == .rejected("webauthn.attestation") || outcome == .rejected("webauthn.malformed"),
                    "\(format).\(entry.key.text ?? "?") = \(wrong.value): \(outcome)")
                #expect(outcome != .accepted, "\(format).\(entry.key.text ?? "?") = \(wrong.value)")
            }
        }
    }

    static func sameKind(_ a: CBORItem, _ b: CBORItem) -> Bool {
        switch (a.value, b.value) {
        case (.unsigned, .unsigned), (.unsigned, .negative), (.negative, .negative), (.negative, .unsigned),
            (.text, .text), (.bytes, .bytes), (.array, .array), (.map, .map), (.bool, .bool):
            return true
        default: return false
        }
    }

    @Test(
        "truncating any byte string of a statement (certificates, signatures, TPM structures, JWS) is refused, typed",
        arguments: formats)
    func statementTruncations(_ format: String) throws {
        let valid = try #require(Self.statement(format))
        var checked = 0
        for variant in Self.truncatedByteStrings(valid) {
            let outcome = Self.verify(format, variant.item)
            #expect(
                outcome == .rejected("webauthn.attestation") || outcome == .rejected("webauthn.malformed"),
                "\(format) \(variant.path): \(outcome)")
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test(
        "huge declared DER lengths inside x5c are refused as malformed",
        arguments: formats.filter { $0 != "compound" && $0 != "android-safetynet" })
    func statementHugeCertificateLengths(_ format: String) throws {
        let valid = try #require(Self.statement(format))
        let entries = try #require(valid.mapEntries)
        for head: [UInt8] in [[0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF], [0x30, 0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]] {
            let replaced = entries.map { entry in
                (entry.key, entry.key.text == "x5c" ? .array([.bytes(head)]) : entry.value)
            }
            let outcome = Self.verify(format, .map(replaced))
            // packed/android-key/tpm/apple read x5c before any signature check: the certificate is malformed.
            #expect(outcome == .rejected("webauthn.malformed") || outcome == .rejected("webauthn.attestation"), "\(format): \(outcome)")
            #expect(outcome != .accepted)
        }
    }

    /// Copies of `item` in which one byte string (anywhere in it) is cut short: to 0, 1, 2, 3 bytes,
    /// half, and one byte short. A CBOR-encoded member (compound's attStmt) is walked into.
    static func truncatedByteStrings(_ item: CBORItem, path: String = "") -> [(path: String, item: CBORItem)] {
        switch item.value {
        case .bytes(let bytes):
            let lengths = Set([0, 1, 2, 3, bytes.count / 2, max(0, bytes.count - 1)]).filter { $0 < bytes.count }.sorted()
            return lengths.map { (path + "[..<\($0)]", CBORItem.bytes(bytes.prefix($0))) }
        case .array(let elements):
            return elements.indices.flatMap { index in
                truncatedByteStrings(elements[index], path: path + "[\(index)]").map { variant in
                    var copy = elements
                    copy[index] = variant.item
                    return (variant.path, CBORItem.array(copy))
                }
            }
        case .map(let entries):
            return entries.indices.flatMap { index in
                let entry = entries[index]
                return truncatedByteStrings(entry.value, path: path + "." + (entry.key.text ?? "?")).map { variant in
                    var copy = entries.map { ($0.key, $0.value) }
                    copy[index].1 = variant.item
                    return (variant.path, CBORItem.map(copy))
                }
            }
        default:
            return []
        }
    }
}
