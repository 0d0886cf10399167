package import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Renders the project's own recorded ceremonies and writes or checks `Fixtures/`
/// (see Fixtures/README.md). Run by `swift run webauthn-fixtures`; the tests check
/// that a fresh rendering equals the committed files byte for byte.
///
/// Every key, certificate and signature derives from fixed seeds, and every fixture
/// replays at ``FixtureFile/verificationTime``, so rendering twice gives the same bytes.
package enum FixtureWriter {
    /// A rendered file: its path below `Fixtures/` and its text.
    package struct RenderedFile: Sendable, Equatable {
        package let path: String
        package let text: String
    }

    /// Folders below `Fixtures/` that hold recordings made elsewhere (a real browser):
    /// never written or removed by the generator.
    package static let keptFolders: Set<String> = ["recorded"]

    /// Every generated file, in a stable order.
    package static func render() throws -> [RenderedFile] {
        let files = try Corpus().allFiles()
        var paths = Set<String>()
        var rendered: [RenderedFile] = []
        for file in files {
            guard paths.insert(file.path).inserted else {
                throw WebAuthnError(.malformed, "two generated fixtures share the path \(file.path)")
            }
            rendered.append(RenderedFile(path: file.path, text: file.document.text))
        }
        rendered += try AppAttestFixtureCorpus.rendered(excluding: &paths)
        return rendered.sorted { $0.path < $1.path }
    }

    /// The generated `.json` files now below `root` (recordings in ``keptFolders`` left out).
    package static func existingFiles(in root: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let top = relative.split(separator: "/").first.map(String.init) ?? relative
            if relative.hasSuffix(".json"), !keptFolders.contains(top) { found.append(relative) }
        }
        return found.sorted()
    }

    /// Replaces the generated files below `root` with `files`.
    package static func write(_ files: [RenderedFile], to root: URL) throws {
        for relative in existingFiles(in: root) {
            try FileManager.default.removeItem(at: root.appendingPathComponent(relative))
        }
        for file in files {
            let url = root.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: url)
        }
    }

    /// How the files below `root` differ from `files`: one line per missing, extra or changed file.
    package static func differences(_ files: [RenderedFile], from root: URL) -> [String] {
        var problems: [String] = []
        let expected = Set(files.map(\.path))
        for relative in existingFiles(in: root) where !expected.contains(relative) {
            problems.append("not generated any more: \(relative)")
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(file.path).path) else {
                problems.append("missing: \(file.path)")
                continue
            }
            if data != Data(file.text.utf8) { problems.append("differs: \(file.path)") }
        }
        return problems
    }
}

/// Every fixture file, built from one trusted test CA and one rogue CA.
struct Corpus {
    typealias Auth = TestAuthenticator
    typealias KeySpec = TestAuthenticator.KeySpec

    /// The trust anchor of every trusted attestation in the corpus.
    let ca: Auth.CA
    /// A CA nobody trusts.
    let rogueCA: Auth.CA

    init() throws {
        ca = try Auth.CA.make(name: "webauthn-rp Fixtures Attestation Root", seed: "fixtures root")
        rogueCA = try Auth.CA.make(name: "Rogue Attestation Root", seed: "rogue root")
    }

    /// The algorithm matrix: file stem, key, description.
    static let algorithms: [(stem: String, key: KeySpec, label: String)] = [
        ("es256", .es256, "ES256 (ECDSA P-256, SHA-256)"),
        ("esp256", .esp256, "ESP256 (-9, ECDSA P-256, SHA-256)"),
        ("es384", .es384, "ES384 (ECDSA P-384, SHA-384)"),
        ("es512", .es512, "ES512 (ECDSA P-521, SHA-512)"),
        ("es256k", .es256k, "ES256K (ECDSA secp256k1, SHA-256)"),
        ("eddsa-ed25519", .edDSA, "EdDSA (-8) with Ed25519"),
        ("ed25519", .ed25519, "Ed25519 (-19)"),
        ("ed448", .ed448, "Ed448 (-53)"),
        ("rs256", .rs256, "RS256 (RSASSA-PKCS1-v1_5, SHA-256, 2048-bit)"),
        ("ps256", .ps256, "PS256 (RSASSA-PSS, SHA-256, 2048-bit)"),
    ]

    /// One attestation format of the matrix: which credential algorithms it can carry, how
    /// the test authenticator makes it, and the verdict a relying party must reach.
    struct FormatCase {
        /// The `fmt` of the statement.
        let format: String
        /// The folder below `attestation/`.
        let folder: String
        /// What the description says about the statement.
        let summary: String
        /// The credential algorithms (stems of ``algorithms``) this format is generated for.
        let stems: Set<String>
        let attestation: (Corpus) -> Auth.Attestation
        let verdict: FixtureFile.Verdict

        /// A case of the format `fmt`, in the folder named after it unless `folder` is given,
        /// verified as `fmt` with attestation `type`; `trusted` when the statement chains to the
        /// fixtures' CA.
        init(
            _ fmt: String, folder: String? = nil, _ summary: String, stems: Set<String> = allStems,
            type: AttestationType, trusted: Bool = true, attestation: @escaping (Corpus) -> Auth.Attestation
        ) {
            format = fmt
            self.folder = folder ?? fmt
            self.summary = summary
            self.stems = stems
            self.attestation = attestation
            verdict = .attested(format: fmt, type: type, trusted: trusted)
        }

        /// Whether the statement chains to the fixtures' CA (then trust is required).
        var chained: Bool { if case .attested(_, _, true) = verdict { return true } else { return false } }
    }

    static let allStems = Set(algorithms.map(\.stem))
    /// TPM 2.0 public areas describe RSA keys and NIST-curve ECC keys.
    static let tpmStems: Set<String> = ["es256", "es384", "es512", "rs256", "ps256"]

    /// The format matrix, derived from the library's one list of formats
    /// (`AttestationFormatList`): each format's cases, in list order.
    static var formats: [FormatCase] {
        AttestationFormatList.identifiers.flatMap { fmt in formatCases.filter { $0.format == fmt } }
    }

