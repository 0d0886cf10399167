import WebAuthnCrypto
import WebAuthnRP

extension Corpus {
    /// Attestation certificate and statement rules (issue 17, items 5-9), each ceremony made by
    /// the test authenticator with exactly one detail wrong and everything else signed and valid:
    /// packed basicConstraints, the tpm AIK certificate's SAN and TPMManufacturer, tpm pubArea
    /// parameters against its unique field, android-key purpose. Controls are accepted.
    func attestationRuleRejections() throws -> FixtureFile {
        var file = FixtureFile(
            "registration/attestation-certificate-rules.json",
            "Registration: attestation certificate and statement rules: packed basicConstraints "
                + "absent or CA=true; tpm AIK certificate SAN not critical, TPM manufacturer outside the "
                + "TCG registry or not in the id:XXXXXXXX form; tpm pubArea parameters contradicting its "
                + "unique field; android-key purpose other than exactly {SIGN}. Controls are accepted")
        file.trustAnchors = [ca.certificate]
        let ca = self.ca
        func register(
            _ name: String, _ authenticator: TestAuthenticator, _ attestation: Auth.Attestation,
            _ verdict: FixtureFile.Verdict, edit: (inout Auth.RegistrationOptions) -> Void = { _ in }
        ) throws {
            var options = Auth.RegistrationOptions(attestation: attestation)
            edit(&options)
            try file.register(name, authenticator, options: options, verdict)
        }
        let tpmAccepted = FixtureFile.Verdict.attested(format: "tpm", type: .attCA, trusted: true)

        // packed §8.2.1: "The Basic Constraints extension MUST have the CA component set to false."
        let packed = try file.authenticator("packed")
        try register("packed-no-basic-constraints", packed, .packed(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.basicConstraints = nil }
        }
        try register("packed-basic-constraints-ca-true", packed, .packed(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.basicConstraints = .init(isCA: true) }
        }
        try register(
            "control-packed-basic-constraints-ca-false", packed, .packed(ca: ca),
            .attested(format: "packed", type: .basic, trusted: true))

        // tpm §8.3.1: the SAN as TPMv2-EK-Profile §3.2.9 defines it: critical, since the subject is empty.
        let tpm = try file.authenticator("tpm")
        try register("tpm-san-not-critical", tpm, .tpm(ca: ca), .reject(.attestation)) {
            $0.certificate = { $0.subjectAlternativeNamesAreCritical = false }
        }
        // TPMManufacturer: a TCG-registered vendor (by default), written "id:" + eight hex digits.
        for (name, value) in [
            ("unregistered-vendor", "id:12345678"), ("no-id-prefix", "4E544300"),
            ("seven-digits", "id:4E54430"), ("upper-case-prefix", "ID:4E544300"),
            ("non-hex-digit", "id:4E54430G"),
        ] {
            try register("tpm-manufacturer-\(name)", tpm, .tpm(ca: ca), .reject(.attestation)) {
                $0.details.tpmManufacturer = value
            }
        }
        try register("control-tpm-manufacturer-nuvoton", try file.authenticator("tpm nuvoton"), .tpm(ca: ca), tpmAccepted) {
            $0.details.tpmManufacturer = "id:4E544300"
        }
        // Qualcomm fTPMs write the hex digits in lower case.
        try register(
            "control-tpm-manufacturer-qualcomm-lower-case-hex", try file.authenticator("tpm qualcomm"), .tpm(ca: ca),
            tpmAccepted
        ) {
            $0.details.tpmManufacturer = "id:51434f4d"
        }

        // tpm §8.3: the key "specified by the parameters and unique fields of pubArea".
        let rsa = try file.authenticator("tpm rsa", key: .rs256)
        try register("tpm-rsa-keybits-1024-over-2048-bit-modulus", rsa, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.keyBits = 1024 }
        }
        try register("tpm-rsa-modulus-with-leading-zero-byte", rsa, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { fields in
                fields.modulus = [0] + (fields.modulus ?? [])
                fields.keyBits = 2056
            }
        }
        try register("tpm-rsa-symmetric-aes-on-signing-key", rsa, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.symmetric = TPMSymmetricDefinition(algorithm: 0x0006, keyBits: 128, mode: 0x0043) }
        }
        try register("tpm-rsa-scheme-oaep", rsa, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.scheme = TPMScheme(scheme: 0x0017, hashAlgorithm: TPMStructureEncoder.algSHA256) }
        }
        try register("tpm-rsa-scheme-pss-for-rs256-credential", rsa, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.scheme = TPMScheme(scheme: 0x0016, hashAlgorithm: TPMStructureEncoder.algSHA256) }
        }
        try register(
            "control-tpm-rsa-scheme-rsassa-sha256", try file.authenticator("tpm rsa rsassa", key: .rs256),
            .tpm(ca: ca), tpmAccepted
        ) {
            $0.details.tpmPublicArea = { $0.scheme = TPMScheme(scheme: 0x0014, hashAlgorithm: TPMStructureEncoder.algSHA256) }
        }
        try register("tpm-ecc-curve-p384-over-p256-point", tpm, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.curveID = TPMStructureEncoder.curveP384 }
        }
        try register("tpm-ecc-kdf-not-null", tpm, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.kdf = TPMScheme(scheme: 0x0020, hashAlgorithm: TPMStructureEncoder.algSHA256) }
        }
        // A P-256 key whose x begins with a zero byte: the same value in 31 bytes is not a P-256 coordinate.
        let shortX = try Self.authenticator(in: file, "tpm short x") { $0.privateKey.publicKey.ecCoordinates?.x.first == 0 }
        try register("tpm-ecc-x-coordinate-31-bytes", shortX, .tpm(ca: ca), .reject(.attestation)) {
            $0.details.tpmPublicArea = { $0.x.removeFirst() }
        }
        try register("control-tpm-ecc-x-coordinate-full-size", shortX, .tpm(ca: ca), tpmAccepted)

        // android-key §8.4.1: "The value in the AuthorizationList.purpose field is equal to KM_PURPOSE_SIGN."
        let android = try file.authenticator("android-key")
        for (name, tee, software) in [
            ("decrypt-and-sign", [2, 1], nil), ("sign-and-agree-key", [2, 6], nil),
            ("empty-set", [], nil), ("software-list-says-decrypt", [2], [1]),
            ("sign-only-in-software-tee-says-decrypt", [1], [2]),
        ] as [(String, [Int]?, [Int]?)] {
            try register("android-key-purpose-\(name)", android, .androidKey(ca: ca), .reject(.attestation)) {
                $0.details.androidKeyTEEPurposes = tee
                $0.details.androidKeySoftwarePurposes = software
            }
        }
        try register(
            "control-android-key-purpose-sign-in-both-lists", android, .androidKey(ca: ca),
            .attested(format: "android-key", type: .basic, trusted: true)
        ) {
            $0.details.androidKeySoftwarePurposes = [2]
        }
        return file
    }

    /// The first of this file's authenticators tagged `tag` (key tags `tag 0`, `tag 1`…) whose
    /// key satisfies `wanted`: deterministic, so regenerating gives the same bytes.
    static func authenticator(
        in file: FixtureFile, _ tag: String,
        where wanted: (TestAuthenticator) -> Bool
    ) throws -> TestAuthenticator {
        for index in 0..<4096 {
            let candidate = try file.authenticator(tag, keyTag: "\(tag) \(index)")
            if wanted(candidate) { return candidate }
        }
        throw WebAuthnError(.malformed, "no key among 4096 seeds for \(tag) has the property asked for")
    }
}
