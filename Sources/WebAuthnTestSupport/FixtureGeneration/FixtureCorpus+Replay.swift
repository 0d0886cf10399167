import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Fixtures for the replay members that say when and for whom a challenge was issued:
/// `issuedAt` / `receivedAt` with `policy.challengeLifetime`, a challenge answered by the
/// other ceremony's response, and `user` (username-first login, WebAuthn L3 §7.2 step 6,
/// first branch). Every file replays at ``FixtureFile/verificationTime`` (T below).
extension Corpus {
    func replayMemberFiles() throws -> [FixtureFile] {
        [try registrationLifetime(), try authenticationLifetime()] + (try challengesAnsweredByTheOtherCeremony())
            + [try usernameFirst(), try fractionalVerificationTime(), try relatedOrigins(), try originCase(), try nativeBodies()]
    }

    /// `response` as a native app posts it (WebAuthnRP.docc/NativeApps.md): the replay reads it
    /// through the decoder a server's body goes through, so an app's ceremony, failed or not,
    /// replays from the body as received.
    func nativeBodies() throws -> FixtureFile {
        var file = FixtureFile(
            "native-app/bodies.json",
            "Registration and login whose response is an iOS app's body (credentialID, rawClientDataJSON, "
                + "rawAttestationObject / rawAuthenticatorData, signature, userID; standard base64, as JSONEncoder "
                + "writes Data): accepted; a login whose counter went back is signCount; base64url instead of "
                + "standard base64, an unknown member, or a member missing is malformed; an app's assertion "
                + "answering a registration challenge is challenge")
        var app = try file.authenticator("app")
        try file.register("register-native-body", app, form: .native, .accept)
        try file.authenticate("login-native-body", &app, allow: [app.credentialId], form: .native, .accept)
        var counter = TestAuthenticator.AuthenticationOptions()
        counter.signCount = 0
        try file.authenticate("login-native-body-counter-went-back", &app, options: counter, form: .native, .reject(.signCount))
        try file.register(
            "register-native-body-base64url-id", try file.authenticator("base64url"), form: .native,
            editJSON: { $0.set("credentialID", .string(Base64URL.encode(Digest.sha256.hash(Array("base64url".utf8))))) },
            .reject(.malformed))
        try file.register(
            "register-native-body-unknown-member", try file.authenticator("unknown member"), form: .native,
            editJSON: { $0.set("clientExtensionResults", .object([])) }, .reject(.malformed))
        try file.register(
            "register-native-body-no-attestation-object", try file.authenticator("no attestation object"), form: .native,
            editJSON: { $0.set("rawAttestationObject", nil) }, .reject(.malformed))
        // A registration challenge answered by the app's assertion.
        let options = FixtureJSONForms.creationOptions(
            challenge: file.challenge("assertion-for-registration"), rpId: "example.org", user: app.userHandle,
            userName: "app@example.org", algorithms: FixtureFile.offered, userVerification: .preferred, attestation: "none")
        let assertion = try app.authenticate(challenge: file.challenge("assertion-for-registration"))
        file.add(
            "native-assertion-for-registration", kind: .registration, options: options,
            response: FixtureJSONForms.nativeAuthenticationBody(assertion), expect: FixtureFile.reject(.challenge))
        return file
    }

    /// Origins written by people, in `relyingParty.origins` and the `/.well-known/webauthn`
    /// document, in another case or with the default port: compared as serialized origins
    /// (RFC 6454, host lowercased), so a browser's lowercase origin is accepted; a client origin
    /// in another case is not a serialization and is `origin`, as is an Android origin whose
    /// case-sensitive base64url payload differs only in case.
    func originCase() throws -> FixtureFile {
        let android = "android:apk-key-hash:" + Base64URL.encode(Digest.sha256.hash(Array("origin case app".utf8)))
        var file = FixtureFile(
            "registration/origin-case.json",
            "Registration with relyingParty.origins [\"https://Example.ORG:443\", an android:apk-key-hash origin] and "
                + "relatedOrigins listing https://Shop.Example.co.uk and HTTPS://EXAMPLE.COM: the browsers' lowercase "
                + "origins are accepted; a client origin in another case, or the Android origin with its payload's case "
                + "changed, is origin")
        file.relyingParty.set("origins", .array([.string("https://Example.ORG:443"), .string(android)]))
        file.relyingParty.set(
            "relatedOrigins", .object([("origins", .array([.string("https://Shop.Example.co.uk"), .string("HTTPS://EXAMPLE.COM")]))]))
        let lowered = String(android.prefix("android:apk-key-hash:".count)) + android.dropFirst("android:apk-key-hash:".count).lowercased()
        let cases: [(name: String, origin: String, verdict: FixtureFile.Verdict)] = [
            ("register-from-rp-id-origin", "https://example.org", .accept),
            ("register-from-listed-origin", "https://shop.example.co.uk", .accept),
            ("register-from-second-listed-origin", "https://example.com", .accept),
            ("register-from-android-app", android, .accept),
            ("register-from-origin-in-upper-case", "https://Shop.Example.co.uk", .reject(.origin)),
            ("register-from-scheme-in-upper-case", "HTTPS://example.com", .reject(.origin)),
            ("register-from-android-payload-case-changed", lowered, .reject(.origin)),
        ]
        for item in cases {
            var authenticator = try file.authenticator(item.name)
            authenticator.origin = item.origin
            try file.register(item.name, authenticator, item.verdict)
        }
        return file
    }

