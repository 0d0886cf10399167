import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// A fixture file that cannot be replayed at all (replay exit code 2): not JSON,
/// the wrong `format`, or a member missing or of the wrong type.
package struct FixtureError: Error, Sendable, CustomStringConvertible {
    /// The file.
    package let file: String
    /// The member that is wrong, for example `ceremonies[2].expect.outcome`.
    package let member: String
    /// What is wrong with it.
    package let reason: String

    /// `<file>: <member>: <reason>`.
    package var description: String { "\(file): \(memberAndReason)" }

    var memberAndReason: String { "\(member): \(reason)" }

    /// The bytes of a base64url member, or the error naming it.
    static func base64URL(_ text: String, file: String, member: String) throws(FixtureError) -> [UInt8] {
        do { return try Base64URL.decode(text) } catch {
            throw FixtureError(file: file, member: member, reason: "is not base64url (\(error))")
        }
    }

    /// The certificates of `policy.trustAnchors` (base64url DER), or the error naming the one
    /// that does not parse.
    static func trustAnchors(_ texts: [String], file: String) throws(FixtureError) -> [Certificate] {
        var anchors: [Certificate] = []
        for (index, text) in texts.enumerated() {
            do {
                anchors.append(try Certificate(derEncoded: try Base64URL.decode(text)[...]))
            } catch {
                throw FixtureError(
                    file: file, member: "policy.trustAnchors[\(index)]", reason: "is not a base64url DER certificate (\(error))")
            }
        }
        return anchors
    }

    /// Names the member a `DecodingError` points at.
    init(file: String, decoding error: any Error) {
        self.file = file
        guard let decodingError = error as? DecodingError else {
            member = "(file)"
            reason = "\(error)"
            return
        }
        let failure = WebAuthnJSONCoding.located(decodingError)
        if let located = failure.member {
            member = located
            reason = failure.reason
        } else {
            member = "(file)"
            reason = failure.isCorruptData ? "is not JSON (\(failure.reason))" : failure.reason
        }
    }

    init(file: String, member: String, reason: String) {
        self.file = file
        self.member = member
        self.reason = reason
    }
}

/// One `webauthn-ceremonies/1` document (see the fixture specification).
struct Fixture: Decodable {
    static let formatIdentifier = "webauthn-ceremonies/1"

    struct RelyingPartySpec: Decodable {
        var id: String
        var name: String?
        var origins: [String]
        var crossOrigin: Bool?
        var topOrigins: [String]?
        /// The `/.well-known/webauthn` document the RP ID's host serves (L3 §5.11): its origins are
        /// accepted too (checked in ``ReplaySetup``).
        var relatedOrigins: RelatedOriginsSpec?
    }

    /// The `/.well-known/webauthn` document: `{"origins": [...]}`.
    struct RelatedOriginsSpec: Decodable {
        var origins: [String]
    }

    struct PolicySpec: Decodable {
        var verificationTime: String?
        var trustAnchors: [String]?
        var requireTrustedAttestation: Bool?
        var allowCounterRegression: Bool?
        /// Seconds a challenge stays answerable after `issuedAt` (checked in ``ReplaySetup``).
        var challengeLifetime: Double?
        /// The FIDO metadata BLOB the registrations are judged with.
        var metadata: MetadataSpec?
        /// What `none` and `self` mean: `accepted`, `rejectedWhenRequested` or `rejected`; nil:
        /// `rejected` with `requireTrustedAttestation`, else `accepted`.
        var unattested: String?
        /// The FIDO conformance profile's departures from L3 (Fixtures/README.md), each nil: false.
        var userPresenceOptionalInAssertions: Bool?
        var tpmNameMayUseItsOwnAlgorithm: Bool?
        var refuseAnchorInPath: Bool?
        var fidoU2FRequiresZeroAAGUID: Bool?
        var checkTokenBindingShape: Bool?
        /// Unsigned MDS3 metadata statements (JSON objects) the registrations are judged with, as
        /// the FIDO conformance tool hands them out; not with `metadata` (Fixtures/README.md).
        var metadataStatements: [JSONValue]?
    }

    /// `policy.metadata`: an MDS3 BLOB, the root its chain must end in, CRLs, and the
    /// ``MetadataPolicy`` it is judged with (Fixtures/README.md, "Metadata policy").
    struct MetadataSpec: Decodable {
        var blob: String
        var trustAnchor: String
        var crls: [String]?
        var requireEntry: Bool?
        /// nil: true, as every file was replayed before the member existed.
        var acceptStale: Bool?
        /// nil: ``AuthenticatorStatus/compromised``.
        var refusedStatuses: [String]?
        /// A certification status such as `FIDO_CERTIFIED_L2`; nil: no minimum.
        var minimumCertificationLevel: String?
        /// The `no` of the BLOB the relying party held before this one: a lower `no` is a rollback.
        var previousNumber: Int?
        /// nil: false (a key-compromise report refuses its chains whatever came after it).
        var trustLeakedAttestationKeysAfterLaterReport: Bool?
    }

