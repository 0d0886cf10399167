import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

extension Corpus {
    /// The FIDO conformance profile (`VerificationPolicy.fidoConformance(trust:)`) as replay
    /// `policy` members: each departure from W3C L3 the profile takes, with the verdict the
    /// conformance tool expects; the same ceremonies under the default policy are refused where
    /// L3 refuses them (`registration/trust.json`, `authentication/userPresence.json`,
    /// `registration/attestation-certificate-rules.json`).
    func fidoConformanceProfile() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/fido-conformance-profile.json",
            "The FIDO conformance profile (for conformance runs only): chains must end in the test CA while "
                + "none and self are accepted, an x5c carrying its own root is refused, a TPM Name under "
                + "its own hash algorithm is accepted, fido-u2f with a non-zero AAGUID is refused, client data "
                + "whose tokenBinding lacks its Level 2 shape is refused, and a login with UP clear is accepted")
        file.trustAnchors = [ca.certificate]
        file.requireTrustedAttestation = true
        file.policyMembers = [
            ("unattested", .string("accepted")), ("userPresenceOptionalInAssertions", .bool(true)),
            ("tpmNameMayUseItsOwnAlgorithm", .bool(true)), ("refuseAnchorInPath", .bool(true)),
            ("fidoU2FRequiresZeroAAGUID", .bool(true)), ("checkTokenBindingShape", .bool(true)),
        ]
        var main = try file.authenticator("main")
        var options = Auth.RegistrationOptions(attestation: .packed(ca: ca))
        try file.register("packed-x5c-trusted", main, options: options, .attested(format: "packed", type: .basic, trusted: true))
        options.attestation = .packed(ca: rogueCA)
        try file.register("packed-x5c-rogue-root", try file.authenticator("rogue"), options: options, .reject(.trust))
        options.attestation = .none
        try file.register("none-accepted", try file.authenticator("none"), options: options, .accept)
        options.attestation = .packedSelf
        try file.register(
            "packed-self-accepted", try file.authenticator("self"), options: options,
            .attested(format: "packed", type: .self, trusted: false))

        // Resp-5 F-10: x5c = [leaf, the anchor itself].
        let caDER = ca.certificate.derBytes
        options.attestation = .packed(ca: ca)
        options.statement = { entries in
            guard let index = entries.firstIndex(where: { $0.0.text == "x5c" }), let chain = entries[index].1.array else { return }
            entries[index].1 = .array(chain + [.bytes(caDER)])
        }
        try file.register("packed-x5c-carries-its-root", try file.authenticator("with root"), options: options, .reject(.trust))
        options.statement = { _ in }

        // Resp-9 P-3: certInfo's Name of pubArea made with SHA-1 while pubArea.nameAlg is SHA-256.
        // The test authenticator's TPM x5c carries the CA; the tool's does not (and the profile refuses it).
        options.attestation = .tpm(ca: ca)
        options.details.tpmNameHashAlgorithm = 0x0004  // SHA-1
        options.statement = { entries in
            guard let index = entries.firstIndex(where: { $0.0.text == "x5c" }), let chain = entries[index].1.array else { return }
            entries[index].1 = .array(Array(chain.prefix(1)))
        }
        try file.register(
            "tpm-name-sha1-nameAlg-sha256", try file.authenticator("tpm"), options: options,
            .attested(format: "tpm", type: .attCA, trusted: true))

        // Resp-8 F-1: fido-u2f whose attested credential data carries a non-zero AAGUID (the U2F
        // signature does not cover it, so the statement still verifies).
        var u2f = try file.authenticator("u2f")
        u2f.aaguid = Array(repeating: 0, count: 16)
        var u2fOptions = Auth.RegistrationOptions(flags: [.userPresent], attestation: .fidoU2F(ca: ca))
        u2fOptions.authData = { $0.replaceSubrange(37..<53, with: Auth.defaultAAGUID) }
        try file.register("fido-u2f-non-zero-aaguid", u2f, options: u2fOptions, .reject(.attestation))

        // The tool's client-data cases: a tokenBinding that is not its Level 2 object is refused
        // (L3, and so the default policy, verifies nothing of it).
        options = Auth.RegistrationOptions(attestation: .packed(ca: ca))
        options.clientData = { $0.extraMembers = [#""tokenBinding":"unused""#] }
        try file.register("token-binding-not-an-object", try file.authenticator("token binding"), options: options, .reject(.malformed))
        options.clientData = { $0.extraMembers = [#""tokenBinding":{"status":"not-supported"}"#] }
        try file.register(
            "token-binding-not-supported", try file.authenticator("token binding ok"), options: options,
            .attested(format: "packed", type: .basic, trusted: true))

        // Resp-3 P-4: an assertion with UP clear (and UV clear), accepted.
        try file.authenticate(
            "login-user-presence-clear", &main, userVerification: .discouraged,
            options: Auth.AuthenticationOptions(flags: []), .accept)
        return file
    }
}
