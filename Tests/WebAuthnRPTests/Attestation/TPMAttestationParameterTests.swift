import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// pubArea parameter rules (§8.3, TPM 2.0 Part 2) the mutation campaign (Docs/Mutation.md)
/// found without a test that isolates them.
@Suite("tpm attestation: pubArea parameters, one rule at a time")
struct TPMAttestationParameterTests {
    static let modulus = [0x80] + Array(repeating: UInt8(0x11), count: 255)

    static func check(_ bytes: [UInt8]) throws -> WebAuthnError? {
        let pubArea = try TPMPublicArea(parsing: bytes)
        do throws(WebAuthnError) {
            try TPMAttestation.checkParameters(pubArea, algorithm: .rs256, format: "tpm")
            return nil
        } catch {
            return error
        }
    }

    @Test("a 2048-bit modulus sent in 257 bytes (a leading zero) is refused though its bit length is keyBits")
    func modulusNotAtItsFullSize() throws {
        #expect(try Self.check(TPMStructureEncoder.rsaPublicArea(modulus: Self.modulus)) == nil)
        let error = try Self.check(TPMStructureEncoder.rsaPublicArea(keyBits: 2048, modulus: [0] + Self.modulus))
        #expect(error?.category == .attestation)
        #expect(
            error?.message.contains("keyBits is 2048 but unique.rsa is a 2048-bit modulus in 257 bytes") == true,
            "\(String(describing: error))")
    }

    @Test(
        "a symmetric definition needs both restricted and decrypt: either alone is refused",
        arguments: [UInt32(0x0001_0072), 0x0002_0072, 0x0000_0072])
    func symmetricNeedsRestrictedDecryption(objectAttributes: UInt32) throws {
        let aes128CFB = TPMSymmetricDefinition(algorithm: 0x0006, keyBits: 128, mode: 0x0043)
        let error = try Self.check(
            TPMStructureEncoder.rsaPublicArea(
                objectAttributes: objectAttributes, symmetric: aes128CFB,
                modulus: Self.modulus))
        #expect(error?.category == .attestation)
        #expect(error?.message.contains("symmetric is 0x0006, not TPM_ALG_NULL") == true, "\(String(describing: error))")
        // Both bits: a restricted decryption key may carry one.
        #expect(
            try Self.check(
                TPMStructureEncoder.rsaPublicArea(
                    objectAttributes: 0x0003_0072, symmetric: aes128CFB,
                    modulus: Self.modulus)) == nil)
    }
}
