import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Issue 17, items 5-9: attestation certificate and statement rules, each run as a whole
/// registration made by the test authenticator with exactly one detail wrong.
@Suite("Attestation certificate and statement rules (issue 17)")
struct AttestationCertificateRuleTests {
    typealias F = CeremonyFixture
    typealias Options = TestAuthenticator.RegistrationOptions
    static let challenge = Array(repeating: UInt8(0xA1), count: 32)

    /// Registers with `attestation`, after `edit`, under `policy`.
    func register(
        _ authenticator: TestAuthenticator, _ attestation: TestAuthenticator.Attestation,
        policy: AttestationPolicy = AttestationPolicy(),
        edit: (inout Options) -> Void = { _ in }
    ) throws -> CeremonyOutcome<VerifiedRegistration> {
        var options = Options(attestation: attestation)
        edit(&options)
        return F.register(
            try authenticator.register(challenge: Self.challenge, options),
            policy: VerificationPolicy(attestation: policy))
    }

    /// Expects an `attestation` rejection whose message contains `fragment`.
    func expectAttestation(
        _ outcome: CeremonyOutcome<VerifiedRegistration>, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        outcome.expectRejected(.attestation, step: "§7.1 step 23", sourceLocation: sourceLocation)
        if case .failure(let error) = outcome.result {
            #expect(error.message.contains(fragment), "\(error.message) lacks \"\(fragment)\"", sourceLocation: sourceLocation)
        }
    }

    // MARK: 5. packed: which basicConstraints fault

    @Test("packed: an absent basicConstraints and CA=true are told apart")
    func packedBasicConstraintsMessages() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 packed ca")
        let authenticator = try TestAuthenticator(seed: "issue17 packed")
        let absent = try register(authenticator, .packed(ca: ca)) { $0.certificate = { $0.basicConstraints = nil } }
        expectAttestation(absent, "attestation certificate has no Basic Constraints extension")
        let isCA = try register(authenticator, .packed(ca: ca)) { $0.certificate = { $0.basicConstraints = .init(isCA: true) } }
        expectAttestation(isCA, "attestation certificate Basic Constraints has CA=true")
        for outcome in [absent, isCA] {
            if case .failure(let error) = outcome.result { #expect(!error.message.contains(" or "), "\(error.message)") }
        }
        _ = try register(authenticator, .packed(ca: ca)).accepted()
    }

    // MARK: 6. tpm: SAN critical with an empty subject

