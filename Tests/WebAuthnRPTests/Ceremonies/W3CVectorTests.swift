import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// The W3C WebAuthn Level 3 §16 test vectors (none ES256, packed ES256, fido-u2f
/// ES256), restated as facts: the bytes below are the vectors' own, and every
/// expected value is what the specification's vector says about them.
@Suite("W3C WebAuthn L3 §16 test vectors")
struct W3CVectorTests {
    /// One vector: a registration and the authentication that follows it.
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var userId: String
        var registrationChallenge: String
        var credentialId: String
        var registrationClientDataJSON: String
        var attestationObject: String
        /// The credential key as SubjectPublicKeyInfo (the response's `publicKey`).
        var credentialPublicKeySPKI: String
        var trustAnchor: String?
        var format: String
        var attestationType: AttestationType
        var trusted: Bool
        var aaguid: String
        var registrationFlags: UInt8
        var userVerified: Bool
        var backupEligible: Bool
        var backupState: Bool
        var authenticationChallenge: String
        var authenticationClientDataJSON: String
        var authenticatorData: String
        var signature: String
        var authenticationFlags: UInt8

        var testDescription: String { name }
    }

    /// 2025-01-01T00:00:00Z, the vectors' verification time.
    static let verificationTime = Date(timeIntervalSince1970: 1_735_689_600)
    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])

    /// ES256 Credential with No Attestation (none-es256).
    static let noneES256 = Vector(
        name: "none-es256",
        userId: "h5BAzdD8jmeyTXdoSpzULw",
        registrationChallenge: "AMMPt4UxxGTStncdq417YDwBFi8vpIa-pw8oOuVW4TA",
        credentialId: "-R85HbTJsv3g6nAYnLo_tj9Xm6YSKzOtlP8-wzAIS-Q",
        registrationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQU1NUHQ0VXh4R1RTdG5jZHE0MTdZRHdCRmk4dnBJYS1wdzhv"
            + "T3VWVzRUQSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2UsImV4dHJhRGF0YSI6ImNs"
            + "aWVudERhdGFKU09OIG1heSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMg"
            + "dGhpczogQmtRZURqZGNUQnJYQmlBd0pUTEU1USJ9",
        attestationObject:
            "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikv6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LVZAAAAAIRGzLmrHbN0"
            + "dQsjZ_9vOh8AIPkfOR20ybL94OpwGJy6P7Y_V5umEiszrZT_PsMwCEvkpQECAyYgASFYIK_voW-XypstI-uGzLZAmNINuQhWBi6y"
            + "ScM6m2cvJt9hIlggkwpWuHovymYzSwNFir-HlxfBLMaO1zKQry4mZHlrkiA",
        credentialPublicKeySPKI:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEr--hb5fKmy0j64bMtkCY0g25CFYGLrJJwzqbZy8m32GTCla4ei_KZjNLA0WKv4eX"
            + "F8Esxo7XMpCvLiZkeWuSIA",
        trustAnchor: nil,
        format: "none", attestationType: .none, trusted: false,
        aaguid: "8446ccb9-ab1d-b374-750b-2367ff6f3a1f",
        registrationFlags: 0x59, userVerified: false, backupEligible: true, backupState: true,
        authenticationChallenge: "OcDnUhQXulTUPo3JUXT0I97pvzzYBP9tZchXyav01Ag",
        authenticationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiT2NEblVoUVh1bFRVUG8zSlVYVDBJOTdwdnp6WUJQOXRaY2hYeWF2"
            + "MDFBZyIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
        authenticatorData: "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LUZAAAAAA",
        signature: "MEYCIQD1Ck4uRAkknEqFO6NhKC8JhB303UVHoTqHeAIY3v_NOAIhAISArA8Lk1OBdPV1vxGh3V14xuSGAT-TcpXqE2U-Mx6H",
        authenticationFlags: 0x19)

    /// Packed Attestation with ES256 Credential (packed-es256).
    static let packedES256 = Vector(
        name: "packed-es256",
        userId: "kO3CrDXt9718z5WUc9MxuA",
        registrationChallenge: "wRhKX934BF4T3Ef1S2H1pla2ZrWQGPFthw6SVumVIBI",
        credentialId: "yab1s0YtAoc_6gxWhiI0-Z8IFygITlEbt3YCAaiQVKU",
        registrationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoid1JoS1g5MzRCRjRUM0VmMVMySDFwbGEyWnJXUUdQRnRodzZT"
            + "VnVtVklCSSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2UsImV4dHJhRGF0YSI6ImNs"
            + "aWVudERhdGFKU09OIG1heSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMg"
            + "dGhpczogOWE4Yk5ZaktDZ1dyQlhVLWZDbDFhZyJ9",
        attestationObject:
            "o2NmbXRmcGFja2VkZ2F0dFN0bXSjY2FsZyZjc2lnWEcwRQIgPxnsSyKfRquMRe_ym5BP8QwDkNxAvxIW8Ep49M66NCUCIQD-cEGj"
            + "J1mv8FoPnybHCpmceihEUbqJI0odNIPCXiGSW2N4NWOBWQIlMIICITCCAcigAwIBAgIRAIjCIPg8jvH-r-lN6uRfqtAwCgYIKoZI"
            + "zj0EAwIwYjEeMBwGA1UEAwwVV2ViQXV0aG4gdGVzdCB2ZWN0b3JzMQwwCgYDVQQKDANXM0MxJTAjBgNVBAsMHEF1dGhlbnRpY2F0"
            + "b3IgQXR0ZXN0YXRpb24gQ0ExCzAJBgNVBAYTAkFBMCAXDTI0MDEwMTAwMDAwMFoYDzMwMjQwMTAxMDAwMDAwWjBfMR4wHAYDVQQD"
            + "DBVXZWJBdXRobiB0ZXN0IHZlY3RvcnMxDDAKBgNVBAoMA1czQzEiMCAGA1UECwwZQXV0aGVudGljYXRvciBBdHRlc3RhdGlvbjEL"
            + "MAkGA1UEBhMCQUEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASpG6Q4lAndOKQoFBlAyo_rGsDXtDUFWBBKN3ekkyLzeYRA83iz"
            + "OYqy07t7-RMiyS6yNVb1mtCoNv7Ex2Y7Dk3Do2AwXjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB_wQEAwIHgDAdBgNVHQ4EFgQUpYm6"
            + "ctBghCqxH3T7JGve2rFvm5swHwYDVR0jBBgwFoAURa_3FbDdeGdB_umW68FlR6OTGx4wCgYIKoZIzj0EAwIDRwAwRAIgFya52F7N"
            + "il7VEWNyLKOiCIb9myQqCqBFPUQhFgdd79UCIH70ceUwrIeWGoin8NDBewkf_GuSONMPefY1tBe-WRDnaGF1dGhEYXRhWKS_q8N0"
            + "MpWLBjNg061kYcnEc1rn-O3UZZKl4PAUUrLktU0AAAAAh2yk9SBxw-myVQnvLN9-1gAgyab1s0YtAoc_6gxWhiI0-Z8IFygITlEb"
            + "t3YCAaiQVKWlAQIDJiABIVggHPJ_JdpZEgikI5wuMk8QT1hVJUeaKe3u3YMPSOd66uUiWCBZ5LfabAEG4gbOOQyTq5ihWl7DiH5X" + "8Mwr7OgDuSDEIw",
        credentialPublicKeySPKI:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEHPJ_JdpZEgikI5wuMk8QT1hVJUeaKe3u3YMPSOd66uVZ5LfabAEG4gbOOQyTq5ih"
            + "Wl7DiH5X8Mwr7OgDuSDEIw",
        trustAnchor: w3cAttestationCA,
        format: "packed", attestationType: .basic, trusted: true,
        aaguid: "876ca4f5-2071-c3e9-b255-09ef2cdf7ed6",
        registrationFlags: 0x4d, userVerified: true, backupEligible: true, backupState: false,
        authenticationChallenge: "sRBvpGpXvvF4FRHAVX3ImKA0E9Xw8X0kRjDBlMfhrbU",
        authenticationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoic1JCdnBHcFh2dkY0RlJIQVZYM0ltS0EwRTlYdzhYMGtSakRCbE1m"
            + "aHJiVSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2UsImV4dHJhRGF0YSI6ImNsaWVu"
            + "dERhdGFKU09OIG1heSBiZSBleHRlbmRlZCB3aXRoIGFkZGl0aW9uYWwgZmllbGRzIGluIHRoZSBmdXR1cmUsIHN1Y2ggYXMgdGhp"
            + "czogQVpNd3lNeEliRDgtdWd1Rk5wNnI4USJ9",
        authenticatorData: "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LUNAAAAAA",
        signature: "MEUCIGlJadPuko3m8C7yOpxkTX13mRZFFzSpS0MlQvSYoevpAiEAiwgZyCQhipcVLNCZxVv7FHeynZAKSaZAGDFPm_zNoWM",
        authenticationFlags: 0x0d)

    /// FIDO U2F Attestation with ES256 Credential (fido-u2f-es256).
    static let fidoU2FES256 = Vector(
        name: "fido-u2f-es256",
        userId: "SC8_lz5ZBlkhBOHQZ8WV6w",
        registrationChallenge: "4HQ3KZC5yqUHoiffxnsAN4DEUyU4DRqQwg-B7X0IDAY",
        credentialId: "pLpuLSz-xDZI19JcXtVlm8GPK3gVOFJ-vUkt4DJWvfQ",
        registrationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiNEhRM0taQzV5cVVIb2lmZnhuc0FONERFVXlVNERScVF3Zy1C"
            + "N1gwSURBWSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
        attestationObject:
            "o2NmbXRoZmlkby11MmZnYXR0U3RtdKJjc2lnWEcwRQIhAPQYh6IAY7smhny5dRl4rM6luBeRpo9PTdbqH7alwIbDAiBOXgCqOJV3"
            + "fmYI8fN1-VRQBF2j2leg5P1FHfNaMdLZimN4NWOBWQIlMIICITCCAcegAwIBAgIQBPZtxlQup3Gd6kFtMlokATAKBggqhkjOPQQD"
            + "AjBiMR4wHAYDVQQDDBVXZWJBdXRobiB0ZXN0IHZlY3RvcnMxDDAKBgNVBAoMA1czQzElMCMGA1UECwwcQXV0aGVudGljYXRvciBB"
            + "dHRlc3RhdGlvbiBDQTELMAkGA1UEBhMCQUEwIBcNMjQwMTAxMDAwMDAwWhgPMzAyNDAxMDEwMDAwMDBaMF8xHjAcBgNVBAMMFVdl"
            + "YkF1dGhuIHRlc3QgdmVjdG9yczEMMAoGA1UECgwDVzNDMSIwIAYDVQQLDBlBdXRoZW50aWNhdG9yIEF0dGVzdGF0aW9uMQswCQYD"
            + "VQQGEwJBQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABFb_-nCT3t5Grv7vtuUgx8zHiWdjbi-SWCunFFX2TpOTLf875ODU72jj"
            + "47c6oIfiagoKMLAtwqojCdtMOi_JNt6jYDBeMAwGA1UdEwEB_wQCMAAwDgYDVR0PAQH_BAQDAgeAMB0GA1UdDgQWBBRCCCLrGQi1"
            + "zTkRAX-8rUZBwF4FozAfBgNVHSMEGDAWgBRFr_cVsN14Z0H-6ZbrwWVHo5MbHjAKBggqhkjOPQQDAgNIADBFAiANC3d_CgsYGtKD"
            + "AnWswxUP1gkkMLzQNP13vre9-MLVRgIhANSGTt2V2qOScICFXfGZ8XFymbJKXuzvvQF0Vam5NNj2aGF1dGhEYXRhWKS_q8N0MpWL"
            + "BjNg061kYcnEc1rn-O3UZZKl4PAUUrLktUEAAAAAr7PC78BU30JQE9XIjnnDwQAgpLpuLSz-xDZI19JcXtVlm8GPK3gVOFJ-vUkt"
            + "4DJWvfSlAQIDJiABIVggsNYt5rMPhvC6x6kBaVE5HC4xhJ4uZGYcvSsTzX1VCK0iWCBQOwvaKjV6mks0R1oo5ltmC0iYqePpu_CC" + "DUNJQpft0A",
        credentialPublicKeySPKI:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsNYt5rMPhvC6x6kBaVE5HC4xhJ4uZGYcvSsTzX1VCK1QOwvaKjV6mks0R1oo5ltm"
            + "C0iYqePpu_CCDUNJQpft0A",
        trustAnchor: w3cAttestationCA,
        format: "fido-u2f", attestationType: .basic, trusted: true,
        aaguid: "afb3c2ef-c054-df42-5013-d5c88e79c3c1",
        registrationFlags: 0x41, userVerified: false, backupEligible: false, backupState: false,
        authenticationChallenge: "-QxhKYHYT1mUON4aUA92km6SzIS--OAsbiNVPwBIVDU",
        authenticationClientDataJSON:
            "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiLVF4aEtZSFlUMW1VT040YVVBOTJrbTZTeklTLS1PQXNiaU5WUHdC"
            + "SVZEVSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5vcmciLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
        authenticatorData: "v6vDdDKViwYzYNOtZGHJxHNa5_jt1GWSpeDwFFKy5LUBAAAAAA",
        signature: "MEQCIGFyRZlY_qkHtykrkvVVA0v9iEiV8oenYgDBuihyORNwAiBHJ7FmFH4mohu8KSHRkuv-1Wm3lDhTjlwSi14o5pJt1w",
        authenticationFlags: 0x01)

    /// The attestation CA of the W3C L3 test vectors (packed and fido-u2f chain to it).
    static let w3cAttestationCA =
        "MIICBzCCAa2gAwIBAgIRAO1_kF2L0LQU0XhJExcKkLYwCgYIKoZIzj0EAwIwYjEeMBwGA1UEAwwVV2ViQXV0aG4gdGVzdCB2ZWN0"
        + "b3JzMQwwCgYDVQQKDANXM0MxJTAjBgNVBAsMHEF1dGhlbnRpY2F0b3IgQXR0ZXN0YXRpb24gQ0ExCzAJBgNVBAYTAkFBMCAXDTI0"
        + "MDEwMTAwMDAwMFoYDzMwMjQwMTAxMDAwMDAwWjBiMR4wHAYDVQQDDBVXZWJBdXRobiB0ZXN0IHZlY3RvcnMxDDAKBgNVBAoMA1cz"
        + "QzElMCMGA1UECwwcQXV0aGVudGljYXRvciBBdHRlc3RhdGlvbiBDQTELMAkGA1UEBhMCQUEwWTATBgcqhkjOPQIBBggqhkjOPQMB"
        + "BwNCAAQyaTAOX_e2mQFfcM-AqHY79wW8LirwwbOc_3GLfDWIDKMPMZB42RsDOJoAb9_IodzYTt-gfTCqE0dKJIoNq1uqo0IwQDAP"
        + "BgNVHRMBAf8EBTADAQH_MA4GA1UdDwEB_wQEAwIBBjAdBgNVHQ4EFgQURa_3FbDdeGdB_umW68FlR6OTGx4wCgYIKoZIzj0EAwID"
        + "SAAwRQIgSDBjtrsI3Mg9ozoCwR0vQiAxdok1VNE4xhSjaQhyTMgCIQD17yyRLUUAs-L1tZHQYiSR6fIg39H5c07EhLt-kIh2Yw"

    static let all = [noneES256, packedES256, fidoU2FES256]

    static func bytes(_ text: String) throws -> [UInt8] { try Base64URL.decode(text) }

    static func policy(_ vector: Vector) throws -> VerificationPolicy {
        guard let anchor = vector.trustAnchor else { return VerificationPolicy() }
        let certificate = try Certificate(derEncoded: try bytes(anchor))
        return VerificationPolicy(attestation: AttestationPolicy.trusted(by: [certificate]))
    }

    static func registration(_ vector: Vector) throws -> RegistrationResponse {
        RegistrationResponse(
            id: vector.credentialId, rawId: try bytes(vector.credentialId),
            clientDataJSON: try bytes(vector.registrationClientDataJSON),
            attestationObject: try bytes(vector.attestationObject))
    }

    static func authentication(_ vector: Vector) throws -> AuthenticationResponse {
        AuthenticationResponse(
            id: vector.credentialId, rawId: try bytes(vector.credentialId),
            clientDataJSON: try bytes(vector.authenticationClientDataJSON),
            authenticatorData: try bytes(vector.authenticatorData),
            signature: try bytes(vector.signature), userHandle: nil)
    }

    /// The registration challenge as the vector's creation options issued it (ES256 and RS256 offered).
    static func issuedRegistration(_ vector: Vector, expiresAt: Date = verificationTime.addingTimeInterval(300)) throws -> IssuedChallenge {
        IssuedChallenge(
            challenge: try bytes(vector.registrationChallenge), kind: .registration, rpId: "example.org",
            userHandle: try bytes(vector.userId), userVerification: .preferred,
            offeredAlgorithms: [.es256, .rs256], expiresAt: expiresAt)
    }

    static func issuedAuthentication(_ vector: Vector) throws -> IssuedChallenge {
        IssuedChallenge(
            challenge: try bytes(vector.authenticationChallenge), kind: .authentication, rpId: "example.org",
            allowCredentials: [try bytes(vector.credentialId)], userVerification: .preferred,
            expiresAt: verificationTime.addingTimeInterval(300))
    }

    @Test("registration verifies with the vector's outcome", arguments: all)
    func registration(_ vector: Vector) throws {
        var trace = CeremonyTrace()
        let verifier = RegistrationVerifier(relyingParty: Self.relyingParty, policy: try Self.policy(vector))
        let verified = try verifier.verify(
            try Self.registration(vector), issued: try Self.issuedRegistration(vector),
            now: Self.verificationTime, trace: &trace)
        let record = verified.record
        #expect(record.id == (try Self.bytes(vector.credentialId)))
        #expect(record.id.count == 32)
        #expect(record.aaguid == vector.aaguid)
        #expect(record.algorithm == -7)
        #expect(record.signCount == 0)
        #expect(record.userHandle == (try Self.bytes(vector.userId)))
        #expect(record.uvInitialized == vector.userVerified)
        #expect(record.backupEligible == vector.backupEligible)
        #expect(record.backupState == vector.backupState)
        #expect(record.transports.isEmpty)
        #expect(record.attestationFormat == vector.format)
        #expect(record.attestationType == vector.attestationType)
        #expect(record.attestationTrusted == vector.trusted)
        #expect(verified.attestation.format == vector.format)
        #expect(verified.attestation.type == vector.attestationType)
        #expect(verified.attestation.trusted == vector.trusted)
        #expect(verified.authenticatorData.flags.rawValue == vector.registrationFlags)
        #expect(verified.userPresent)
        #expect(verified.record.uvInitialized == vector.userVerified)
        if let anchor = vector.trustAnchor {
            #expect(verified.attestation.trustAnchor?.derBytes == (try Self.bytes(anchor)))
            #expect(verified.attestation.trustPath.count == 1)
        } else {
            #expect(verified.attestation.trustAnchor == nil && verified.attestation.trustPath.isEmpty)
        }
        // The stored key is the COSE key from authData, and it is the vector's P-256 point.
        let attestation = try AttestationObject(bytes: try Self.bytes(vector.attestationObject))
        let coseKey = try #require(attestation.authenticatorData.attestedCredentialData?.credentialPublicKey)
        #expect(record.publicKey == Array(coseKey.encodedBytes))
        let point = try #require(verified.credentialKey.ec2Coordinates)
        #expect(([0x04] + point.x + point.y)[...] == (try Self.bytes(vector.credentialPublicKeySPKI)).suffix(65))
        #expect(trace.passed("§7.1 step 23") && trace.passed("§7.1 step 29"))
    }

    @Test("registration then authentication through the relying-party service", arguments: all)
    func ceremonyPair(_ vector: Vector) async throws {
        let service = RelyingPartyService(relyingParty: Self.relyingParty, policy: try Self.policy(vector))
        try await service.issue(try Self.issuedRegistration(vector), now: Self.verificationTime)
        let registered = try await service.finishRegistration(try Self.registration(vector), now: Self.verificationTime)
        #expect(registered.record.aaguid == vector.aaguid)

        try await service.issue(try Self.issuedAuthentication(vector), now: Self.verificationTime)
        let report = try await service.finishAuthenticationReport(try Self.authentication(vector), now: Self.verificationTime)
        let verified = try #require(report.outcome.accepted())
        #expect(verified.authenticatorData.flags.rawValue == vector.authenticationFlags)
        #expect(verified.authenticatorData.signCount == 0)
        #expect(report.trace.passed("§7.2 step 5"))
        #expect(report.trace.passed("§7.2 step 22"))
        #expect(report.trace.skipped("§7.2 step 23"))  // both counters zero
        #expect(!verified.counterRegressed)
        #expect(verified.userPresent)
        #expect(verified.userVerified == vector.userVerified)
        let updated = verified.updatedRecord
        #expect(updated.signCount == 0)
        #expect(updated.backupEligible == vector.backupEligible)
        #expect(updated.backupState == vector.backupState)
        #expect(updated.uvInitialized == vector.userVerified)
        let stored = try #require(try await service.credentials.credential(id: try Self.bytes(vector.credentialId)))
        #expect(stored.signCount == 0 && stored.publicKey == registered.record.publicKey)

        // Replayed, the assertion finds its challenge consumed.
        try await service.finishAuthenticationReport(try Self.authentication(vector), now: Self.verificationTime)
            .outcome.expectRejected(.challenge, step: "consume")
    }

    @Test("JSON forms of the vectors decode to the same responses", arguments: all)
    func jsonForms(_ vector: Vector) throws {
        let text = """
            {"id":"\(vector.credentialId)","rawId":"\(vector.credentialId)","type":"public-key","clientExtensionResults":{},
             "response":{"clientDataJSON":"\(vector.registrationClientDataJSON)","attestationObject":"\(vector.attestationObject)","transports":[]}}
            """
        let json = try RegistrationResponseJSON(jsonData: Data(text.utf8))
        let response = RegistrationResponse(json: json)
        #expect(response.attestationObject == (try Self.bytes(vector.attestationObject)))
        let outcome = CeremonyFixture.register(
            response, issued: try Self.issuedRegistration(vector),
            relyingParty: Self.relyingParty, policy: try Self.policy(vector),
            now: Self.verificationTime)
        _ = try #require(outcome.accepted())
    }

    @Test("the attestation certificates are not yet valid in 2023: trust is refused where required")
    func beforeCertificateValidity() throws {
        let early = Date(timeIntervalSince1970: 1_685_577_600)  // 2023-06-01
        for vector in [Self.packedES256, Self.fidoU2FES256] {
            CeremonyFixture.register(
                try Self.registration(vector), issued: try Self.issuedRegistration(vector, expiresAt: .distantFuture),
                relyingParty: Self.relyingParty, policy: try Self.policy(vector), now: early
            )
            .expectRejected(.trust, step: "§7.1 step 29")
        }
        // none has no certificate: the date does not matter.
        _ = CeremonyFixture.register(
            try Self.registration(Self.noneES256),
            issued: try Self.issuedRegistration(Self.noneES256, expiresAt: .distantFuture),
            relyingParty: Self.relyingParty, now: early
        ).accepted()
    }

    @Test("the vectors fail where a byte is wrong", arguments: all)
    func tampered(_ vector: Vector) throws {
        let policy = try Self.policy(vector)
        let issued = try Self.issuedRegistration(vector)
        // The registration for another RP ID.
        CeremonyFixture.register(
            try Self.registration(vector),
            issued: IssuedChallenge(
                challenge: issued.challenge, kind: .registration, rpId: "example.com",
                userHandle: issued.userHandle, offeredAlgorithms: [.es256],
                expiresAt: issued.expiresAt),
            relyingParty: Self.relyingParty, policy: policy, now: Self.verificationTime
        )
        .expectRejected(.rpIdHash, step: "§7.1 step 14")
        // Only RS256 offered: the ES256 credential was not asked for.
        CeremonyFixture.register(
            try Self.registration(vector),
            issued: IssuedChallenge(
                challenge: issued.challenge, kind: .registration, rpId: "example.org",
                userHandle: issued.userHandle, offeredAlgorithms: [.rs256],
                expiresAt: issued.expiresAt),
            relyingParty: Self.relyingParty, policy: policy, now: Self.verificationTime
        )
        .expectRejected(.algorithm, step: "§7.1 step 20")
        // The assertion with one signature bit flipped.
        let record = try #require(
            CeremonyFixture.register(
                try Self.registration(vector), issued: issued,
                relyingParty: Self.relyingParty, policy: policy,
                now: Self.verificationTime
            ).accepted()
        ).record
        var assertion = try Self.authentication(vector)
        assertion.signature[assertion.signature.count - 1] ^= 0x01
        CeremonyFixture.authenticate(
            assertion, issued: try Self.issuedAuthentication(vector), record: record,
            relyingParty: Self.relyingParty, policy: policy, now: Self.verificationTime
        )
        .expectRejected(.signature, step: "§7.2 step 22")
        // Accepted untouched against the same record.
        _ = CeremonyFixture.authenticate(
            try Self.authentication(vector), issued: try Self.issuedAuthentication(vector),
            record: record, relyingParty: Self.relyingParty, policy: policy,
            now: Self.verificationTime
        ).accepted()
    }
}
