import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// What a server writing against the library needs without writing around it: storable
/// records, short default algorithms, transports kept, user handles, client-safe errors and a
/// challenge store that forgets expired challenges as time passes.
@Suite("What a server needs")
struct ServerIntegrationTests {
    let now = CeremonyFixture.now
    let user = PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array("user-a".utf8)), name: "ada", displayName: "Ada")

    // MARK: Records

    @Test("a record encodes its bytes as base64url text and decodes back to the same record")
    func recordJSON() throws {
        let record = CredentialRecord(
            id: [0xFB, 0xFF, 0x01], publicKey: [0xA5, 0x01, 0x02], signCount: 7,
            userHandle: Array("user-a".utf8), uvInitialized: true, transports: ["usb"],
            attestationObject: [0xA3], registrationClientDataJSON: Array("{}".utf8))
        let data = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["id"] as? String == "-_8B")
        #expect(object["publicKey"] as? String == "pQEC")
        #expect(object["userHandle"] as? String == "dXNlci1h")
        #expect(object["attestationObject"] as? String == "ow")
        #expect(try JSONDecoder().decode(CredentialRecord.self, from: data) == record)
    }

    @Test("a record written with bytes as arrays of numbers, and without later members, still decodes")
    func legacyRecordJSON() throws {
        let legacy = Data(
            """
            {"id":[251,255,1],"publicKey":[165,1,2],"algorithm":-7,"signCount":3,"userHandle":[117,115,101,114],
             "uvInitialized":false,"backupEligible":true,"backupState":false,"transports":["internal"],
             "aaguid":"00000000-0000-0000-0000-000000000000","attestationFormat":"none","attestationType":"none",
             "attestationTrusted":false}
            """.utf8)
        let record = try JSONDecoder().decode(CredentialRecord.self, from: legacy)
        #expect(record.id == [251, 255, 1])
        #expect(record.publicKey == [165, 1, 2])
        #expect(record.userHandle == Array("user".utf8))
        #expect(record.backupEligible && record.transports == ["internal"])
        #expect(record.attestationObject == nil)
        let minimal = Data(#"{"id":"AQ","publicKey":"Ag","algorithm":-8,"signCount":0}"#.utf8)
        let sparse = try JSONDecoder().decode(CredentialRecord.self, from: minimal)
        #expect(sparse.userHandle == nil && sparse.aaguid == "00000000-0000-0000-0000-000000000000")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CredentialRecord.self, from: Data(#"{"id":"A+","publicKey":"Ag","algorithm":-8,"signCount":0}"#.utf8))
        }
    }

    @Test("a record's algorithm is its key's alg: read from the key, never from a stored member that disagrees")
    func recordAlgorithmFromKey() throws {
        let authenticator = try TestAuthenticator(key: .es256)
        var record = authenticator.record()
        #expect(record.algorithm == -7)
        let data = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["algorithm"] as? Int == -7)  // still written, for earlier readers
        var edited = object
        edited["algorithm"] = -8  // a row whose member disagrees with its key
        let decoded = try JSONDecoder().decode(CredentialRecord.self, from: JSONSerialization.data(withJSONObject: edited))
        #expect(decoded.algorithm == -7 && decoded == record)
        record.publicKey = [0xA1, 0x01, 0x02]  // {1: 2}: no alg
        #expect(record.algorithm == 0)
    }

    // MARK: Options

    @Test("registration offers EdDSA, ES256 and RS256 by default, less what the policy refuses, and accepts only those")
    func defaultAlgorithms() async throws {
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        #expect(options.pubKeyCredParams.map(\.alg) == [-8, -7, -257])
        let es384 = try TestAuthenticator(key: .es384)
        await #expect(throws: WebAuthnError(.algorithm, "")) {
            _ = try await service.finishRegistration(try es384.register(challenge: options.challenge.bytes), now: now)
        }
        let narrow = RelyingPartyService(
            relyingParty: CeremonyFixture.relyingParty,
            policy: VerificationPolicy(acceptedAlgorithms: [.es256, .ps256]))
        #expect(try await narrow.beginRegistration(RegistrationRequest(user: user), now: now).options.pubKeyCredParams.map(\.alg) == [-7])
        #expect(
            try await narrow.beginRegistration(RegistrationRequest(user: user, algorithms: [.ps256, .es256]), now: now).options
                .pubKeyCredParams.map(\.alg) == [-37, -7])
        await #expect(throws: WebAuthnError(.algorithm, "")) {
            _ = try await narrow.beginRegistration(RegistrationRequest(user: user, algorithms: [.edDSA]), now: now).options
        }
    }

    @Test("the request builders carry every option member, and the issued challenge remembers what was asked")
    func builders() async throws {
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        var request = RegistrationRequest(user: user)
        request.authenticatorAttachment = .platform
        request.residentKey = .required
        request.userVerification = .required
        request.attestation = .direct
        request.attestationFormats = ["packed", "tpm"]
        request.hints = [.clientDevice]
        request.timeout = 120_000
        request.algorithms = [.es256]
        let options = try await service.beginRegistration(request, now: now).options
        #expect(
            options.authenticatorSelection
                == AuthenticatorSelectionCriteria(
                    authenticatorAttachment: .platform,
                    residentKey: .required, requireResidentKey: true,
                    userVerification: .required))
        #expect(options.attestation == .direct && options.attestationFormats == ["packed", "tpm"])
        #expect(options.hints == [.clientDevice] && options.timeout == 120_000)
        #expect(options.pubKeyCredParams.map(\.alg) == [-7])
        let issued = try #require(try await service.challengeStore?.consume(options.challenge.bytes))
        #expect(issued.userVerification == .required && issued.offeredAlgorithms == [.es256] && issued.attestation == .direct)

        var authenticator = try TestAuthenticator()
        let registration = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        _ = try await service.finishRegistration(try authenticator.register(challenge: registration.challenge.bytes), now: now)
        var notExcluding = RegistrationRequest(user: user)
        notExcluding.excludeExistingCredentials = false
        #expect(try await service.beginRegistration(notExcluding, now: now).options.excludeCredentials.isEmpty)

        let login = try await service.beginAuthentication(
            AuthenticationRequest(
                userHandle: Array("user-a".utf8), userVerification: .required, hints: [.securityKey],
                timeout: 30_000), now: now
        ).options
        #expect(login.allowCredentials?.map(\.id.bytes) == [authenticator.credentialId])
        #expect(login.userVerification == .required && login.hints == [.securityKey] && login.timeout == 30_000)
        let assertion = try authenticator.authenticate(challenge: login.challenge.bytes)
        _ = try await service.finishAuthentication(assertion, challenge: .session(login.challenge.bytes), now: now)
    }

    @Test("excludeCredentials keeps each credential's transports, as allowCredentials does")
    func excludeTransports() async throws {
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        var authenticator = try TestAuthenticator()
        authenticator.transports = ["usb", "nfc"]
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        _ = try await service.finishRegistration(try authenticator.register(challenge: options.challenge.bytes), now: now)
        let again = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        #expect(again.excludeCredentials.first?.transports?.map(\.rawValue) == ["usb", "nfc"])
        let login = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("user-a".utf8)), now: now).options
        #expect(login.allowCredentials?.first?.transports?.map(\.rawValue) == ["usb", "nfc"])
    }

    @Test("allowCredentials the caller already read are used as given: no store read, and a credential outside them is refused")
    func callerSuppliedAllowCredentials() async throws {
        let store = UserListingCountingStore()
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty, credentials: store)
        var listed = try TestAuthenticator(), other = try TestAuthenticator(credentialId: Array(32..<64))
        for authenticator in [listed, other] {
            let authenticator = authenticator
            let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
            _ = try await service.finishRegistration(try authenticator.register(challenge: options.challenge.bytes), now: now)
        }
        let stored = try #require(try await store.credential(id: listed.credentialId))
        let readsBefore = store.userListings
        let login = try await service.beginAuthentication(
            AuthenticationRequest(userHandle: Array("user-a".utf8), allowCredentials: [PublicKeyCredentialDescriptorJSON(stored)]),
            now: now
        ).options
        #expect(store.userListings == readsBefore)
        #expect(login.allowCredentials?.map(\.id.bytes) == [listed.credentialId])
        _ = try await service.finishAuthentication(
            try listed.authenticate(challenge: login.challenge.bytes),
            challenge: .session(login.challenge.bytes), now: now)

        let again = try await service.beginAuthentication(
            AuthenticationRequest(userHandle: Array("user-a".utf8), allowCredentials: [PublicKeyCredentialDescriptorJSON(stored)]),
            now: now
        ).options
        let error = await #expect(throws: WebAuthnError.self) {
            _ = try await service.finishAuthentication(
                try other.authenticate(challenge: again.challenge.bytes),
                challenge: .session(again.challenge.bytes), now: now)
        }
        #expect(error?.category == .unknownCredential)
    }

    /// A request body that carries the credential in one of its members, as a server's own
    /// login or sign-up form does.
    struct SignUpBody: Decodable { let username: String; let credential: RegistrationResponse }
    struct LoginBody: Decodable { let remember: Bool; let credential: AuthenticationResponse }

    @Test("a response decodes from the body the browser posted and from a member of a larger body, and both verify")
    func responsesDecodeFromBodies() async throws {
        let service = RelyingPartyService(relyingParty: CeremonyFixture.relyingParty)
        var authenticator = try TestAuthenticator()
        let options = try await service.beginRegistration(RegistrationRequest(user: user), now: now).options
        let registrationJSON = try authenticator.registerJSON(challenge: options.challenge.bytes).jsonData()
        let wrapped = Data(#"{"username":"ada","credential":"#.utf8) + registrationJSON + Data("}".utf8)
        let body = try JSONDecoder().decode(SignUpBody.self, from: wrapped)
        #expect(body.credential.rawId == authenticator.credentialId)
        #expect(try RegistrationResponse(jsonData: registrationJSON).clientDataJSON == body.credential.clientDataJSON)
        let registered = try await service.finishRegistration(body.credential, now: now)
        #expect(registered.record.id == authenticator.credentialId)

        let login = try await service.beginAuthentication(AuthenticationRequest(userHandle: nil), now: now).options
        let assertionJSON = try authenticator.authenticateJSON(challenge: login.challenge.bytes).jsonData()
        let loginBody = try JSONDecoder().decode(
            LoginBody.self, from: Data(#"{"remember":true,"credential":"#.utf8) + assertionJSON + Data("}".utf8))
        #expect(try AuthenticationResponse(jsonData: assertionJSON).signature == loginBody.credential.signature)
        let verified = try await service.finishAuthentication(loginBody.credential, now: now)
        #expect(verified.updatedRecord.signCount > 0)

        // A body whose member is not base64url is refused as malformed, naming the member.
        let body64 = String(decoding: registrationJSON, as: UTF8.self)
            .replacingOccurrences(of: #""rawId":""#, with: #""rawId":"*"#)
        let error = #expect(throws: WebAuthnError.self) { try RegistrationResponse(jsonData: Data(body64.utf8)) }
        #expect(error?.message.contains("rawId") == true)

        // A member given twice is refused, whichever copy JSONDecoder would have taken.
        for member in [#""id":"AAAA""#, #""type":"public-key""#, #""clientExtensionResults":{}"#] {
            var twice = String(decoding: registrationJSON, as: UTF8.self)
            twice.removeLast()
            twice += "," + member + "}"
            let error = #expect(throws: WebAuthnError.self) { try RegistrationResponse(jsonData: Data(twice.utf8)) }
            #expect(error?.category == .malformed && error?.message.contains("duplicate") == true)
        }
        var twiceLogin = String(decoding: assertionJSON, as: UTF8.self)
        twiceLogin.removeLast()
        twiceLogin += #","rawId":"AAAA"}"#
        let loginError = #expect(throws: WebAuthnError.self) { try AuthenticationResponse(jsonData: Data(twiceLogin.utf8)) }
        #expect(loginError?.category == .malformed)
        #expect(error?.category == .malformed)
    }

    @Test("a new user handle is 64 random bytes")
    func userHandle() throws {
        let first = try PublicKeyCredentialUserEntityJSON.newUserHandle()
        let second = try PublicKeyCredentialUserEntityJSON.newUserHandle()
        #expect(first.count == 64 && second.count == 64)
        #expect(first != second)
    }

    // MARK: Errors

    @Test("the client-safe message names no configuration; every category has a status")
    func clientSafeErrors() throws {
        let error = WebAuthnError(
            .origin, step: "§7.1 step 9",
            "origin https://evil.example is not one of https://example.org, https://internal.example.org")
        #expect(!error.clientMessage.contains("example"))
        #expect(error.httpStatus == 403)
        for category in WebAuthnError.Category.allCases {
            #expect(!category.clientMessage.isEmpty)
            #expect([400, 401, 403, 409, 500, 503].contains(category.httpStatus), "\(category)")
        }
        #expect(WebAuthnError(.serverFault, "").httpStatus == 503)
        #expect(WebAuthnError(.configuration, "").httpStatus == 500)
        #expect(WebAuthnError(.malformed, "").httpStatus == 400)
        #expect(WebAuthnError(.challenge, "").httpStatus == 400)
        #expect(WebAuthnError(.credentialExists, "").httpStatus == 409)
        #expect(WebAuthnError(.signature, "").httpStatus == 401)
        #expect(WebAuthnError(.trust, "").httpStatus == 403)
        let storage = WebAuthnError(.serverFault, step: "credential store", "connection refused to 10.0.0.5")
        #expect(storage.httpStatus == 503 && !storage.clientMessage.contains("10.0"))
    }

    @Test("a body that does not read is answered with the member at fault, in fixed words, and nothing it held")
    func clientMessageNamesTheMember() throws {
        let authenticator = try TestAuthenticator()
        let browser = String(decoding: try authenticator.registerJSON(challenge: Array(repeating: 7, count: 32)).jsonData(), as: UTF8.self)
        let clientData = try #require(browser.firstRange(of: #""clientDataJSON":""#))
        func message(
            _ body: String,
            as decode: (Data) throws(WebAuthnError) -> Void = { (data) throws(WebAuthnError) in
                _ = try RegistrationResponse(jsonData: data)
            }
        ) -> String? {
            do throws(WebAuthnError) {
                try decode(Data(body.utf8))
                return nil
            } catch {
                #expect(error.category == .malformed && error.httpStatus == 400)
                return error.clientMessage
            }
        }
        let prefix = "The request could not be read: "
        // Browser JSON (what PublicKeyCredential.toJSON() and Credential Manager give).
        #expect(
            message(browser.replacingCharacters(in: clientData, with: #""clientDataJSON":"*<b>"#))
                == prefix + "response.clientDataJSON is not valid base64url.")
        #expect(
            message(browser.replacingOccurrences(of: #""attestationObject":"#, with: #""attestationObjectX":"#))
                == prefix + "response.attestationObject is missing.")
        #expect(
            message(browser.replacingOccurrences(of: #""type":"public-key""#, with: #""type":["public-key"]"#))
                == prefix + "type is not of the expected type.")
        #expect(message("{\"id\": ") == prefix + "the body is not valid JSON.")
        // A native app's body (AuthenticationServices names, standard base64).
        let app = #"{"credentialID":"AAEC","rawClientDataJSON":"ab!d","rawAttestationObject":"AAAA"}"#
        #expect(message(app) == prefix + "rawClientDataJSON is not padded standard base64.")
        #expect(message(#"{"credentialID":"AAEC","rawClientDataJSON":"AAAA"}"#) == prefix + "rawAttestationObject is missing.")
        #expect(
            message(#"{"credentialID":"AAEC","rawClientDataJSON":"AAAA","rawAttestationObject":"AAAA","id":"x"}"#)
                == prefix + "id is not a member this body may have.")
        // A name the client chose is repeated only when it is a plain identifier.
        let oddName = #"{"credentialID":"AAEC","rawClientDataJSON":"AAAA","rawAttestationObject":"AAAA","<img src=x>":1}"#
        #expect(message(oddName) == prefix + "(a member) is not a member this body may have.")
        #expect(
            message(#"{"credentialID":"AAEC","rawClientDataJSON":"AAAA","rawAuthenticatorData":"AAAA","signature":"AAAA","userID":5}"#) {
                (data) throws(WebAuthnError) in
                _ = try AuthenticationResponse(jsonData: data)
            } == prefix + "userID is not of the expected type.")
        // Inside a larger body, the member is named from that body.
        struct Finish: Decodable { let state: String; let credential: RegistrationResponse }
        let wrapped = #"{"state":"s","credential":"# + browser.replacingCharacters(in: clientData, with: #""clientDataJSON":"*"#) + "}"
        let error = #expect(throws: WebAuthnError.self) { try JSONDecoder().decode(Finish.self, from: Data(wrapped.utf8)) }
        #expect(error?.clientMessage == prefix + "credential.response.clientDataJSON is not valid base64url.")
        // Any other error keeps its category's text, a malformed one made elsewhere too.
        #expect(WebAuthnError(.malformed, "rawId: \"secret\"").clientMessage == "The request could not be read.")
        #expect(WebAuthnError(.origin, "").clientMessage == WebAuthnError.Category.origin.clientMessage)
    }

    @Test("categories are an open set: each name round-trips through rawValue and JSON, an unknown name is no category")
    func openCategories() throws {
        #expect(Set(WebAuthnError.Category.allCases).count == WebAuthnError.Category.allCases.count)
        for category in WebAuthnError.Category.allCases {
            #expect(WebAuthnError.Category(rawValue: category.rawValue) == category)
            #expect("\(category)" == category.rawValue)
            let json = try JSONEncoder().encode(category)
            #expect(String(decoding: json, as: UTF8.self) == "\"\(category.rawValue)\"")
            #expect(try JSONDecoder().decode(WebAuthnError.Category.self, from: json) == category)
        }
        #expect(WebAuthnError.Category(rawValue: "notACategory") == nil)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(WebAuthnError.Category.self, from: Data(#""nope""#.utf8)) }
        #expect(!WebAuthnError.Category.verdicts.contains(.serverFault))
        #expect(!WebAuthnError.Category.verdicts.contains(.configuration))
        #expect(WebAuthnError.Category.verdicts.count == WebAuthnError.Category.allCases.count - 2)
        // A caller's switch singles out what it cares about and has a default for the rest.
        func status(_ category: WebAuthnError.Category) -> String {
            switch category {
            case .signCount: return "clone"
            case .serverFault: return "retry"
            default: return "refused"
            }
        }
        #expect(status(.signCount) == "clone" && status(.serverFault) == "retry" && status(.origin) == "refused")
    }

    // MARK: Challenge store

    static func challenge(_ n: Int, expiresAt: Date) -> IssuedChallenge {
        IssuedChallenge(
            challenge: Array("challenge-\(n)-padding-to-sixteen".utf8), kind: .authentication, rpId: "example.org",
            expiresAt: expiresAt)
    }

    @Test("expired challenges are evicted as time passes, not only when the store is full")
    func evictsAsTimePasses() async throws {
        let store = InMemoryChallengeStore(capacity: 1000)
        for n in 0..<10 { try await store.issue(Self.challenge(n, expiresAt: now.addingTimeInterval(Double(n + 1))), now: now) }
        #expect(store.count == 10)
        try await store.issue(Self.challenge(100, expiresAt: now.addingTimeInterval(600)), now: now.addingTimeInterval(5))
        #expect(store.count == 7)  // 1...4 s gone; 5 s (answerable through its expiry instant), 6...10 s and the new one held
        #expect(try await store.consume(Self.challenge(3, expiresAt: now).challenge) == nil)
        #expect(try await store.consume(Self.challenge(7, expiresAt: now).challenge) != nil)
    }

    @Test("a full store of live challenges refuses more; once they expire it takes new ones")
    func boundedStore() async throws {
        let store = InMemoryChallengeStore(capacity: 4)
        for n in 0..<4 { try await store.issue(Self.challenge(n, expiresAt: now.addingTimeInterval(60)), now: now) }
        await #expect {
            try await store.issue(Self.challenge(9, expiresAt: now.addingTimeInterval(60)), now: now)
        } throws: { ($0 as? WebAuthnError)?.message.hasPrefix("full: ") == true }
        // At 60 s the four are still answerable (the expiry instant is in time); just after, they are gone.
        await #expect {
            try await store.issue(Self.challenge(9, expiresAt: now.addingTimeInterval(120)), now: now.addingTimeInterval(60))
        } throws: { ($0 as? WebAuthnError)?.message.hasPrefix("full: ") == true }
        try await store.issue(Self.challenge(9, expiresAt: now.addingTimeInterval(120)), now: now.addingTimeInterval(60.001))
        #expect(store.count == 1)
    }

    @Test("issuing and consuming many challenges keeps the store's bookkeeping bounded, and a re-issued challenge survives its old expiry")
    func churn() async throws {
        let store = InMemoryChallengeStore(capacity: 8)
        for n in 0..<1000 {
            let issued = Self.challenge(n, expiresAt: now.addingTimeInterval(300))
            try await store.issue(issued, now: now)
            _ = try await store.consume(issued.challenge)
        }
        #expect(store.count == 0)
        #expect(store.queuedExpiries <= 16)
        let early = Self.challenge(1, expiresAt: now.addingTimeInterval(10))
        try await store.issue(early, now: now)
        _ = try await store.consume(early.challenge)
        try await store.issue(Self.challenge(1, expiresAt: now.addingTimeInterval(100)), now: now)
        try await store.issue(Self.challenge(2, expiresAt: now.addingTimeInterval(100)), now: now.addingTimeInterval(50))
        #expect(try await store.consume(early.challenge)?.expiresAt == now.addingTimeInterval(100))
    }
}

@Suite("Native-app origins")
struct NativeAppOriginTests {
    @Test("the Android origin is android:apk-key-hash: and the base64url SHA-256 of the signing certificate")
    func androidOrigin() throws {
        let certificate = Array("not really a certificate, any bytes hash the same way".utf8)
        let digest = Digest.sha256.hash(certificate)
        let origin = RelyingParty.androidOrigin(signingCertificate: certificate)
        #expect(origin == "android:apk-key-hash:" + Base64URL.encode(digest))
        let fingerprint = digest.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(try RelyingParty.androidOrigin(sha256Fingerprint: fingerprint) == origin)
        #expect(
            try RelyingParty.androidOrigin(sha256Fingerprint: fingerprint.lowercased().replacingOccurrences(of: ":", with: "")) == origin)
        #expect(throws: WebAuthnError(.malformed, "")) { try RelyingParty.androidOrigin(sha256Fingerprint: "AB:CD") }
        #expect(throws: WebAuthnError(.malformed, "")) {
            try RelyingParty.androidOrigin(sha256Fingerprint: String(fingerprint.dropLast()) + "G")
        }
    }

    @Test("a relying party that lists the Android origin accepts a ceremony from the app")
    func androidCeremony() throws {
        let origin = RelyingParty.androidOrigin(signingCertificate: [1, 2, 3])
        let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org", origin])
        var authenticator = try TestAuthenticator()
        authenticator.origin = origin
        let issued = CeremonyFixture.registrationChallenge()
        _ = try #require(
            CeremonyFixture.register(
                try authenticator.register(challenge: issued.challenge), issued: issued,
                relyingParty: relyingParty
            ).accepted())
    }
}