    @Test("tpm: an empty subject with a non-critical Subject Alternative Name is refused")
    func tpmSANNotCritical() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        let authenticator = try TestAuthenticator(key: .es256, seed: "issue17 tpm")
        _ = try register(authenticator, .tpm(ca: ca)).accepted()
        let outcome = try register(authenticator, .tpm(ca: ca)) {
            $0.certificate = { $0.subjectAlternativeNamesAreCritical = false }
        }
        expectAttestation(outcome, "Subject Alternative Name extension is not marked critical")
    }

    // MARK: 7. tpm: the TPM vendor registry and the TPMManufacturer form

    @Test("tpm: a TPM manufacturer outside the TCG registry is refused by default, accepted when relaxed")
    func tpmUnknownManufacturer() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        let authenticator = try TestAuthenticator(key: .es256, seed: "issue17 tpm")
        for unknown in ["id:12345678", "id:FFFFFFFF", "id:49424D20"] {
            let outcome = try register(authenticator, .tpm(ca: ca)) { $0.details.tpmManufacturer = unknown }
            expectAttestation(outcome, "\(unknown), which is not in the TCG TPM vendor registry")
            let relaxed = try register(
                authenticator, .tpm(ca: ca),
                policy: AttestationPolicy(formats: AttestationFormatOptions(requireKnownTPMManufacturer: false))
            ) {
                $0.details.tpmManufacturer = unknown
            }
            _ = relaxed.accepted()
        }
        // Registered vendors of recorded TPMs, and the two test identifiers.
        // Hex digits in either case: Qualcomm fTPMs send "id:51434f4d"; the registry writes IBM "49424d00".
        for known in [
            "id:4E544300", "id:53544D20", "id:494E5443", "id:49465800", "id:FFFFF1D0", "id:00000000",
            "id:51434f4d", "id:49424d00", "id:4e544300",
        ] {
            _ = try register(authenticator, .tpm(ca: ca)) { $0.details.tpmManufacturer = known }.accepted()
        }
    }

    @Test("tpm: a TPMManufacturer not \"id:\" + eight hex digits is refused under any policy")
    func tpmMalformedManufacturer() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        let authenticator = try TestAuthenticator(key: .es256, seed: "issue17 tpm")
        for malformed in [
            "ID:4E544300", "Id:4e544300", "4E544300", "id:4E5443", "id:4E5443000", "id:4E54430G", "id: 4E544300",
            "id:4E54430g", "id:０E544300",
        ] {
            for requireKnown in [true, false] {
                let outcome = try register(
                    authenticator, .tpm(ca: ca),
                    policy: AttestationPolicy(formats: AttestationFormatOptions(requireKnownTPMManufacturer: requireKnown))
                ) {
                    $0.details.tpmManufacturer = malformed
                }
                expectAttestation(outcome, "is not \"id:\" and eight hex digits")
            }
        }
    }

    // MARK: 8. tpm: pubArea parameters against its unique field

    @Test("tpm RSA: keyBits that is not the modulus size is refused")
    func tpmRSAKeyBits() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        let authenticator = try TestAuthenticator(key: .rs256, seed: "issue17 tpm rsa")
        _ = try register(authenticator, .tpm(ca: ca)).accepted()
        for keyBits: UInt16 in [1024, 2040, 2056, 3072, 4096, 0] {
            let outcome = try register(authenticator, .tpm(ca: ca)) { $0.details.tpmPublicArea = { $0.keyBits = keyBits } }
            expectAttestation(outcome, "pubArea.parameters.keyBits is \(keyBits) but unique.rsa is a 2048-bit modulus")
        }
        // The same modulus with a leading zero byte: 2056 bits declared and 257 bytes sent, but a
        // 2048-bit modulus (the value still equals the credential key's n).
        let padded = try register(authenticator, .tpm(ca: ca)) {
            $0.details.tpmPublicArea = { fields in
                fields.modulus = [0] + (fields.modulus ?? [])
                fields.keyBits = 2056
            }
        }
        expectAttestation(padded, "keyBits is 2056 but unique.rsa is a 2048-bit modulus in 257 bytes")
        // An explicit 65537 is the default exponent written out: accepted.
        _ = try register(authenticator, .tpm(ca: ca)) { $0.details.tpmPublicArea = { $0.exponent = 65537 } }.accepted()
    }

    @Test("tpm ECC: coordinates not of the curve's size are refused")
    func tpmECCCoordinateSize() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        // A P-256 key whose x starts with a zero byte, so x without it is the same value in 31 bytes.
        let authenticator = try Self.p256AuthenticatorWithLeadingZeroX()
        _ = try register(authenticator, .tpm(ca: ca)).accepted()
        let short = try register(authenticator, .tpm(ca: ca)) { $0.details.tpmPublicArea = { $0.x.removeFirst() } }
        expectAttestation(short, "curveID is P-256 (32-byte coordinates) but unique.ecc has x of 31 and y of 32 bytes")
        // P-384 declared over P-256-sized coordinates.
        let other = try register(authenticator, .tpm(ca: ca)) {
            $0.details.tpmPublicArea = { $0.curveID = TPMECCCurve.p384.rawValue }
        }
        expectAttestation(other, "curveID is P-384 (48-byte coordinates) but unique.ecc has x of 32 and y of 32 bytes")
    }

    @Test("tpm: symmetric, scheme and kdf must allow the credential's signatures")
    func tpmSchemes() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 tpm ca")
        let rsa = try TestAuthenticator(key: .rs256, seed: "issue17 tpm rsa")
        let ecc = try TestAuthenticator(key: .es256, seed: "issue17 tpm")
        let sha256 = TPMHashAlgorithm.sha256.tpmAlgID
        // The signing scheme of the credential's algorithm, with its hash: accepted.
        _ = try register(rsa, .tpm(ca: ca)) {
            $0.details.tpmPublicArea = { $0.scheme = TPMScheme(scheme: 0x0014, hashAlgorithm: sha256) }  // RSASSA
        }.accepted()
        _ = try register(ecc, .tpm(ca: ca)) {
            $0.details.tpmPublicArea = { $0.scheme = TPMScheme(scheme: 0x0018, hashAlgorithm: sha256) }  // ECDSA
        }.accepted()
        let aes128CFB = TPMSymmetricDefinition(algorithm: 0x0006, keyBits: 128, mode: 0x0043)
        let refused: [(TestAuthenticator, (inout TestAuthenticator.TPMPublicAreaFields) -> Void, String)] = [
            (rsa, { $0.symmetric = aes128CFB }, "symmetric is 0x0006, not TPM_ALG_NULL"),
            (ecc, { $0.symmetric = aes128CFB }, "symmetric is 0x0006, not TPM_ALG_NULL"),
            (rsa, { $0.scheme = TPMScheme(scheme: 0x0017, hashAlgorithm: sha256) }, "scheme is 0x0017"),  // OAEP
            (rsa, { $0.scheme = TPMScheme(scheme: 0x0015, hashAlgorithm: nil) }, "scheme is 0x0015"),  // RSAES
            (rsa, { $0.scheme = TPMScheme(scheme: 0x0016, hashAlgorithm: sha256) }, "scheme is 0x0016"),  // PSS for RS256
            (rsa, { $0.scheme = TPMScheme(scheme: 0x0014, hashAlgorithm: 0x000C) }, "scheme hash is 0x000C"),  // SHA-384
            (ecc, { $0.scheme = TPMScheme(scheme: 0x0019, hashAlgorithm: sha256) }, "scheme is 0x0019"),  // ECDH
            (ecc, { $0.scheme = TPMScheme(scheme: 0x001A, hashAlgorithm: sha256, count: 0) }, "scheme is 0x001A"),  // ECDAA
            (ecc, { $0.kdf = TPMScheme(scheme: 0x0020, hashAlgorithm: sha256) }, "kdf is 0x0020, not TPM_ALG_NULL"),
        ]
        for (authenticator, edit, fragment) in refused {
            expectAttestation(try register(authenticator, .tpm(ca: ca)) { $0.details.tpmPublicArea = edit }, fragment)
        }
    }

    @Test("tpm: the RSA exponent must be a prime greater than 2 (checked on the parsed pubArea)")
    func tpmExponentRule() throws {
        let modulus = [0x80] + Array(repeating: UInt8(0x11), count: 255)
        for (exponent, accepted) in [(UInt32(0), true), (65537, true), (3, true), (1, false), (2, false), (65536, false)] {
            let pubArea = try TPMPublicArea(parsing: TPMStructureEncoder.rsaPublicArea(exponent: exponent, modulus: modulus))
            var error: WebAuthnError?
            do throws(WebAuthnError) {
                try TPMAttestation.checkParameters(pubArea, algorithm: .rs256, format: "tpm")
            } catch let caught {
                error = caught
            }
            if accepted {
                #expect(error == nil, "exponent \(exponent): \(String(describing: error))")
            } else {
                #expect(error?.category == .attestation, "exponent \(exponent)")
                #expect(error?.message.contains("not a prime greater than 2") == true, "exponent \(exponent)")
            }
        }
        // A symmetric definition is allowed on a restricted decryption key (TPMS_RSA_PARMS).
        let storage = try TPMPublicArea(
            parsing: TPMStructureEncoder.rsaPublicArea(
                objectAttributes: 0x0003_0072, symmetric: TPMSymmetricDefinition(algorithm: 0x0006, keyBits: 128, mode: 0x0043),
                modulus: modulus))
        try TPMAttestation.checkParameters(storage, algorithm: .rs256, format: "tpm")
    }

    // MARK: 9. android-key: purpose is exactly {KM_PURPOSE_SIGN}

    @Test("android-key: a purpose set other than exactly {SIGN} is refused")
    func androidKeyPurpose() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 android ca")
        let authenticator = try TestAuthenticator(seed: "issue17 android")
        _ = try register(authenticator, .androidKey(ca: ca)).accepted()
        let refused: [([Int]?, [Int]?, String)] = [
            ([2, 1], nil, "teeEnforced purpose is {1, 2}, not exactly {KM_PURPOSE_SIGN (2)}"),  // DECRYPT + SIGN
            ([2, 3], nil, "teeEnforced purpose is {2, 3}"),  // SIGN + VERIFY
            ([], nil, "teeEnforced purpose is {}"),
            ([2], [1], "softwareEnforced purpose is {1}"),  // software contradicts
            ([2], [2, 6], "softwareEnforced purpose is {2, 6}"),  // SIGN + AGREE_KEY
            ([1], [2], "teeEnforced purpose is {1}"),  // SIGN only in software
            (nil, nil, "no purpose in teeEnforced or softwareEnforced"),
        ]
        for (tee, software, fragment) in refused {
            let outcome = try register(authenticator, .androidKey(ca: ca)) {
                $0.details.androidKeyTEEPurposes = tee
                $0.details.androidKeySoftwarePurposes = software
            }
            expectAttestation(outcome, fragment)
        }
        // Stating SIGN in both lists, or (under the default union policy) only in software, is exactly {SIGN}.
        for (tee, software) in [([2], [2]), ([2, 2], nil), (nil, [2])] as [([Int]?, [Int]?)] {
            _ = try register(authenticator, .androidKey(ca: ca)) {
                $0.details.androidKeyTEEPurposes = tee
                $0.details.androidKeySoftwarePurposes = software
            }.accepted()
        }
    }

    @Test("android-key, TEE-only policy: the TEE list decides and the software list may not contradict it")
    func androidKeyPurposeTEEOnly() throws {
        let ca = try TestAuthenticator.CA.make(seed: "issue17 android ca")
        let authenticator = try TestAuthenticator(seed: "issue17 android")
        let teeOnly = AttestationPolicy(formats: AttestationFormatOptions(androidKeyAuthorizations: .teeEnforcedOnly))
        _ = try register(authenticator, .androidKey(ca: ca), policy: teeOnly).accepted()
        let contradicted = try register(authenticator, .androidKey(ca: ca), policy: teeOnly) {
            $0.details.androidKeySoftwarePurposes = [3]
        }
        expectAttestation(contradicted, "softwareEnforced purpose is {3}")
        let softwareOnly = try register(authenticator, .androidKey(ca: ca), policy: teeOnly) {
            $0.details.androidKeyTEEPurposes = nil
            $0.details.androidKeySoftwarePurposes = [2]
        }
        expectAttestation(softwareOnly, "no purpose in teeEnforced")
    }

    /// A seeded P-256 authenticator whose credential key's x coordinate begins with 0x00.
    static func p256AuthenticatorWithLeadingZeroX() throws -> TestAuthenticator {
        for index in 0..<4096 {
            let authenticator = try TestAuthenticator(key: .es256, seed: "issue17 tpm short x \(index)")
            if authenticator.privateKey.publicKey.ecCoordinates?.x.first == 0 { return authenticator }
        }
        throw WebAuthnError(.malformed, "no seed below 4096 gives an x coordinate with a leading zero byte")
    }
}