    /// `policy.verificationTime` with a fraction of a second: the clock is read to the
    /// millisecond, so a challenge issued 300 s before it is in time and one issued a
    /// millisecond earlier is late.
    func fractionalVerificationTime() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/verification-time-fraction.json",
            "Registration with policy.verificationTime 2025-06-01T00:00:00.250Z (a fraction of a second) and "
                + "the default lifetime of 300 s: issued exactly 300 s before is accepted, 300.001 s before is "
                + "challenge; whole seconds would accept both")
        file.clock = "2025-06-01T00:00:00.250Z"
        try file.register("issued-300s-before-accepted", try file.authenticator("in time"), .accept)
        file.stamp(issuedAt: "2025-05-31T23:55:00.250Z")
        try file.register("issued-300.001s-before", try file.authenticator("late"), .reject(.challenge))
        file.stamp(issuedAt: "2025-05-31T23:55:00.249Z")
        return file
    }

    /// `relyingParty.relatedOrigins`: the `/.well-known/webauthn` document (L3 §5.11) lists
    /// origins outside the RP ID's domain; a response from one of them is accepted, from any
    /// other origin (a subdomain of a listed one included) it is `origin`.
    func relatedOrigins() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/origin-related-origins.json",
            "Registration and login with relyingParty.relatedOrigins, the RP ID's /.well-known/webauthn "
                + "document (L3 §5.11) listing https://example.com and https://shop.example.co.uk: their "
                + "responses are accepted, one from an origin the document does not list is origin")
        file.relyingParty.set(
            "relatedOrigins",
            .object([
                (
                    "origins",
                    .array([
                        .string("https://example.com"),
                        .string("https://shop.example.co.uk"),
                    ])
                )
            ]))
        var com = try file.authenticator("example.com")
        com.origin = "https://example.com"
        try file.register("register-from-listed-origin", com, .accept)
        var shop = try file.authenticator("shop.example.co.uk")
        shop.origin = "https://shop.example.co.uk"
        try file.register("register-from-second-listed-origin", shop, .accept)
        for (name, origin) in [
            ("register-from-unlisted-origin", "https://example.net"),
            ("register-from-subdomain-of-listed-origin", "https://login.example.com"),
            ("register-from-listed-host-over-http", "http://example.com"),
            ("register-from-unlisted-host-of-listed-domain", "https://example.co.uk"),
        ] {
            var other = try file.authenticator(name)
            other.origin = origin
            try file.register(name, other, .reject(.origin))
        }
        try file.authenticate("login-from-listed-origin", &com, allow: [com.credentialId], .accept)
        var moved = com
        moved.origin = "https://example.net"
        try file.authenticate("login-from-unlisted-origin", &moved, allow: [com.credentialId], .reject(.origin))
        try file.authenticate(
            "login-from-rp-id-origin", &shop, options: login { $0.clientData = { $0.origin = "https://example.org" } },
            .accept)
        return file
    }

    /// A lifetime of 60 s: in time up to and including the limit, late a millisecond after it,
    /// and refused when the response would precede its challenge.
    func registrationLifetime() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/challenge-lifetime.json",
            "Registration with policy.challengeLifetime 60: a response received up to 60 s after issuedAt "
                + "(the limit included) is accepted, one received later is challenge, and one received "
                + "before its challenge was issued (a clock that went back) is challenge")
        file.policyMembers = [("challengeLifetime", .int(60))]
        let cases: [(name: String, issuedAt: String, receivedAt: String?, verdict: FixtureFile.Verdict)] = [
            ("issued-30s-before-accepted", "2025-05-31T23:59:30Z", nil, .accept),
            ("received-at-the-limit-accepted", "2025-06-01T00:00:00Z", "2025-06-01T00:01:00Z", .accept),
            ("received-1ms-after-the-limit", "2025-06-01T00:00:00Z", "2025-06-01T00:01:00.001Z", .reject(.challenge)),
            ("issued-an-hour-before", "2025-05-31T23:00:00Z", nil, .reject(.challenge)),
            ("received-before-issued", "2025-06-01T00:00:10Z", "2025-06-01T00:00:00Z", .reject(.challenge)),
            ("received-1ms-before-issued", "2025-06-01T00:00:00.001Z", nil, .reject(.challenge)),
        ]
        for item in cases {
            // Each accepted registration stores its credential, so every case has its own.
            try file.register(item.name, try file.authenticator(item.name), item.verdict)
            file.stamp(issuedAt: item.issuedAt, receivedAt: item.receivedAt)
        }
        return file
    }

    /// No `challengeLifetime`: the default, 300 s, on logins; and a ceremony whose times both
    /// lie after verificationTime (receivedAt is the verifier's clock), one in another time zone.
    func authenticationLifetime() throws -> FixtureFile {
        var (file, auth) = try loginFile(
            "authentication/challenge-lifetime.json",
            "Authentication with the default challenge lifetime (300 s, no policy.challengeLifetime): "
                + "the limit is accepted, a millisecond past it is challenge, as is a response "
                + "received before its challenge was issued")
        let cases: [(name: String, issuedAt: String, receivedAt: String?, verdict: FixtureFile.Verdict)] = [
            ("issued-300s-before-accepted", "2025-05-31T23:55:00Z", nil, .accept),
            ("issued-300.001s-before", "2025-05-31T23:54:59.999Z", nil, .reject(.challenge)),
            ("issued-a-day-before", "2025-05-31T00:00:00Z", nil, .reject(.challenge)),
            ("received-1s-before-issued", "2025-06-01T00:00:00Z", "2025-05-31T23:59:59Z", .reject(.challenge)),
            ("issued-and-received-later-accepted", "2025-06-01T02:10:00+02:00", "2025-06-01T00:11:40Z", .accept),
            ("received-301s-after-issued", "2025-06-01T00:20:00Z", "2025-06-01T00:25:01Z", .reject(.challenge)),
        ]
        for item in cases {
            try file.authenticate(item.name, &auth, item.verdict)
            file.stamp(issuedAt: item.issuedAt, receivedAt: item.receivedAt)
        }
        return file
    }

    /// A challenge issued for one ceremony and answered by a valid response of the other (an
    /// assertion of a known credential for a registration, a registration of a new credential for
    /// a login) is challenge. Nothing is stored: afterwards the new authenticator registers and the
    /// known credential logs in.
    func challengesAnsweredByTheOtherCeremony() throws -> [FixtureFile] {
        func answer(
            _ file: inout FixtureFile, _ name: String, kind: CeremonyKind, options: FixtureValue, response: FixtureValue,
            fresh: TestAuthenticator, known: inout TestAuthenticator
        ) throws {
            file.add(name, kind: kind, options: options, response: response, expect: FixtureFile.reject(.challenge))
            try file.register("control-registration-accepted", fresh, .accept)
            try file.authenticate("control-login-accepted", &known, .accept)
        }

        var registration = FixtureFile(
            "registration/challenge-kind.json",
            "Registration: a challenge issued for a registration answered by an assertion (a valid one, "
                + "of a credential in the file's credentials) is challenge")
        var known = try registration.authenticator("known")
        registration.preload(known)
        let assertionName = "assertion-answers-registration-challenge"
        let creationChallenge = registration.challenge(assertionName)
        let creationOptions = FixtureJSONForms.creationOptions(
            challenge: creationChallenge, rpId: "example.org", user: known.userHandle,
            userName: "\(assertionName)@example.org", algorithms: FixtureFile.offered,
            userVerification: .preferred, attestation: "direct")
        try answer(
            &registration, assertionName, kind: .registration, options: creationOptions,
            response: FixtureJSONForms.authenticationResponse(try known.authenticate(challenge: creationChallenge)),
            fresh: try registration.authenticator("fresh"), known: &known)

        var (authentication, auth) = try loginFile(
            "authentication/challenge-kind.json",
            "Authentication: a challenge issued for a login answered by a registration response "
                + "(a valid one, of a new credential) is challenge")
        let fresh = try authentication.authenticator("fresh")
        let attestationName = "attestation-answers-login-challenge"
        let requestChallenge = authentication.challenge(attestationName)
        try answer(
            &authentication, attestationName, kind: .authentication,
            options: FixtureJSONForms.requestOptions(
                challenge: requestChallenge, rpId: "example.org", allowCredentials: [], userVerification: .preferred),
            response: FixtureJSONForms.registrationResponse(try fresh.register(challenge: requestChallenge)), fresh: fresh,
            known: &auth)
        return [registration, authentication]
    }

    /// `user`: the RP identified the user before the ceremony. Only that user's credentials
    /// may answer (`unknownCredential` otherwise, even when the id is registered and listed),
    /// and a returned user handle must be that user's (`userHandle`); none returned is fine.
    func usernameFirst() throws -> FixtureFile {
        var file = FixtureFile(
            "authentication/username-first.json",
            "Authentication with user (username-first login, §7.2 step 6 first branch): the credential "
                + "must belong to the identified user, a returned userHandle must be theirs, and a "
                + "response without userHandle is accepted")
        var alice = try file.authenticator("alice")
        var bob = try file.authenticator("bob")
        let carol = Array(Digest.sha256.hash(Array("user \(file.path) carol".utf8)).prefix(16))
        try file.register("register-alice", alice, .accept)
        try file.register("register-bob", bob, .accept)

        try file.authenticate("alice-listed-accepted", &alice, allow: [alice.credentialId], .accept)
        file.stamp(user: alice.userHandle)
        try file.authenticate("alice-allow-list-empty-accepted", &alice, .accept)
        file.stamp(user: alice.userHandle)
        alice.returnsUserHandle = false
        try file.authenticate("alice-without-user-handle-accepted", &alice, allow: [alice.credentialId], .accept)
        file.stamp(user: alice.userHandle)
        try file.authenticate("alice-without-user-handle-allow-list-empty-accepted", &alice, .accept)
        file.stamp(user: alice.userHandle)
        alice.returnsUserHandle = true

        try file.authenticate("bob-credential-for-alice", &bob, .reject(.unknownCredential))
        file.stamp(user: alice.userHandle)
        try file.authenticate(
            "bob-credential-for-alice-listed", &bob, allow: [alice.credentialId, bob.credentialId],
            .reject(.unknownCredential))
        file.stamp(user: alice.userHandle)
        bob.returnsUserHandle = false
        try file.authenticate("bob-credential-for-alice-without-user-handle", &bob, .reject(.unknownCredential))
        file.stamp(user: alice.userHandle)
        bob.returnsUserHandle = true
        try file.authenticate("alice-credential-for-carol-who-has-none", &alice, .reject(.unknownCredential))
        file.stamp(user: carol)
        let bobHandle = bob.userHandle
        try file.authenticate(
            "alice-credential-returns-bob-user-handle", &alice, allow: [alice.credentialId],
            options: login { $0.response = { $0.userHandle = bobHandle } }, .reject(.userHandle))
        file.stamp(user: alice.userHandle)

        try file.authenticate("bob-listed-accepted", &bob, allow: [bob.credentialId], .accept)
        file.stamp(user: bob.userHandle)
        try file.authenticate("alice-usernameless-accepted", &alice, .accept)
        return file
    }
}

extension FixtureFile {
    /// Adds `issuedAt`, `receivedAt` and `user` to the ceremony recorded last, before its `expect`.
    mutating func stamp(issuedAt: String? = nil, receivedAt: String? = nil, user: [UInt8]? = nil) {
        var added: [(String, FixtureValue)] = []
        if let issuedAt { added.append(("issuedAt", .string(issuedAt))) }
        if let receivedAt { added.append(("receivedAt", .string(receivedAt))) }
        if let user { added.append(("user", .bytes(user))) }
        editLastCeremony { ceremony in
            guard case .object(var members) = ceremony else { return }
            members.insert(contentsOf: added, at: members.firstIndex { $0.0 == "expect" } ?? members.count)
            ceremony = .object(members)
        }
    }
}