@Suite("Issued challenge storage")
struct IssuedChallengeStorageTests {
    @Test("an issued challenge round-trips through JSON compactly, whatever the encoder's date strategy")
    func roundTrip() throws {
        let issued = IssuedChallenge(
            challenge: Array(repeating: 0xFB, count: 32), kind: .registration, rpId: "example.org",
            userHandle: Array("user-a".utf8), allowCredentials: [[1, 2, 3]], userVerification: .required,
            offeredAlgorithms: [.edDSA, .es256, COSEAlgorithm(rawValue: -999)], conditionalCreate: true,
            attestation: .direct, issuedAt: Date(timeIntervalSince1970: 1_700_000_000.25),
            expiresAt: Date(timeIntervalSince1970: 1_700_000_300.5))
        let plain = try JSONEncoder().encode(issued)
        let text = String(decoding: plain, as: UTF8.self)
        #expect(text.contains("\"challenge\":\"-_v7") && !text.contains("[251"))
        #expect(try JSONDecoder().decode(IssuedChallenge.self, from: plain) == issued)
        let other = JSONEncoder()
        other.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(IssuedChallenge.self, from: try other.encode(issued)) == issued)
    }

    @Test("extension inputs are stored as JSON text (version 2) and read back whole; version 1's object form is still read")
    func storedExtensionInputs() throws {
        let inputs: [String: JSONValue] = [
            "prf": .object(["eval": .object(["first": .string("AAEC")])]), "credProps": .bool(true),
            "odd": .array([.null, .number(1.5), .string("q\"/\\")]),
        ]
        let issued = IssuedChallenge(
            challenge: Array(repeating: 7, count: 32), kind: .authentication, rpId: "example.org", extensions: inputs,
            expiresAt: Date(timeIntervalSince1970: 10))
        let text = String(decoding: try JSONEncoder().encode(issued), as: UTF8.self)
        #expect(text.contains(#""v":2"#) && text.contains(#""extensions":"{\"credProps\":true,"#))
        #expect(try JSONDecoder().decode(IssuedChallenge.self, from: Data(text.utf8)).extensions == inputs)

        let versionOne = #"{"v":1,"challenge":"AAAAAAAAAAAAAAAAAAAAAA","kind":"authentication","rpId":"example.org","expiresAt":10,"#
        let fromOne = try JSONDecoder().decode(
            IssuedChallenge.self, from: Data((versionOne + #""extensions":{"prf":{"eval":{"first":"AAEC"}}}}"#).utf8))
        #expect(fromOne.extensions == ["prf": .object(["eval": .object(["first": .string("AAEC")])])])

        let versionTwo = versionOne.replacingOccurrences(of: #""v":1"#, with: #""v":2"#)
        for bad in [#""{\"a\":""#, #""[1]""#, #"{"prf":true}"#, #""{\"a\":1,\"a\":2}""#] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(IssuedChallenge.self, from: Data((versionTwo + #""extensions":"# + bad + "}").utf8))
            }
        }
    }

    @Test("an older row without later members decodes with their defaults; a newer version or bad bytes are refused")
    func versions() throws {
        let old = Data(#"{"v":1,"challenge":"AAAAAAAAAAAAAAAAAAAAAA","kind":"authentication","rpId":"example.org","expiresAt":10}"#.utf8)
        let decoded = try JSONDecoder().decode(IssuedChallenge.self, from: old)
        #expect(decoded.userHandle == nil && decoded.allowCredentials.isEmpty && decoded.userVerification == .preferred)
        #expect(decoded.issuedAt == nil && decoded.expiresAt == Date(timeIntervalSince1970: 10))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                IssuedChallenge.self,
                from: Data(String(decoding: old, as: UTF8.self).replacingOccurrences(of: "\"v\":1", with: "\"v\":3").utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                IssuedChallenge.self,
                from: Data(String(decoding: old, as: UTF8.self).replacingOccurrences(of: "AAAAAAAA", with: "AAAA+AAA").utf8))
        }
    }
}

/// The in-memory store, counting how often a user's credentials are listed.
final class UserListingCountingStore: CredentialStore, @unchecked Sendable {
    private let inner = InMemoryCredentialStore()
    private let lock = NSLock()
    private var listings = 0
    var userListings: Int { lock.withLock { listings } }
    func create(_ record: CredentialRecord) async throws -> Bool { try await inner.create(record) }
    func credential(id: [UInt8]) async throws -> CredentialRecord? { try await inner.credential(id: id) }
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        lock.withLock { listings += 1 }
        return try await inner.credentials(userHandle: userHandle)
    }
    func update(_ change: CredentialUpdate) async throws -> Bool { try await inner.update(change) }
}