    /// The cases generated per format. `android-safetynet` has none: its JWS is signed under
    /// Google's attestation root, which the test CA cannot stand in for in a replayable file;
    /// `AndroidSafetyNetAttestationTests` builds its statements. A format added to the list
    /// without cases here is caught by `FixtureCorpusTests`.
    static var formatCases: [FormatCase] {
        [
            FormatCase("none", "none attestation", type: .none, trusted: false) { _ in .none },
            FormatCase("packed", folder: "packed-self", "packed self attestation", type: .self, trusted: false) { _ in .packedSelf },
            FormatCase(
                "packed", folder: "packed-x5c", "packed attestation with x5c (an ES256 leaf issued by the fixtures' test CA)",
                type: .basic
            ) { .packed(ca: $0.ca) },
            FormatCase("fido-u2f", "fido-u2f attestation (a P-256 leaf issued by the fixtures' test CA)", stems: ["es256"], type: .basic) {
                .fidoU2F(ca: $0.ca)
            },
            FormatCase(
                "tpm", "tpm attestation (an RSA-2048 AIK certificate issued by the fixtures' test CA)", stems: tpmStems,
                type: .attCA
            ) { .tpm(ca: $0.ca) },
            FormatCase(
                "android-key",
                "android-key attestation (the credential key's certificate, issued by the fixtures' test CA, "
                    + "with a TEE key description)", type: .basic
            ) { .androidKey(ca: $0.ca) },
            FormatCase(
                "apple",
                "apple anonymous attestation (credCert for the credential key, issued by the fixtures' test CA, "
                    + "carrying the nonce)", type: .anonCA
            ) { .apple(ca: $0.ca) },
            FormatCase(
                "compound", "compound attestation (packed x5c and android-key, both chaining to the fixtures' test CA)",
                type: .basic
            ) { .compound([.packed(ca: $0.ca), .androidKey(ca: $0.ca)]) },
        ]
    }

    func allFiles() throws -> [FixtureFile] {
        var files: [FixtureFile] = []
        for format in Self.formats {
            for (stem, key, label) in Self.algorithms where format.stems.contains(stem) {
                files.append(try happyPath(format, stem: stem, key: key, label: label))
            }
        }
        files += try registrationFiles()
        files += try authenticationFiles()
        files += try malformedFiles()
        files += try replayMemberFiles()
        files += try extensionFiles()
        return files
    }

    // MARK: Accepted ceremonies per format and algorithm

    /// Registration then two logins (one listing the credential in allowCredentials,
    /// one discoverable), all accepted.
    func happyPath(_ format: FormatCase, stem: String, key: KeySpec, label: String) throws -> FixtureFile {
        var file = FixtureFile("attestation/\(format.folder)/\(stem).json", "")
        var authenticator = try file.authenticator("main", key: key)
        var registration = Auth.RegistrationOptions(attestation: format.attestation(self))
        var loginFlags: AuthenticatorFlags = [.userPresent, .userVerified]
        var userVerification = UserVerificationRequirement.preferred
        file.description = "\(format.summary), credential \(label): registration and two logins, all accepted"
        if format.chained {
            file.description += "; the test CA is the only trust anchor and trust is required"
            file.trustAnchors = [ca.certificate]
            file.requireTrustedAttestation = true
        }
        if format.folder == "fido-u2f" {
            // U2F tokens (W3C L3 §8.6): zero AAGUID, user presence without verification, no user handle.
            registration.flags = [.userPresent]
            loginFlags = [.userPresent]
            userVerification = .discouraged
            authenticator.aaguid = Array(repeating: 0, count: 16)
            authenticator.returnsUserHandle = false
        }
        let offered = FixtureFile.offered.contains(key.algorithm) ? FixtureFile.offered : FixtureFile.offered + [key.algorithm]
        try file.register(
            "register", authenticator, algorithms: offered, userVerification: userVerification,
            options: registration, format.verdict)
        var login = Auth.AuthenticationOptions()
        login.flags = loginFlags
        try file.authenticate(
            "login-allow-credentials", &authenticator, allow: [authenticator.credentialId],
            options: login, .accept)
        if authenticator.returnsUserHandle {
            try file.authenticate("login-discoverable", &authenticator, options: login, .accept)
        } else {
            try file.authenticate("login-again", &authenticator, allow: [authenticator.credentialId], options: login, .accept)
        }
        return file
    }

    // MARK: Registration rejections

