import Foundation
import Testing
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnTestSupport

@testable import WebAuthnRP

/// What an iOS app posts after a registration, encoded with `JSONEncoder` straight from the
/// properties of `ASAuthorizationPlatformPublicKeyCredentialRegistration`.
struct AppRegistrationBody: Encodable {
    var credentialID: Data
    var rawClientDataJSON: Data
    var rawAttestationObject: Data
    var transports: [String]?
    var attachment: String?
}

/// What an iOS app posts after a login (`ASAuthorizationPlatformPublicKeyCredentialAssertion`).
struct AppAssertionBody: Encodable {
    var credentialID: Data
    var rawClientDataJSON: Data
    var rawAuthenticatorData: Data
    var signature: Data
    var userID: Data?
}

extension NativeClientTests.Finish: Encodable where Credential: Encodable {}
extension NativeClientTests.Finish: Decodable where Credential: Decodable {}

/// Native apps through the one front door: raw credential fields and the app's own JSON body
/// enter the same `finish…` as browser JSON, with every challenge mode and the recording observer.
@Suite("Native app clients")
struct NativeClientTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    enum Mode: String, CaseIterable, Sendable { case stored, sealed, fromClientData }

    func service(_ mode: Mode) throws -> RelyingPartyService { try CeremonyFixture.service(sealed: mode == .sealed) }

    func challenge(_ given: CeremonyChallenge, _ mode: Mode) -> CeremonyChallenge {
        mode == .fromClientData ? .fromClientData : given
    }

    /// A registration's raw fields, as the app has them.
    func app(_ response: RegistrationResponse) -> AppRegistrationBody {
        AppRegistrationBody(
            credentialID: Data(response.rawId), rawClientDataJSON: Data(response.clientDataJSON),
            rawAttestationObject: Data(response.attestationObject))
    }

    func app(_ response: AuthenticationResponse) -> AppAssertionBody {
        AppAssertionBody(
            credentialID: Data(response.rawId), rawClientDataJSON: Data(response.clientDataJSON),
            rawAuthenticatorData: Data(response.authenticatorData), signature: Data(response.signature),
            userID: response.userHandle.map { Data($0) })
    }

    @Test(
        "raw fields register and log in through finish with every challenge mode; the id is derived; both are recorded",
        arguments: Mode.allCases)
    func rawFields(mode: Mode) async throws {
        let service = try service(mode)
        var authenticator = try TestAuthenticator(credentialId: Array(200..<232))
        let start = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        let made = try authenticator.register(challenge: start.options.challenge.bytes)
        let raw = RegistrationResponse(
            rawId: made.rawId, clientDataJSON: made.clientDataJSON,
            attestationObject: made.attestationObject)
        #expect(raw.id == Base64URL.encode(Array(200..<232)))
        let observer = KeptRecording()
        let registered = try await service.finishRegistration(
            raw, challenge: challenge(start.challenge, mode), now: now,
            observer: observer)
        #expect(registered.record.id == Array(200..<232) && registered.record.userHandle == Array("user-a".utf8))
        let recorded = try #require(observer.recording)
        guard case .accepted = recorded.verdict else { Issue.record("registration recorded as \(recorded.verdict)"); return }
        #expect(recorded.response["id"] == .string(raw.id))

        let login = try await service.beginAuthentication(now: now)
        let asserted = try authenticator.authenticate(challenge: login.options.challenge.bytes)
        let rawAssertion = AuthenticationResponse(
            rawId: asserted.rawId, clientDataJSON: asserted.clientDataJSON,
            authenticatorData: asserted.authenticatorData, signature: asserted.signature,
            userHandle: asserted.userHandle)
        #expect(rawAssertion.id == raw.id)
        let verified = try await service.finishAuthentication(
            rawAssertion, challenge: challenge(login.challenge, mode), now: now,
            observer: observer)
        #expect(verified.updatedRecord.id == registered.record.id)
        let loginRecording = try #require(observer.recording)
        guard case .accepted = loginRecording.verdict else { Issue.record("login recorded as \(loginRecording.verdict)"); return }
        #expect(loginRecording.kind == .authentication && loginRecording.response["id"] == .string(raw.id))
    }

    /// A registration begun on a service of `mode`, with an authenticator whose credential id's
    /// standard base64 has '+' and '/' (escaped "\/" by JSONEncoder) and padding, and the app's
    /// body for its answer.
    func appRegistration(
        _ mode: Mode, transports: [String], attachment: String? = nil
    ) async throws -> (RelyingPartyService, TestAuthenticator, CeremonyChallenge, AppRegistrationBody) {
        let service = try service(mode)
        let authenticator = try TestAuthenticator(credentialId: [0xFB, 0xFF, 0xBF, 0x3E, 0x01])
        let start = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        var body = app(try authenticator.register(challenge: start.options.challenge.bytes))
        body.transports = transports
        body.attachment = attachment
        return (service, authenticator, start.challenge, body)
    }

    @Test(
        "the body an app writes with JSONEncoder (standard base64, escaped slashes) finishes like browser JSON",
        arguments: Mode.allCases)
    func jsonEncoderBody(mode: Mode) async throws {
        var (service, authenticator, started, body) = try await appRegistration(
            mode, transports: ["internal", "hybrid"], attachment: "platform")
        let encoded = try JSONEncoder().encode(body)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""credentialID":"+\/+\/PgE=""#))
        let response = try RegistrationResponse(jsonData: encoded)
        #expect(response.id == Base64URL.encode([0xFB, 0xFF, 0xBF, 0x3E, 0x01]) && response.transports == ["internal", "hybrid"])
        let registered = try await service.finishRegistration(response, challenge: challenge(started, mode), now: now)
        #expect(registered.record.transports == ["internal", "hybrid"])

        let login = try await service.beginAuthentication(now: now)
        let assertion = app(try authenticator.authenticate(challenge: login.options.challenge.bytes))
        let decoded = try AuthenticationResponse(jsonData: try JSONEncoder().encode(assertion))
        #expect(decoded.userHandle == Array("user-a".utf8) && decoded.id == response.id)
        _ = try await service.finishAuthentication(decoded, challenge: challenge(login.challenge, mode), now: now)

        // userID absent (an authenticator that returned none): decoded as none, refused as userHandle by the discoverable login.
        let again = try await service.beginAuthentication(now: now)
        var withoutUser = app(try authenticator.authenticate(challenge: again.options.challenge.bytes))
        withoutUser.userID = nil
        let noUser = try AuthenticationResponse(jsonData: try JSONEncoder().encode(withoutUser))
        #expect(noUser.userHandle == nil)
        await #expect(throws: WebAuthnError(.userHandle, "")) {
            _ = try await service.finishAuthentication(noUser, challenge: challenge(again.challenge, mode), now: now)
        }
    }

    /// The finish body of an app that keeps its ceremony state: the credential is one member.
    struct Finish<Credential> { var state: String; var credential: Credential }

    @Test(
        "a credential inside a larger body decodes with JSONDecoder in the app's form and the browser's, and finishes",
        arguments: Mode.allCases)
    func envelope(mode: Mode) async throws {
        var (service, authenticator, started, body) = try await appRegistration(mode, transports: ["internal"])
        let appBody = try JSONEncoder().encode(Finish(state: "s1", credential: body))
        let decoded = try JSONDecoder().decode(Finish<RegistrationResponse>.self, from: appBody)
        #expect(decoded.state == "s1" && decoded.credential.id == Base64URL.encode([0xFB, 0xFF, 0xBF, 0x3E, 0x01]))
        #expect(decoded.credential.transports == ["internal"])
        let registered = try await service.finishRegistration(decoded.credential, challenge: challenge(started, mode), now: now)
        #expect(registered.record.id == [0xFB, 0xFF, 0xBF, 0x3E, 0x01])

        // Credential Manager's answer is browser JSON, put whole into the body.
        let login = try await service.beginAuthentication(now: now)
        let browser = try authenticator.authenticateJSON(challenge: login.options.challenge.bytes).jsonData()
        let browserBody = Data(#"{"credential":"#.utf8) + browser + Data(#","state":"s2"}"#.utf8)
        let assertion = try JSONDecoder().decode(Finish<AuthenticationResponse>.self, from: browserBody).credential
        #expect(try AuthenticationResponse(jsonData: browser).signature == assertion.signature)
        _ = try await service.finishAuthentication(assertion, challenge: challenge(login.challenge, mode), now: now)

        // The app's assertion form inside the body.
        let again = try await service.beginAuthentication(now: now)
        let appAssertion = app(try authenticator.authenticate(challenge: again.options.challenge.bytes))
        let appLogin = try JSONEncoder().encode(Finish(state: "s3", credential: appAssertion))
        let fromApp = try JSONDecoder().decode(Finish<AuthenticationResponse>.self, from: appLogin).credential
        #expect(fromApp.userHandle == Array("user-a".utf8))
        _ = try await service.finishAuthentication(fromApp, challenge: challenge(again.challenge, mode), now: now)
    }

    @Test("a malformed credential inside a larger body is the library's malformed error, as from the whole body")
    func envelopeRefusals() throws {
        let valid = try registrationObject()
        for (change, expected) in [
            ({ (object: inout [String: JSONValue]) in object["rawClientDataJSON"] = .string("ab!d") }, "rawClientDataJSON"),
            ({ (object: inout [String: JSONValue]) in object["id"] = .string("AAAA") }, "unknown member"),
            ({ (object: inout [String: JSONValue]) in object["rawAttestationObject"] = nil }, "rawAttestationObject is missing"),
        ] {
            var object = valid
            change(&object)
            let body = try JSONEncoder().encode(Finish(state: "s", credential: JSONValue.object(object)))
            let error = #expect(throws: WebAuthnError.self) { try JSONDecoder().decode(Finish<RegistrationResponse>.self, from: body) }
            #expect(error?.category == .malformed && error?.message.contains(expected) == true, "\(String(describing: error))")
        }
        // Browser JSON whose member is not base64url, inside the body.
        let browser = #"{"credential":{"id":"AA","rawId":"A*","type":"public-key","response":{}},"state":"s"}"#
        let error = #expect(throws: WebAuthnError.self) {
            try JSONDecoder().decode(Finish<AuthenticationResponse>.self, from: Data(browser.utf8))
        }
        #expect(error?.category == .malformed && error?.message.contains("rawId") == true)
        // A credential that is not an object is not a response either.
        let array = Data(#"{"state":"s","credential":[1]}"#.utf8)
        #expect(throws: WebAuthnError(.malformed, "")) { try JSONDecoder().decode(Finish<RegistrationResponse>.self, from: array) }
    }

    /// A valid app registration body as a JSON object, for editing.
    func registrationObject() throws -> [String: JSONValue] {
        let authenticator = try TestAuthenticator()
        let body = app(try authenticator.register(challenge: Array(repeating: 0xA1, count: 32)))
        return try #require(try JSONValue(jsonData: try JSONEncoder().encode(body)).objectValue)
    }

    func text(_ object: [String: JSONValue]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(JSONValue.object(object))
    }

    @Test("every malformed app body is refused as malformed, naming what failed")
    func rejections() throws {
        let valid = try registrationObject()
        _ = try RegistrationResponse(jsonData: try text(valid))
        func refused(
            _ change: (inout [String: JSONValue]) -> Void, _ expected: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            var object = valid
            change(&object)
            let data = try text(object)
            do {
                _ = try RegistrationResponse(jsonData: data)
                Issue.record("accepted \(String(decoding: data, as: UTF8.self).prefix(200))", sourceLocation: sourceLocation)
            } catch {
                #expect(error.category == .malformed, sourceLocation: sourceLocation)
                #expect(error.message.contains(expected), "\(error.message)", sourceLocation: sourceLocation)
            }
        }
        let id = Data(Array(0..<32))  // standard base64 "AAECAwQF…Hh8=" ends in padding
        try refused(
            { $0["credentialID"] = .string(id.base64EncodedString().replacingOccurrences(of: "=", with: "")) },
            "not padded standard base64")
        try refused({ $0["credentialID"] = .string(Base64URL.encode([0xFB, 0xFF, 0xBF]) + "") }, "base64url, not standard")
        try refused({ $0["rawClientDataJSON"] = .string("ab!d") }, "rawClientDataJSON: not standard base64")
        try refused({ $0["credentialID"] = .string("AAB=") }, "credentialID: not standard base64")  // non-zero trailing bits
        try refused({ $0["credentialID"] = .string(Data(repeating: 7, count: 1024).base64EncodedString()) }, "1024 bytes")
        try refused({ $0["credentialID"] = .string("") }, "0 bytes")
        try refused({ $0["rawAttestationObject"] = nil }, "rawAttestationObject is missing")
        try refused({ $0["rawClientDataJSON"] = .number(1) }, "rawClientDataJSON is not a string")
        try refused({ $0["id"] = .string("AAAA") }, "unknown member \"id\"")
        try refused({ $0["attachment"] = .string("phone") }, "attachment")
        try refused({ $0["transports"] = .array(Array(repeating: .string("usb"), count: 17)) }, "transports")
        try refused({ $0["transports"] = .array([.string(String(repeating: "u", count: 65))]) }, "transports[0]")
        // A member given twice (JSONEncoder cannot write it; a hand-made body can).
        let twice = String(decoding: try text(valid), as: UTF8.self)
            .replacingOccurrences(of: "{", with: #"{"credentialID":"AAAA","#)
        #expect(throws: WebAuthnError(.malformed, "")) { try RegistrationResponse(jsonData: Data(twice.utf8)) }
        // A body over the size bound.
        var huge = valid
        huge["rawAttestationObject"] = .string(Data(repeating: 1, count: 800_000).base64EncodedString())
        #expect(throws: WebAuthnError(.malformed, "")) { try RegistrationResponse(jsonData: try text(huge)) }
    }

    @Test("an assertion body without a required member or with an unknown one is refused as malformed")
    func assertionRejections() throws {
        var authenticator = try TestAuthenticator()
        let body = app(try authenticator.authenticate(challenge: Array(repeating: 0xA2, count: 32)))
        let object = try #require(try JSONValue(jsonData: try JSONEncoder().encode(body)).objectValue)
        for name in ["credentialID", "rawClientDataJSON", "rawAuthenticatorData", "signature"] {
            var missing = object
            missing[name] = nil
            #expect(throws: WebAuthnError(.malformed, ""), "\(name)") { try AuthenticationResponse(jsonData: try text(missing)) }
        }
        var unknown = object
        unknown["rawAttestationObject"] = .string("AAAA")
        #expect(throws: WebAuthnError(.malformed, "")) { try AuthenticationResponse(jsonData: try text(unknown)) }
        var badUser = object
        badUser["userID"] = .string("dXNlci1h")  // base64url of "user-a" happens to be valid standard base64 too
        #expect(try AuthenticationResponse(jsonData: try text(badUser)).userHandle == Array("user-a".utf8))
        badUser["userID"] = .string("dXNlci1h_A==")
        #expect(throws: WebAuthnError(.malformed, "")) { try AuthenticationResponse(jsonData: try text(badUser)) }
    }

    @Test("browser JSON that names credentialID inside an extension output is still browser JSON")
    func browserBodyNamingCredentialID() async throws {
        let service = try service(.stored)
        let authenticator = try TestAuthenticator()
        let start = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        var json = try authenticator.registerJSON(challenge: start.options.challenge.bytes)
        json.clientExtensionResults = ["vendor": .object(["nested": .object(["credentialID": .string("x")])])]
        // An escaped character: not the plain fast path.
        let text = String(decoding: try json.jsonData(), as: UTF8.self)
            .replacingOccurrences(of: #""public-key""#, with: #""public\u002dkey""#)
        #expect(text.contains("\\u002d") && text.contains(#""credentialID""#))
        let response = try RegistrationResponse(jsonData: Data(text.utf8))
        #expect(response.id == json.id)
        _ = try await service.finishRegistration(response, challenge: start.challenge, now: now)
    }

    @Test("an id given by the caller that is not the base64url of rawId is refused as malformed at finish")
    func mismatchedID() async throws {
        let service = try service(.stored)
        let authenticator = try TestAuthenticator()
        let start = try await service.beginRegistration(RegistrationRequest(user: user), now: now)
        let made = try authenticator.register(challenge: start.options.challenge.bytes)
        let wrong = RegistrationResponse(
            id: made.id + "A", rawId: made.rawId, clientDataJSON: made.clientDataJSON,
            attestationObject: made.attestationObject)
        await #expect(throws: WebAuthnError(.malformed, "")) {
            _ = try await service.finishRegistration(wrong, challenge: start.challenge, now: now)
        }
    }
}

/// A relying party with native apps is checked when it is built.
@Suite("Native app origins at start-up")
struct NativeAppStartupTests {
    let apple = AppleApp(teamId: "ABCDE12345", bundleId: "com.example.app")

    @Test("Apple apps need https://<rp id> among the origins: www. or login. under an apex RP ID fails to build")
    func appleOrigin() throws {
        for site in ["https://www.example.org", "https://login.example.org"] {
            do {
                _ = try RelyingParty(id: "example.org", origins: [site], appleApps: [apple])
                Issue.record("\(site) built")
            } catch {
                #expect(
                    error.category == .configuration && error.message.contains("https://example.org")
                        && error.message.contains("ABCDE12345.com.example.app"))
            }
        }
        let rp = try RelyingParty(id: "example.org", origins: ["https://www.example.org", "https://example.org"], appleApps: [apple])
        #expect(
            try JSONDecoder().decode([String: [String: [String]]].self, from: try rp.appleAppSiteAssociation())
                == ["webcredentials": ["apps": ["ABCDE12345.com.example.app"]]])
        // No Apple app, no requirement; a malformed app ID fails to build too.
        _ = try RelyingParty(id: "example.org", origins: ["https://www.example.org"], appleApps: [])
        #expect(throws: WebAuthnError(.configuration, "")) {
            try RelyingParty(id: "example.org", origins: ["https://example.org"], appleApps: [AppleApp(teamId: "short", bundleId: "a")])
        }
    }

    @Test("a declared Android app's origin is accepted, and assetlinks.json lists the declared apps")
    func androidOrigin() throws {
        let android = try AndroidApp(packageName: "com.example.app", sha256Fingerprint: String(repeating: "0F:", count: 31) + "0F")
        let rp = try RelyingParty(id: "example.org", origins: ["https://example.org"], appleApps: [], androidApps: [android])
        #expect(rp.origins == ["https://example.org", android.origin])
        #expect(rp.isAllowedOrigin(android.origin))
        let links = String(decoding: try rp.assetLinks(), as: UTF8.self)
        #expect(links.contains("\"package_name\" : \"com.example.app\"") && links.contains(android.sha256Fingerprint))
        // Declared twice (already listed): not added again.
        let listed = try RelyingParty(
            id: "example.org", origins: ["https://example.org", android.origin], appleApps: [],
            androidApps: [android])
        #expect(listed.origins.count == 2)
    }

    @Test("an Android app's ceremony is accepted by the relying party that declares it, and refused without")
    func androidCeremony() throws {
        let android = try AndroidApp(packageName: "com.example.app", sha256Fingerprint: String(repeating: "0F:", count: 31) + "0F")
        var authenticator = try TestAuthenticator()
        authenticator.origin = android.origin
        let issued = CeremonyFixture.registrationChallenge()
        let response = try authenticator.register(challenge: issued.challenge)
        let declared = try RelyingParty(id: "example.org", origins: ["https://example.org"], appleApps: [], androidApps: [android])
        _ = try #require(CeremonyFixture.register(response, issued: issued, relyingParty: declared).accepted())
        #expect(throws: WebAuthnError(.origin, "")) { try CeremonyFixture.register(response, issued: issued).result.get() }
    }
}