    struct CredentialSpec: Decodable {
        var id: String
        var publicKey: String
        var signCount: UInt32
        var userHandle: String?
        var backupEligible: Bool?
        var backupState: Bool?
        var transports: [String]?
    }

    var format: String
    var description: String?
    var relyingParty: RelyingPartySpec
    var policy: PolicySpec?
    var credentials: [CredentialSpec]?
    var ceremonies: [Ceremony]
}

/// One recorded ceremony: what the RP issued, what came back, and the verdict expected.
struct Ceremony: Decodable {
    /// The two passkey ceremonies a WebAuthn file holds (App Attest's are `AppCeremony`'s).
    enum Kind: String {
        case registration, authentication
    }

    enum Options {
        case registration(PublicKeyCredentialCreationOptionsJSON)
        case authentication(PublicKeyCredentialRequestOptionsJSON)

        var challenge: [UInt8] {
            switch self {
            case .registration(let o): return o.challenge.bytes
            case .authentication(let o): return o.challenge.bytes
            }
        }
    }

    /// The response, decoded from its bytes in the document by the decoder a server's body goes
    /// through (``RegistrationResponse/init(jsonData:)``, ``AuthenticationResponse/init(jsonData:)``:
    /// browser JSON or a native app's body), or why it does not decode: that is the `malformed`
    /// verdict the server gives, not a broken fixture.
    enum Response {
        case registration(RegistrationResponse)
        case authentication(AuthenticationResponse)
        case undecodable(WebAuthnError)
        /// Not read yet: ``Replayer/load(_:file:)`` reads it from the document's bytes.
        case unread

        /// Decodes `body` as the response of a `kind` ceremony, or, when it is not one, of the
        /// other kind (an assertion answering a registration challenge is a `challenge` verdict,
        /// reached by handing it to the other ceremony's finish); else the first kind's error.
        init(body: Data, kind: Kind) {
            do throws(WebAuthnError) {
                switch kind {
                case .registration: self = .registration(try RegistrationResponse(jsonData: body))
                case .authentication: self = .authentication(try AuthenticationResponse(jsonData: body))
                }
            } catch {
                switch kind {
                case .registration: self = (try? AuthenticationResponse(jsonData: body)).map(Response.authentication) ?? .undecodable(error)
                case .authentication: self = (try? RegistrationResponse(jsonData: body)).map(Response.registration) ?? .undecodable(error)
                }
            }
        }
    }

    var name: String
    var kind: Kind
    var options: Options
    var issue: Bool
    var response: Response
    var expect: Expectation
    /// When the challenge was issued (nil: `policy.verificationTime`).
    var issuedAt: Date?
    /// When the response is verified (nil: `policy.verificationTime`).
    var receivedAt: Date?
    /// Authentication: the user the RP identified before the ceremony (username-first login).
    var user: [UInt8]?

    private enum CodingKeys: String, CodingKey { case name, kind, options, issue, response, expect, issuedAt, receivedAt, user }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let kindText = try container.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: kindText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "must be \"registration\" or \"authentication\", is \"\(kindText)\"")
        }
        self.kind = kind
        issue = try container.decodeIfPresent(Bool.self, forKey: .issue) ?? true
        expect = try container.decode(Expectation.self, forKey: .expect)
        issuedAt = try FixtureTime.decodeIfPresent(container, forKey: .issuedAt)
        receivedAt = try FixtureTime.decodeIfPresent(container, forKey: .receivedAt)
        user = try Self.decodeUser(container, kind: kind)
        guard container.contains(.response) else {
            throw DecodingError.keyNotFound(CodingKeys.response, .init(codingPath: container.codingPath, debugDescription: "missing"))
        }
        // The response is not decoded here: JSONDecoder is not the decoder a server's body goes
        // through. Replayer.load hands its bytes in the document to that one (Response(body:kind:)).
        response = .unread
        switch kind {
        case .registration:
            options = .registration(try container.decode(PublicKeyCredentialCreationOptionsJSON.self, forKey: .options))
        case .authentication:
            options = .authentication(try container.decode(PublicKeyCredentialRequestOptionsJSON.self, forKey: .options))
        }
    }

    /// `user`: a base64url user handle of 1 to 64 bytes (WebAuthn L3 §5.4.3), on an authentication only.
    private static func decodeUser(
        _ container: KeyedDecodingContainer<CodingKeys>,
        kind: Kind
    ) throws -> [UInt8]? {
        guard let text = try container.decodeIfPresent(String.self, forKey: .user) else { return nil }
        guard kind == .authentication else {
            throw DecodingError.dataCorruptedError(
                forKey: .user, in: container,
                debugDescription: "is for authentication ceremonies only (a registration's user is options.user)")
        }
        let bytes: [UInt8]
        do { bytes = try Base64URL.decode(text) } catch {
            throw DecodingError.dataCorruptedError(forKey: .user, in: container, debugDescription: "is not base64url (\(error))")
        }
        guard (1...64).contains(bytes.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .user, in: container,
                debugDescription: "is \(bytes.count) bytes; a user handle is 1 to 64 bytes")
        }
        return bytes
    }
}