    func registrationFiles() throws -> [FixtureFile] {
        var files: [FixtureFile] = []

        files.append(
            try registrationRejections(
                "registration/type.json", "Registration: clientData.type must be webauthn.create", .type,
                [
                    ("type-webauthn-get", clientData { $0.type = "webauthn.get" }),
                    ("type-wrong-case", clientData { $0.type = "webauthn.Create" }),
                ]))

        var challenge = FixtureFile(
            "registration/challenge.json",
            "Registration: the client data must carry the issued challenge, and a challenge answers one response")
        let challengeAuth = try challenge.authenticator("main")
        try challenge.register(
            "challenge-differs", challengeAuth,
            options: clientData { $0.challenge = Array(repeating: 0x42, count: 32) }, .reject(.challenge))
        let accepted = try challenge.register("register", challengeAuth, .accept)
        challenge.add(
            "register-replayed", kind: .registration, options: accepted.options, issue: false,
            response: accepted.response, expect: FixtureFile.reject(.challenge))
        files.append(challenge)

        let foreignOrigins = [
            ("origin-foreign", "https://evil.example"), ("origin-subdomain", "https://login.example.org"),
            ("origin-http", "http://example.org"), ("origin-other-port", "https://example.org:8443"),
            ("origin-suffix-lookalike", "https://example.org.evil.example"),
        ]
        files.append(
            try registrationRejections(
                "registration/origin.json",
                "Registration: the origin must be an allowed origin, exactly; no cross-origin iframes expected", .origin,
                foreignOrigins.map { name, value in (name, clientData { $0.origin = value }) } + [
                    ("cross-origin-unexpected", clientData { $0.crossOrigin = true }),
                    ("top-origin-unexpected", clientData { ($0.crossOrigin, $0.topOrigin) = (true, "https://example.com") }),
                    ("top-origin-without-cross-origin", clientData { $0.topOrigin = "https://example.com" }),
                ]))

        var cross = FixtureFile(
            "registration/origin-cross-origin.json",
            "Registration in a cross-origin iframe: the RP expects them, embedded in https://example.com only")
        cross.relyingParty = .object([
            ("id", .string("example.org")), ("name", .string("Example")),
            ("origins", .array([.string("https://example.org")])), ("crossOrigin", .bool(true)),
            ("topOrigins", .array([.string("https://example.com")])),
        ])
        let crossAuth = try cross.authenticator("main")
        for (name, crossOrigin, topOrigin, verdict) in [
            ("top-origin-not-allowed", true, "https://evil.example", FixtureFile.Verdict.reject(.origin)),
            ("top-origin-without-cross-origin", false, "https://example.com", .reject(.origin)),
            ("cross-origin-accepted", true, "https://example.com", .accept),
        ] {
            try cross.register(name, crossAuth, options: clientData { ($0.crossOrigin, $0.topOrigin) = (crossOrigin, topOrigin) }, verdict)
        }
        files.append(cross)

        var rpId = FixtureFile("registration/rpIdHash.json", "Registration: rpIdHash must be SHA-256 of the RP ID")
        for (name, other) in [
            ("rp-id-other-domain", "evil.example"), ("rp-id-parent-domain", "org"),
            ("rp-id-subdomain", "login.example.org"),
        ] {
            var scoped = try rpId.authenticator("main")
            scoped.rpId = other
            try rpId.register(name, scoped, .reject(.rpIdHash))
        }
        try rpId.register("control-accepted", try rpId.authenticator("main"), .accept)
        files.append(rpId)

        files.append(
            try registrationRejections(
                "registration/userPresence.json", "Registration: the UP flag must be set", .userPresence,
                [("up-clear", flags([])), ("up-clear-uv-set", flags([.userVerified]))]))

        var verification = FixtureFile(
            "registration/userVerification.json",
            "Registration: with userVerification required the UV flag must be set")
        let verificationAuth = try verification.authenticator("main")
        try verification.register(
            "uv-required-clear", verificationAuth, userVerification: .required,
            options: flags([.userPresent]), .reject(.userVerification))
        try verification.register("uv-required-set", verificationAuth, userVerification: .required, .accept)
        files.append(verification)

        var verificationPreferred = FixtureFile(
            "registration/userVerification-preferred.json",
            "Registration: with userVerification preferred a clear UV flag is accepted")
        try verificationPreferred.register(
            "uv-preferred-clear", try verificationPreferred.authenticator("main"),
            options: flags([.userPresent]), .accept)
        files.append(verificationPreferred)

        var backup = FixtureFile("registration/backupFlags.json", "Registration: BS must not be set while BE is clear")
        let backupAuth = try backup.authenticator("main")
        try backup.register(
            "bs-without-be", backupAuth, options: flags([.userPresent, .userVerified, .backupState]),
            .reject(.backupFlags))
        try backup.register(
            "be-and-bs-accepted", backupAuth,
            options: flags([.userPresent, .userVerified, .backupEligible, .backupState]), .accept)
        files.append(backup)

        var algorithm = FixtureFile(
            "registration/algorithm.json",
            "Registration: the credential's algorithm must be one offered in pubKeyCredParams")
        try algorithm.register(
            "es384-not-offered", try algorithm.authenticator("p384", key: .es384),
            algorithms: [.es256], .reject(.algorithm))
        try algorithm.register(
            "eddsa-not-offered", try algorithm.authenticator("ed25519", key: .edDSA),
            algorithms: [.es256, .rs256], .reject(.algorithm))
        try algorithm.register(
            "rs256-not-offered", try algorithm.authenticator("rsa", key: .rs256),
            algorithms: [.ps256], .reject(.algorithm))
        try algorithm.register("control-es256-offered", try algorithm.authenticator("p256"), algorithms: [.es256], .accept)
        // L3 §5.1.3: an empty pubKeyCredParams means ES256 and RS256; entries of an unknown type are
        // dropped, and when none is left the client creates nothing.
        try algorithm.register("empty-list-es256", try algorithm.authenticator("p256 empty list"), parameters: [], .accept)
        try algorithm.register("empty-list-rs256", try algorithm.authenticator("rsa empty list", key: .rs256), parameters: [], .accept)
        try algorithm.register(
            "empty-list-eddsa", try algorithm.authenticator("ed25519", key: .edDSA), parameters: [],
            .reject(.algorithm))
        try algorithm.register(
            "empty-list-es384", try algorithm.authenticator("p384", key: .es384), parameters: [],
            .reject(.algorithm))
        let unknownType: [FixtureValue] = [
            .object([("type", .string("secret-key")), ("alg", .int(-7))]),
            .object([("type", .string("password")), ("alg", .int(-257))]),
        ]
        try algorithm.register(
            "only-unknown-types-es256", try algorithm.authenticator("p256 unknown types"), parameters: unknownType,
            .reject(.algorithm))
        try algorithm.register(
            "unknown-type-skipped", try algorithm.authenticator("ed25519 unknown types", key: .edDSA),
            parameters: unknownType + [.object([("type", .string("public-key")), ("alg", .int(-8))])],
            .accept)
        files.append(algorithm)
        files.append(try credentialKeyRejections())

        files.append(try attestationRejections())
        files.append(try attestationFormatRejections())
        files.append(try attestationRuleRejections())
        files += try metadataFiles()
        files += try trustFiles()
        files.append(try fidoConformanceProfile())

        var exists = FixtureFile(
            "registration/credentialExists.json",
            "Registration: a credential id is registered once, to one user")
        let preloaded = try exists.authenticator("preloaded")
        exists.preload(preloaded)
        try exists.register("already-in-credentials", preloaded, .reject(.credentialExists))
        let fresh = try exists.authenticator("fresh")
        try exists.register("register", fresh, .accept)
        try exists.register("register-again", fresh, .reject(.credentialExists))
        try exists.register("register-again-other-user", fresh, user: Array("someone-else".utf8), .reject(.credentialExists))
        files.append(exists)
        return files
    }