/// Passkey provider names from the community AAGUID list.
@Suite("Passkey provider names")
struct PasskeyProviderTests {
    let icloud = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
    let google = "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4"

    func record(_ aaguid: String, attestationType: AttestationType = .none) throws -> CredentialRecord {
        CredentialRecord(id: [1, 2, 3], publicKey: [], signCount: 0, userHandle: nil, aaguid: aaguid, attestationType: attestationType)
    }

    @Test("the snapshot names the common providers; an unknown or zero AAGUID has no name")
    func snapshot() throws {
        let providers = PasskeyProviders.snapshot
        #expect(providers.name(for: try record(google)) == "Google Password Manager")
        #expect(providers.name(for: try record(icloud.uppercased())) == "Apple Passwords")
        #expect(providers.name(for: try record("00000000-0000-0000-0000-000000000000")) == nil)
        #expect(providers.name(for: try record("01234567-89ab-cdef-0123-456789abcdef")) == nil)
        #expect(providers.names.count == PasskeyProviders.snapshotEntries.count)
    }

    @Test("with FIDO metadata configured, the statement's description names an attested record; the list names the rest")
    func metadataWins() throws {
        let mds = try TestMetadataService.make(seed: "passkey provider names")
        let entry = TestMetadataService.Entry(aaguid: google, description: "Signed Name")
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [entry.json]))
        let metadata = MetadataTrust(blob: try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: CeremonyFixture.now))
        #expect(PasskeyProviders.snapshot.name(for: try record(google, attestationType: .self), metadata: metadata) == "Signed Name")
        #expect(PasskeyProviders.snapshot.name(for: try record(icloud), metadata: metadata) == "Apple Passwords")
        // Registered with `none`: the AAGUID is a claim and chooses no metadata name.
        #expect(PasskeyProviders.snapshot.name(for: try record(google), metadata: metadata) == "Google Password Manager")
    }

    @Test("registration reports the metadata name and the list's claimed name apart; a none attestation has no metadata name")
    func registrationMetadataWins() throws {
        let mds = try TestMetadataService.make(seed: "passkey provider names at registration")
        var entry = TestMetadataService.Entry(aaguid: google, description: "Signed Name")
        entry.attestationTypes = ["basic_full", "basic_surrogate", "none"]
        let text = try mds.blob(payload: try TestMetadataService.payload(entries: [entry.json], nextUpdate: "2099-01-01"))
        let metadata = MetadataTrust(blob: try MetadataBLOB(jws: text.utf8, trustAnchor: mds.root.certificate, at: CeremonyFixture.now))
        let policy = VerificationPolicy(attestation: AttestationPolicy(source: metadata))
        var authenticator = try TestAuthenticator()
        authenticator.aaguid = try #require(AAGUID(uuidString: google)).bytes
        // Self attestation: the statement signs the authenticator data and its AAGUID.
        let issued = CeremonyFixture.registrationChallenge()
        var options = TestAuthenticator.RegistrationOptions()
        options.attestation = .packedSelf
        let attested = try authenticator.register(challenge: issued.challenge, options)
        let verified = try #require(CeremonyFixture.register(attested, issued: issued, policy: policy).accepted())
        #expect(verified.attestation.metadataName == "Signed Name")
        #expect(verified.attestation.claimedProviderName == "Google Password Manager")
        // `none`: the AAGUID is the client's claim; the entry it names gives no metadata name.
        let unattested = try authenticator.register(challenge: issued.challenge)
        let claimed = try #require(CeremonyFixture.register(unattested, issued: issued, policy: policy).accepted())
        #expect(claimed.attestation.metadataName == nil)
        #expect(claimed.attestation.claimedProviderName == "Google Password Manager")
    }

    @Test("a newer file replaces the snapshot; its icons are ignored")
    func newerFile() throws {
        let file =
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "New Vault", "icon_dark": "data:image/svg+xml;base64,AA=="},"#
            + #" "\#(google)": {"name": "Google Password Manager (renamed)"}}"#
        let providers = try PasskeyProviders(jsonData: Data(file.utf8))
        #expect(providers.name(for: try record("01234567-89ab-cdef-0123-456789abcdef")) == "New Vault")
        #expect(providers.name(for: try record(google)) == "Google Password Manager (renamed)")
        #expect(providers.name(for: try record(icloud)) == nil)
    }

    @Test("a file that is not the list's shape is refused as malformed")
    func refusals() {
        let bad = [
            #"[]"#, #"{}"#, #"{"not-an-aaguid": {"name": "X"}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"icon_dark": "x"}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": ""}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": 3}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "\#(String(repeating: "n", count: 257))"}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "A"}, "01234567-89AB-CDEF-0123-456789ABCDEF": {"name": "B"}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "A"}, "01234567-89ab-cdef-0123-456789abcdef": {"name": "B"}}"#,
            #"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "A", "x": {"deep": 1}}}"#,
        ]
        for text in bad {
            #expect(throws: WebAuthnError(.malformed, ""), "\(text.prefix(80))") { try PasskeyProviders(jsonData: Data(text.utf8)) }
        }
        let oversize =
            Data(#"{"01234567-89ab-cdef-0123-456789abcdef": {"name": "A", "icon_dark": ""#.utf8)
            + Data(repeating: 0x41, count: 8 << 20) + Data(#""}}"#.utf8)
        #expect(throws: WebAuthnError(.malformed, "")) { try PasskeyProviders(jsonData: oversize) }
    }

    @Test("registration names the provider from the policy's list, a newer list replacing the snapshot")
    func registrationName() throws {
        var authenticator = try TestAuthenticator()
        authenticator.aaguid = try #require(AAGUID(uuidString: google)).bytes
        let issued = CeremonyFixture.registrationChallenge()
        let response = try authenticator.register(challenge: issued.challenge)
        let named = try #require(CeremonyFixture.register(response, issued: issued).accepted())
        #expect(named.attestation.claimedProviderName == "Google Password Manager")
        #expect(named.attestation.metadataName == nil)
        let policy = VerificationPolicy(
            passkeyProviders: try PasskeyProviders(jsonData: Data(#"{"\#(icloud)": {"name": "Other"}}"#.utf8)))
        let unnamed = try #require(CeremonyFixture.register(response, issued: issued, policy: policy).accepted())
        #expect(unnamed.attestation.claimedProviderName == nil)
    }
}