/// `expect.extensions`: an object of JSON values, decoded as ``JSONValue`` decodes objects
/// (member by member in name order), so a fixture with several members that do not decode
/// gets the same error on every load; a `[String: JSONValue]` member would be decoded in a
/// dictionary's order, which changes from one decode to the next (found by the `fixture`
/// fuzz target).
///
/// `"extensions": null` demands that no extension output at all is reported; a member whose
/// value is `null` (at any depth) demands that this output is not reported.
struct ExpectedExtensions: Decodable {
    var members: [String: JSONValue]
    /// `"extensions": null`: the verifier must report no extension output.
    var nothingReported = false

    init(nothingReported: Void) {
        members = [:]
        self.nothingReported = true
    }

    init(from decoder: any Decoder) throws {
        guard case .object(let members) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                [String: JSONValue].self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected an object"))
        }
        self.members = members
    }
}

/// An expectation member that may also demand absence: omitted, it is not compared; `null`,
/// the verifier must report no value; otherwise it must report this value.
enum Expected<Value: Equatable>: Equatable {
    case absent
    case value(Value)

    /// Decodes `key` of `container`: nil when omitted, ``absent`` for `null`.
    static func decode<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Expected?
    where Value: Decodable {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .absent }
        return .value(try container.decode(Value.self, forKey: key))
    }

    /// The mismatch, if any, of `actual` against this expectation, named `name`.
    func mismatch(_ name: String, _ actual: Value?, absentText: String) -> String? {
        switch (self, actual) {
        case (.absent, nil): return nil
        case (.absent, let actual?): return "\(name): expected none, got \(actual)"
        case (.value(let expected), nil): return "\(name): expected \(expected), got \(absentText)"
        case (.value(let expected), let actual?): return expected == actual ? nil : "\(name): expected \(expected), got \(actual)"
        }
    }
}

/// The verdict a ceremony is held to.
struct Expectation: Decodable {
    enum Outcome: String, Decodable { case accept, reject }

    var outcome: Outcome
    var error: WebAuthnError.Category?
    var attestationFormat: String?
    var attestationType: AttestationType?
    var trusted: Bool?
    var credentialId: String?
    var aaguid: String?
    var algorithm: Int?
    var signCount: UInt32?
    var userPresent: Bool?
    var userVerified: Bool?
    var backupEligible: Bool?
    var backupState: Bool?
    /// With `policy.metadata`: the entry's description (`null`: none, no entry or no description),
    /// as ``AttestationResult/metadataName`` reports it; never the community list's name.
    var authenticatorName: Expected<String>?
    /// Not in the specification (unknown members are ignored): the passkey provider's name the
    /// AAGUID claims in the community list, ``AttestationResult/claimedProviderName`` (`null`: none).
    var claimedProviderName: Expected<String>?
    /// Not in the specification: `authenticatorName` under the name the library and the replay's
    /// output use, ``AttestationResult/metadataName`` (`null`: none); compared the same way.
    var metadataName: Expected<String>?
    /// With `policy.metadata`: the entry's latest status (`null`: none).
    var metadataStatus: Expected<String>?
    /// With `policy.metadata`: whether the BLOB was past its nextUpdate day (accepted with `acceptStale`).
    var metadataStale: Bool?
    /// Extension outputs as verified; each member compared when present, a `null` one must be
    /// absent (ReplayExtensions.swift).
    var extensions: ExpectedExtensions?