    /// Attestation statements that do not verify (category `attestation`).
    func attestationRejections() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/attestation.json",
            "Registration: attestation statements that do not verify (signature, §8.2.1 certificate "
                + "requirements, format rules, unknown formats)")
        let es256 = try file.authenticator("main")
        let statementEdits: [(String, Auth.Attestation, (inout [(CBORItem, CBORItem)]) -> Void)] = [
            ("packed-self-bad-signature", .packedSelf, { Self.flipLastByte(of: "sig", in: &$0) }),
            ("packed-self-alg-mismatch", .packedSelf, { Self.replace("alg", with: .int(Int64(COSEAlgorithm.rs256.rawValue)), in: &$0) }),
            ("packed-x5c-bad-signature", .packed(ca: ca), { Self.flipLastByte(of: "sig", in: &$0) }),
            ("packed-x5c-sig-missing", .packed(ca: ca), { Self.replace("sig", with: nil, in: &$0) }),
        ]
        var options: Auth.RegistrationOptions
        for (name, attestation, edit) in statementEdits {
            options = Auth.RegistrationOptions(attestation: attestation)
            options.statement = edit
            try file.register(name, es256, options: options, .reject(.attestation))
        }

        let leafEdits: [(String, (inout CertificateBuilder) -> Void)] = [
            (
                "packed-x5c-ou-not-authenticator-attestation",
                { builder in
                    builder.subject =
                        (try? DistinguishedName([
                            .country("AA"), .organization("Test Vendor"),
                            .organizationalUnit("Engineering"),
                            .commonName("Test Authenticator"),
                        ])) ?? builder.subject
                }
            ),
            ("packed-x5c-leaf-is-ca", { $0.basicConstraints = .init(isCA: true) }),
            ("packed-x5c-no-basic-constraints", { $0.basicConstraints = nil }),
        ]
        for (name, edit) in leafEdits {
            options = Auth.RegistrationOptions()
            options.attestation = .custom(
                fmt: "packed",
                statement: try packedStatement(
                    es256, challenge: file.challenge(name),
                    flags: options.flags, edit: edit))
            try file.register(name, es256, options: options, .reject(.attestation))
        }
        options = Auth.RegistrationOptions()
        options.attestation = .custom(
            fmt: "packed",
            statement: try packedStatement(
                es256, challenge: file.challenge("packed-x5c-aaguid-extension-mismatch"), flags: options.flags,
                aaguid: Array(repeating: 0xEE, count: 16)))
        try file.register("packed-x5c-aaguid-extension-mismatch", es256, options: options, .reject(.attestation))

        // U2F tokens report a zero AAGUID and no UV: only the named fault differs from a real token.
        var u2f = try file.authenticator("u2f")
        u2f.aaguid = Array(repeating: 0, count: 16)
        options = Auth.RegistrationOptions(flags: [.userPresent], attestation: .fidoU2F(ca: ca))
        options.statement = { Self.flipLastByte(of: "sig", in: &$0) }
        try file.register("fido-u2f-bad-signature", u2f, options: options, .reject(.attestation))

        let caDER = ca.certificate.derBytes
        options = Auth.RegistrationOptions()
        options.attestation = .fidoU2F(ca: ca)
        options.flags = [.userPresent]
        options.statement = { entries in
            guard let index = entries.firstIndex(where: { $0.0.text == "x5c" }), let chain = entries[index].1.array else { return }
            entries[index].1 = .array(chain + [.bytes(caDER)])
        }
        try file.register("fido-u2f-two-certificates", u2f, options: options, .reject(.attestation))

        options = Auth.RegistrationOptions(flags: [.userPresent], attestation: .fidoU2F(ca: ca))
        var u2fP384 = try file.authenticator("p384", key: .es384)
        u2fP384.aaguid = Array(repeating: 0, count: 16)
        try file.register("fido-u2f-p384-credential", u2fP384, options: options, .reject(.attestation))

        options = Auth.RegistrationOptions()
        options.attestation = .custom(fmt: "none", statement: .map([(.text("sig"), .bytes([0x00]))]))
        try file.register("none-with-statement", es256, options: options, .reject(.attestation))

        options = Auth.RegistrationOptions()
        options.attestation = .custom(fmt: "x-vendor-format", statement: .map([]))
        try file.register("format-unknown", es256, options: options, .reject(.attestation))

        options = Auth.RegistrationOptions()
        options.attestation = .custom(fmt: "Packed", statement: .map([]))
        try file.register("format-wrong-case", es256, options: options, .reject(.attestation))

        options = Auth.RegistrationOptions()
        options.attestation = .packedSelf
        try file.register(
            "control-packed-self-accepted", es256, options: options,
            .attested(format: "packed", type: .self, trusted: false))
        return file
    }

    /// tpm, android-key, apple and compound statements broken one way each: the signature, the
    /// value that binds the ceremony (extraData, attestationChallenge, nonce), the certificate.
    func attestationFormatRejections() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/attestation-formats.json",
            "Registration: tpm, android-key, apple and compound statements that do not verify "
                + "(signature, the ceremony binding, the certificate, compound structure); each format's "
                + "unaltered statement is accepted as the control")
        file.trustAnchors = [ca.certificate]
        let otherKey = try file.authenticator("main").attestationKey(.p256, "unrelated key")
        // One credential per format, so that each control registers a new credential id.
        func register(
            _ name: String, _ attestation: Auth.Attestation, _ verdict: FixtureFile.Verdict,
            edit: (inout Auth.RegistrationOptions) -> Void = { _ in }
        ) throws {
            var options = Auth.RegistrationOptions(attestation: attestation)
            edit(&options)
            let format = name.split(separator: "-").prefix(2).joined(separator: "-")
            try file.register(name, try file.authenticator(format), options: options, verdict)
        }
        let flipFirst: (inout [UInt8]) -> Void = { if !$0.isEmpty { $0[0] ^= 0x01 } }

        try register("tpm-bad-signature", .tpm(ca: ca), .reject(.attestation)) { $0.statement = { Self.flipLastByte(of: "sig", in: &$0) } }
        try register("tpm-extra-data-not-this-ceremony", .tpm(ca: ca), .reject(.attestation)) { $0.nonce = flipFirst }
        try register("tpm-aik-eku-server-auth", .tpm(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.extendedKeyUsage = ["1.3.6.1.5.5.7.3.1"] }  // id-kp-serverAuth, not tcg-kp-AIKCertificate
        }
        try register("tpm-version-1.2", .tpm(ca: ca), .reject(.attestation)) {
            $0.statement = { Self.replace("ver", with: .text("1.2"), in: &$0) }
        }
        try register("control-tpm-accepted", .tpm(ca: ca), .attested(format: "tpm", type: .attCA, trusted: true))

        try register("android-key-bad-signature", .androidKey(ca: ca), .reject(.attestation)) {
            $0.statement = { Self.flipLastByte(of: "sig", in: &$0) }
        }
        try register("android-key-challenge-not-client-data-hash", .androidKey(ca: ca), .reject(.attestation)) { $0.nonce = flipFirst }
        try register("android-key-certificate-for-another-key", .androidKey(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.publicKey = otherKey.publicKey }
        }
        try register("android-key-no-key-description", .androidKey(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.extraExtensions = [] }
        }
        try register(
            "control-android-key-accepted", .androidKey(ca: ca),
            .attested(format: "android-key", type: .basic, trusted: true))

        try register("apple-nonce-mismatch", .apple(ca: ca), .reject(.attestation)) { $0.nonce = flipFirst }
        try register("apple-credcert-for-another-key", .apple(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.publicKey = otherKey.publicKey }
        }
        try register("apple-no-nonce-extension", .apple(ca: ca), .reject(.attestation)) { $0.certificate = { $0.extraExtensions = [] } }
        try register("control-apple-accepted", .apple(ca: ca), .attested(format: "apple", type: .anonCA, trusted: true))

        try register("compound-single-statement", .compound([.packed(ca: ca)]), .reject(.attestation))
        try register(
            "compound-nested", .compound([.packed(ca: ca), .compound([.packedSelf, .apple(ca: ca)])]),
            .reject(.attestation))
        try register(
            "compound-component-fails", .compound([.packed(ca: ca), .custom(fmt: "packed", statement: .map([]))]),
            .reject(.attestation))
        try register(
            "control-compound-accepted", .compound([.packed(ca: ca), .apple(ca: ca)]),
            .attested(format: "compound", type: .basic, trusted: true))
        return file
    }

    /// Trust required (the fixtures' CA as the only anchor) and not required.
    func trustFiles() throws -> [FixtureFile] {
        var required = FixtureFile(
            "registration/trust.json",
            "Registration with requireTrustedAttestation: attestations that verify but do not chain "
                + "to the trust anchor are rejected; none and self attestations have no chain")
        required.trustAnchors = [ca.certificate]
        required.requireTrustedAttestation = true
        let auth = try required.authenticator("main")
        var options = Auth.RegistrationOptions()
        options.attestation = .packed(ca: rogueCA)
        try required.register("packed-x5c-rogue-root", auth, options: options, .reject(.trust))
        options.attestation = .fidoU2F(ca: rogueCA)
        try required.register("fido-u2f-rogue-root", auth, options: options, .reject(.trust))
        options.attestation = .none
        try required.register("none-attestation", auth, options: options, .reject(.trust))
        options.attestation = .packedSelf
        try required.register("packed-self-attestation", auth, options: options, .reject(.trust))
        options.attestation = .packed(ca: ca)
        try required.register(
            "control-trusted-accepted", auth, options: options,
            .attested(format: "packed", type: .basic, trusted: true))
        // compound under the default .all: every component with a chain must be trusted; a self
        // component claims none, so it neither blocks the trusted chain nor stands in for a rogue one.
        options.attestation = .compound([.packed(ca: ca), .packedSelf])
        try required.register(
            "compound-trusted-chain-and-self-accepted", try required.authenticator("compound"), options: options,
            .attested(format: "compound", type: .basic, trusted: true))
        options.attestation = .compound([.packed(ca: rogueCA), .packedSelf])
        try required.register("compound-rogue-chain-and-self", auth, options: options, .reject(.trust))

        var optional = FixtureFile(
            "registration/trust-not-required.json",
            "Registration without requireTrustedAttestation: an attestation from an unknown root is "
                + "accepted and reported untrusted")
        optional.trustAnchors = [ca.certificate]
        options.attestation = .packed(ca: rogueCA)
        try optional.register(
            "packed-x5c-rogue-root-accepted", try optional.authenticator("rogue"), options: options,
            .attested(format: "packed", type: .basic, trusted: false))
        options.attestation = .packed(ca: ca)
        try optional.register(
            "packed-x5c-trusted-accepted", try optional.authenticator("trusted"), options: options,
            .attested(format: "packed", type: .basic, trusted: true))
        return [required, optional]
    }

    // MARK: Authentication rejections

    /// A file where `main` (ES256, none attestation) registers once per case, each refused with
    /// `category`, then once unchanged (`control-accepted`).
    func registrationRejections(
        _ path: String, _ description: String, _ category: WebAuthnError.Category,
        _ cases: [(name: String, options: Auth.RegistrationOptions)]
    ) throws -> FixtureFile {
        var file = FixtureFile(path, description)
        let authenticator = try file.authenticator("main")
        for (name, options) in cases { try file.register(name, authenticator, options: options, .reject(category)) }
        try file.register("control-accepted", authenticator, .accept)
        return file
    }

    /// A ``loginFile(_:_:flags:)`` where `main` logs in once per case, each refused with
    /// `category`, then once unchanged (`control-accepted`).
    func authenticationRejections(
        _ path: String, _ description: String, _ category: WebAuthnError.Category,
        _ cases: [(name: String, options: Auth.AuthenticationOptions)]
    ) throws -> FixtureFile {
        var (file, authenticator) = try loginFile(path, description)
        for (name, options) in cases { try file.authenticate(name, &authenticator, options: options, .reject(category)) }
        try file.authenticate("control-accepted", &authenticator, .accept)
        return file
    }

    /// A file that starts by registering `main` (ES256, none attestation).
    func loginFile(
        _ path: String, _ description: String, flags: AuthenticatorFlags = [.userPresent, .userVerified]
    )
        throws -> (FixtureFile, TestAuthenticator)
    {
        var file = FixtureFile(path, description)
        let authenticator = try file.authenticator("main")
        try file.register("register", authenticator, options: self.flags(flags), .accept)
        return (file, authenticator)
    }

    func authenticationFiles() throws -> [FixtureFile] {
        var files: [FixtureFile] = []

        files.append(
            try authenticationRejections(
                "authentication/type.json", "Authentication: clientData.type must be webauthn.get", .type,
                [("type-webauthn-create", login { $0.clientData = { $0.type = "webauthn.create" } })]))

        var (challenge, challengeAuth) = try loginFile(
            "authentication/challenge.json",
            "Authentication: the issued challenge, answered once")
        try challenge.authenticate(
            "challenge-differs", &challengeAuth,
            options: login { $0.clientData = { $0.challenge = Array(repeating: 0x42, count: 32) } },
            .reject(.challenge))
        let accepted = try challenge.authenticate("login", &challengeAuth, .accept)
        challenge.add(
            "login-replayed", kind: .authentication, options: accepted.options, issue: false,
            response: accepted.response, expect: FixtureFile.reject(.challenge))
        try challenge.authenticate("login-after-replay", &challengeAuth, .accept)
        files.append(challenge)

        let foreignOrigins = [
            ("origin-foreign", "https://evil.example"), ("origin-http", "http://example.org"),
            ("origin-subdomain", "https://login.example.org"),
        ]
        files.append(
            try authenticationRejections(
                "authentication/origin.json", "Authentication: the origin must be allowed", .origin,
                foreignOrigins.map { name, value in (name, login { $0.clientData = { $0.origin = value } }) } + [
                    ("cross-origin-unexpected", login { $0.clientData = { $0.crossOrigin = true } })
                ]))

        var (rpId, rpIdAuth) = try loginFile("authentication/rpIdHash.json", "Authentication: rpIdHash must be SHA-256 of the RP ID")
        var elsewhere = rpIdAuth
        elsewhere.rpId = "evil.example"
        try rpId.authenticate("rp-id-other-domain", &elsewhere, .reject(.rpIdHash))
        rpIdAuth.signCount = elsewhere.signCount
        try rpId.authenticate("control-accepted", &rpIdAuth, .accept)
        files.append(rpId)

        files.append(
            try authenticationRejections(
                "authentication/userPresence.json", "Authentication: the UP flag must be set", .userPresence,
                [("up-clear", login { $0.flags = [] }), ("up-clear-uv-set", login { $0.flags = [.userVerified] })]))

        var (verification, verificationAuth) = try loginFile(
            "authentication/userVerification.json",
            "Authentication: with userVerification required the UV flag must be set")
        try verification.authenticate(
            "uv-required-clear", &verificationAuth, userVerification: .required,
            options: login { $0.flags = [.userPresent] }, .reject(.userVerification))
        try verification.authenticate(
            "uv-preferred-clear-accepted", &verificationAuth,
            options: login { $0.flags = [.userPresent] }, .accept)
        try verification.authenticate("uv-required-set-accepted", &verificationAuth, userVerification: .required, .accept)
        files.append(verification)

        var backup = FixtureFile(
            "authentication/backupFlags.json",
            "Authentication: BS never without BE, and BE never changes after registration")
        var single = try backup.authenticator("single-device")
        try backup.register("register-single-device", single, .accept)
        var synced = try backup.authenticator("synced")
        try backup.register("register-synced", synced, options: flags([.userPresent, .userVerified, .backupEligible]), .accept)
        try backup.authenticate(
            "bs-without-be", &single, options: login { $0.flags = [.userPresent, .userVerified, .backupState] },
            .reject(.backupFlags))
        try backup.authenticate(
            "be-appeared", &single, options: login { $0.flags = [.userPresent, .userVerified, .backupEligible] },
            .reject(.backupFlags))
        try backup.authenticate(
            "be-disappeared", &synced, options: login { $0.flags = [.userPresent, .userVerified] },
            .reject(.backupFlags))
        try backup.authenticate("single-device-accepted", &single, .accept)
        try backup.authenticate(
            "synced-backed-up-accepted", &synced,
            options: login { $0.flags = [.userPresent, .userVerified, .backupEligible, .backupState] }, .accept)
        try backup.authenticate(
            "synced-not-backed-up-accepted", &synced,
            options: login { $0.flags = [.userPresent, .userVerified, .backupEligible] }, .accept)
        files.append(backup)

        var (unknown, unknownAuth) = try loginFile(
            "authentication/unknownCredential.json",
            "Authentication: the credential must be registered, and listed when allowCredentials is given")
        var stranger = try unknown.authenticator("never-registered")
        try unknown.authenticate("never-registered", &stranger, .reject(.unknownCredential))
        try unknown.authenticate(
            "not-in-allow-credentials", &unknownAuth, allow: [stranger.credentialId],
            .reject(.unknownCredential))
        try unknown.authenticate(
            "control-in-allow-credentials", &unknownAuth,
            allow: [stranger.credentialId, unknownAuth.credentialId], .accept)
        files.append(unknown)

        var (handle, handleAuth) = try loginFile(
            "authentication/userHandle.json",
            "Authentication: a returned user handle must be the credential owner's; "
                + "a discoverable login must return one")
        let otherUser = Array("someone-else".utf8)
        try handle.authenticate(
            "user-handle-differs", &handleAuth,
            options: login { $0.response = { $0.userHandle = otherUser } }, .reject(.userHandle))
        try handle.authenticate(
            "user-handle-differs-with-allow-credentials", &handleAuth, allow: [handleAuth.credentialId],
            options: login { $0.response = { $0.userHandle = otherUser } }, .reject(.userHandle))
        handleAuth.returnsUserHandle = false
        try handle.authenticate("user-handle-missing-discoverable", &handleAuth, .reject(.userHandle))
        try handle.authenticate("user-handle-absent-with-allow-credentials", &handleAuth, allow: [handleAuth.credentialId], .accept)
        handleAuth.returnsUserHandle = true
        try handle.authenticate("user-handle-matches", &handleAuth, .accept)
        files.append(handle)

        files.append(try signatureFile())
        files += try counterFiles()
        return files
    }

    func signatureFile() throws -> FixtureFile {
        var (file, auth) = try loginFile(
            "authentication/signature.json",
            "Authentication: the assertion signature must verify with the registered key")
        try file.authenticate(
            "signature-flipped", &auth, options: login { $0.signature = { Self.flipLast(&$0) } },
            .reject(.signature))
        try file.authenticate("signature-empty", &auth, options: login { $0.signature = { $0 = [] } }, .reject(.signature))
        // Another key claiming the same credential id and user.
        var impostor = try file.authenticator("main", keyTag: "impostor")
        impostor.signCount = auth.signCount
        try file.authenticate("signed-by-another-key", &impostor, .reject(.signature))
        // Authenticator data changed after signing: UV cleared (UV is not required here).
        try file.authenticate(
            "auth-data-altered-after-signing", &auth,
            options: login {
                $0.response = { r in
                    if r.authenticatorData.count > 32 { r.authenticatorData[32] &= ~AuthenticatorFlags.userVerified.rawValue }
                }
            }, .reject(.signature))
        // Client data changed after signing: a member appended.
        try file.authenticate(
            "client-data-altered-after-signing", &auth,
            options: login {
                $0.response = { r in
                    r.clientDataJSON = Array(r.clientDataJSON.dropLast()) + Array(#","extra":"x"}"#.utf8)
                }
            }, .reject(.signature))
        try file.authenticate("control-accepted", &auth, .accept)

        // An RSA and an EdDSA credential: the same rule for every key type.
        for (tag, key) in [("rsa", KeySpec.ps256), ("ed25519", KeySpec.edDSA)] {
            var other = try file.authenticator(tag, key: key)
            try file.register("register-\(tag)", other, .accept)
            try file.authenticate(
                "\(tag)-signature-flipped", &other, options: login { $0.signature = { Self.flipLast(&$0) } },
                .reject(.signature))
            try file.authenticate("\(tag)-accepted", &other, .accept)
        }
        return file
    }

    /// Logs in once per entry, the authenticator reporting the entry's counter.
    func logIn(
        _ file: inout FixtureFile, _ authenticator: inout TestAuthenticator,
        counters: [(name: String, signCount: UInt32, verdict: FixtureFile.Verdict)]
    ) throws {
        for (name, signCount, verdict) in counters {
            try file.authenticate(name, &authenticator, options: login { $0.signCount = signCount }, verdict)
        }
    }

    func counterFiles() throws -> [FixtureFile] {
        var (strict, auth) = try loginFile(
            "authentication/signCount.json",
            "Authentication: the signature counter must increase (possible cloned authenticator)")
        try logIn(
            &strict, &auth,
            counters: [
                ("count-5", 5, .accept), ("count-5-again", 5, .reject(.signCount)), ("count-3", 3, .reject(.signCount)),
                ("count-0", 0, .reject(.signCount)), ("count-6", 6, .accept), ("count-4000000000", 4_000_000_000, .accept),
            ])

        var zero = FixtureFile(
            "authentication/signCount-zero.json",
            "Authentication: an authenticator without a counter reports 0 every time, which is accepted")
        var counterless = try zero.authenticator("main")
        counterless.counterStep = 0
        try zero.register("register", counterless, .accept)
        try zero.authenticate("login-1", &counterless, .accept)
        try zero.authenticate("login-2", &counterless, .accept)

        var lenient = FixtureFile(
            "authentication/signCount-regression-allowed.json",
            "Authentication with allowCounterRegression: a non-increasing counter is accepted (and flagged)")
        lenient.allowCounterRegression = true
        var lenientAuth = try lenient.authenticator("main")
        try lenient.register("register", lenientAuth, .accept)
        try logIn(&lenient, &lenientAuth, counters: [("count-5", 5, .accept), ("count-5-again", 5, .accept), ("count-2", 2, .accept)])

        var preloaded = FixtureFile(
            "authentication/preloaded-credentials.json",
            "Authentication against records from the file's credentials member (no registration replayed)")
        var known = try preloaded.authenticator("known")
        preloaded.preload(known, signCount: 10)
        var synced = try preloaded.authenticator("synced")
        preloaded.preload(synced, signCount: 0, backupEligible: true)
        try logIn(&preloaded, &known, counters: [("count-10-not-greater", 10, .reject(.signCount)), ("count-11", 11, .accept)])
        try preloaded.authenticate(
            "synced-accepted", &synced,
            options: login { $0.flags = [.userPresent, .userVerified, .backupEligible, .backupState] }, .accept)
        try preloaded.authenticate("synced-be-missing", &synced, .reject(.backupFlags))
        return [strict, zero, lenient, preloaded]
    }

    // MARK: Malformed

    func malformedFiles() throws -> [FixtureFile] {
        var registration = FixtureFile(
            "malformed/registration.json",
            "Registration responses whose structures do not parse: JSON, base64url, client data, "
                + "CBOR, authenticator data, COSE key, credential ids")
        let auth = try registration.authenticator("main")
        let bytesCases: [(String, Auth.RegistrationOptions)] = [
            ("client-data-not-json", regOptions { $0.clientDataBytes = { $0 = Array("not json".utf8) } }),
            ("client-data-not-utf8", regOptions { $0.clientDataBytes = { $0 = [0x7B, 0xFF, 0xFE, 0x7D] } }),
            ("client-data-not-an-object", regOptions { $0.clientDataBytes = { $0 = Array("[1,2,3]".utf8) } }),
            (
                "client-data-without-challenge",
                regOptions {
                    $0.clientDataBytes = { $0 = Array(#"{"type":"webauthn.create","origin":"https://example.org"}"#.utf8) }
                }
            ),
            ("attestation-object-not-cbor", regOptions { $0.attestationObject = { $0 = [0xFF] } }),
            ("attestation-object-truncated", regOptions { $0.attestationObject = { $0 = Array($0.dropLast(10)) } }),
            ("attestation-object-trailing-byte", regOptions { $0.attestationObject = { $0.append(0x00) } }),
            (
                "attestation-object-not-a-map",
                regOptions { $0.attestationObject = { $0 = CBOREncoder.encode(CBORItem.array([CBORItem]())) } }
            ),
            ("auth-data-truncated-in-cose-key", regOptions { $0.authData = { $0 = Array($0.dropLast(5)) } }),
            (
                "auth-data-without-attested-credential",
                regOptions {
                    $0.authData = { data in
                        guard data.count > 37 else { return }
                        data = Array(data.prefix(37))
                        data[32] &= ~AuthenticatorFlags.attestedCredentialData.rawValue
                    }
                }
            ),
            (
                "auth-data-credential-id-length-overruns",
                regOptions {
                    $0.authData = { data in
                        guard data.count > 55 else { return }
                        data[53] = 0xFF
                        data[54] = 0xFF
                    }
                }
            ),
            (
                "raw-id-differs-from-auth-data",
                regOptions {
                    $0.response = { r in
                        r.rawId = Array(repeating: 0x77, count: 32)
                        r.id = Base64URL.encode(r.rawId)
                    }
                }
            ),
            ("id-not-base64url-of-raw-id", regOptions { $0.response = { $0.id = "AAAA" } }),
            ("type-not-public-key", regOptions { $0.response = { $0.type = "private-key" } }),
        ]
        for (name, options) in bytesCases {
            try registration.register(name, auth, options: options, .reject(.malformed))
        }
        let jsonCases: [(String, (inout FixtureValue) -> Void)] = [
            // The real clientDataJSON with padding appended: only the encoding is wrong.
            (
                "client-data-json-not-base64url",
                {
                    $0.edit("response") { response in
                        response.edit("clientDataJSON") { if case .string(let text) = $0 { $0 = .string(text + "=") } }
                    }
                }
            ),
            ("attestation-object-missing", { $0.edit("response") { $0.set("attestationObject", nil) } }),
            ("raw-id-missing", { $0.set("rawId", nil) }),
            ("raw-id-with-invalid-characters", { $0.set("rawId", .string("not+base64/url")) }),
            ("response-not-an-object", { $0.set("response", .string("response")) }),
        ]
        for (name, edit) in jsonCases {
            try registration.register(name, auth, editJSON: edit, .reject(.malformed))
        }
        try registration.register("control-accepted", auth, .accept)

        var (authentication, loginAuth) = try loginFile(
            "malformed/authentication.json",
            "Authentication responses whose structures do not parse")
        let loginCases: [(String, Auth.AuthenticationOptions)] = [
            ("auth-data-truncated", login { $0.authData = { $0 = Array($0.prefix(36)) } }),
            ("auth-data-trailing-byte", login { $0.authData = { $0.append(0x00) } }),
            ("auth-data-empty", login { $0.authData = { $0 = [] } }),
            ("client-data-not-json", login { $0.clientDataBytes = { $0 = Array("not json".utf8) } }),
            ("client-data-not-utf8", login { $0.clientDataBytes = { $0 = [0x7B, 0xC3, 0x28, 0x7D] } }),
        ]
        for (name, options) in loginCases {
            try authentication.authenticate(name, &loginAuth, options: options, .reject(.malformed))
        }
        let loginJSONCases: [(String, (inout FixtureValue) -> Void)] = [
            ("signature-not-base64url", { $0.edit("response") { $0.set("signature", .string("%%%")) } }),
            ("authenticator-data-missing", { $0.edit("response") { $0.set("authenticatorData", nil) } }),
            ("user-handle-not-base64url", { $0.edit("response") { $0.set("userHandle", .string("a b")) } }),
        ]
        for (name, edit) in loginJSONCases {
            try authentication.authenticate(name, &loginAuth, editJSON: edit, .reject(.malformed))
        }
        try authentication.authenticate("control-accepted", &loginAuth, .accept)
        return [registration, authentication]
    }

    // MARK: Helpers

    func clientData(_ edit: @escaping (inout Auth.ClientData) -> Void) -> Auth.RegistrationOptions {
        var options = Auth.RegistrationOptions()
        options.clientData = edit
        return options
    }

    func flags(_ flags: AuthenticatorFlags) -> Auth.RegistrationOptions {
        var options = Auth.RegistrationOptions()
        options.flags = flags
        return options
    }

    func regOptions(_ edit: (inout Auth.RegistrationOptions) -> Void) -> Auth.RegistrationOptions {
        var options = Auth.RegistrationOptions()
        edit(&options)
        return options
    }

    func login(_ edit: (inout Auth.AuthenticationOptions) -> Void) -> Auth.AuthenticationOptions {
        var options = Auth.AuthenticationOptions()
        edit(&options)
        return options
    }

    static func flipLast(_ bytes: inout [UInt8]) {
        guard let last = bytes.indices.last else { return }
        bytes[last] ^= 0x01
    }

    static func flipLastByte(of key: String, in entries: inout [(CBORItem, CBORItem)]) {
        guard let index = entries.firstIndex(where: { $0.0.text == key }), var bytes = entries[index].1.bytes.map(Array.init) else {
            return
        }
        flipLast(&bytes)
        entries[index].1 = .bytes(bytes)
    }

    static func replace(_ key: String, with value: CBORItem?, in entries: inout [(CBORItem, CBORItem)]) {
        guard let index = entries.firstIndex(where: { $0.0.text == key }) else { return }
        if let value { entries[index].1 = value } else { entries.remove(at: index) }
    }

    /// A packed x5c statement with a leaf edited away from §8.2.1, signed correctly over
    /// what `authenticator.register(challenge:)` will produce with `flags`.
    func packedStatement(
        _ authenticator: TestAuthenticator, challenge: [UInt8], flags: AuthenticatorFlags,
        aaguid: [UInt8]? = nil, edit: (inout CertificateBuilder) -> Void = { _ in }
    ) throws -> CBORItem {
        let clientData = Auth.ClientData(type: "webauthn.create", challenge: challenge, origin: authenticator.origin).bytes
        let authData = authenticator.registrationAuthData(flags: flags)
        let leafKey = try authenticator.attestationKey(.p256, "edited packed leaf")
        let leaf = try Auth.packedLeaf(key: leafKey, ca: ca, aaguid: aaguid ?? authenticator.aaguid, edit: edit)
        let sig = try leafKey.sign(authData + Digest.sha256.hash(clientData), algorithm: .es256)
        let chain: [CBORItem] = [.bytes(leaf.derBytes)]
        let entries: [(CBORItem, CBORItem)] = [
            (.text("alg"), .int(Int64(COSEAlgorithm.es256.rawValue))), (.text("sig"), .bytes(sig)),
            (.text("x5c"), CBORItem.array(chain)),
        ]
        return CBORItem.map(entries)
    }
}