    private enum CodingKeys: String, CodingKey {
        case outcome, error, attestationFormat, attestationType, trusted, credentialId, aaguid, algorithm, signCount
        case userPresent, userVerified, backupEligible, backupState, authenticatorName, metadataStatus, metadataStale, extensions
        case claimedProviderName, metadataName
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        outcome = try c.decode(Outcome.self, forKey: .outcome)
        error = try c.decodeIfPresent(WebAuthnError.Category.self, forKey: .error)
        attestationFormat = try c.decodeIfPresent(String.self, forKey: .attestationFormat)
        attestationType = try c.decodeIfPresent(AttestationType.self, forKey: .attestationType)
        trusted = try c.decodeIfPresent(Bool.self, forKey: .trusted)
        credentialId = try c.decodeIfPresent(String.self, forKey: .credentialId)
        aaguid = try c.decodeIfPresent(String.self, forKey: .aaguid)
        algorithm = try c.decodeIfPresent(Int.self, forKey: .algorithm)
        signCount = try c.decodeIfPresent(UInt32.self, forKey: .signCount)
        userPresent = try c.decodeIfPresent(Bool.self, forKey: .userPresent)
        userVerified = try c.decodeIfPresent(Bool.self, forKey: .userVerified)
        backupEligible = try c.decodeIfPresent(Bool.self, forKey: .backupEligible)
        backupState = try c.decodeIfPresent(Bool.self, forKey: .backupState)
        authenticatorName = try Expected.decode(c, .authenticatorName)
        claimedProviderName = try Expected.decode(c, .claimedProviderName)
        metadataName = try Expected.decode(c, .metadataName)
        metadataStatus = try Expected.decode(c, .metadataStatus)
        metadataStale = try c.decodeIfPresent(Bool.self, forKey: .metadataStale)
        if c.contains(.extensions), try c.decodeNil(forKey: .extensions) {
            extensions = ExpectedExtensions(nothingReported: ())
        } else {
            extensions = try c.decodeIfPresent(ExpectedExtensions.self, forKey: .extensions)
        }
    }

    /// `accept` or `reject(<error>)`.
    var summary: String {
        switch outcome {
        case .accept: return "accept"
        case .reject: return error.map { "reject(\($0.rawValue))" } ?? "reject"
        }
    }
}

/// Just enough of a document to route it to its replay: its top-level member names and the kinds
/// of its ceremonies. A document that does not decode this far is left to the WebAuthn path.
struct DocumentProbe: Decodable {
    var members: Set<String>
    var kinds: [String]

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    private struct KindOnly: Decodable { var kind: String? }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        members = Set(container.allKeys.map(\.stringValue))
        let ceremonies = AnyKey(stringValue: "ceremonies")
        kinds = ((try? container.decodeIfPresent([KindOnly].self, forKey: ceremonies)) ?? nil)?.compactMap(\.kind) ?? []
    }

    /// The probe of `data`, nil when it is not a JSON object.
    static func of(_ data: Data) -> DocumentProbe? { try? JSONDecoder().decode(DocumentProbe.self, from: data) }
}

/// The verdict part of an app-integrity ceremony's expectation (App Attest, Android key
/// attestation): accept, or reject with a category. The facts an accepted ceremony must show are
/// each file kind's own.
protocol VerdictExpectation {
    var outcome: Expectation.Outcome { get }
    var error: WebAuthnError.Category? { get }
}

extension VerdictExpectation {
    /// `accept` or `reject(<error>)`.
    var summary: String {
        switch outcome {
        case .accept: return "accept"
        case .reject: return error.map { "reject(\($0.rawValue))" } ?? "reject"
        }
    }

    /// The ceremony's result: `rejection` (nil when it was accepted) held to the expected outcome
    /// and error, with the mismatches already found in an accepted ceremony's facts.
    func result(
        file: String, name: String, rejection: WebAuthnError?, factMismatches: [String], trace: CeremonyTrace
    ) -> CeremonyResult {
        var mismatches = factMismatches
        if let rejection {
            if outcome == .accept {
                mismatches.append("expected accept, got \(rejection)")
            } else if let mismatch = Self.mismatch("error", error, rejection.category) {
                mismatches.append(mismatch)
            }
        } else if outcome == .reject {
            mismatches.append("expected \(summary), got accept")
        }
        return CeremonyResult(
            file: file, name: name, expected: summary, actual: rejection.map { "reject(\($0.category.rawValue))" } ?? "accept",
            passed: mismatches.isEmpty, mismatches: mismatches, error: rejection, trace: trace)
    }

    /// `<name>: expected …, got …` when a value is expected and differs, else nil.
    static func mismatch<T: Equatable>(_ name: String, _ expected: T?, _ actual: T?) -> String? {
        guard let expected, expected != actual else { return nil }
        return "\(name): expected \(expected), got \(actual.map { "\($0)" } ?? "none")"
    }
}
