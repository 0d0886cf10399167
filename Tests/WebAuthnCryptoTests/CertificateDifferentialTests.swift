import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto

/// The fields `Certificate` reads from its one DER walk equal what libcrypto's getters report,
/// on every certificate the project holds (Fixtures/) and on every certificate of the shared
/// conformance corpora (read in place, never copied).
@Suite("X.509: DER walk against libcrypto")
struct CertificateDifferentialTests {
    static let packageRoot = URL(fileURLWithPath: "\(#filePath)")
        .deletingLastPathComponent()  // WebAuthnCryptoTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// `../shared/conformance` beside the package root (`/work/shared/conformance` for a worktree in /work).
    static let sharedConformance = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance")
    static var sharedIsPresent: Bool {
        FileManager.default.fileExists(atPath: sharedConformance.appendingPathComponent("devices").path)
    }

    static func compare(_ certificates: [(der: [UInt8], file: String)]) {
        for (der, file) in certificates {
            let differences = CertificateDifferential.differences(der)
            #expect(differences.isEmpty, "\(file): \(differences)")
            #expect((try? Certificate(derEncoded: der)) != nil, "\(file): a corpus certificate parses")
        }
    }

    @Test func everyFixtureCertificate() throws {
        let certificates = CertificateDifferential.certificates(
            inJSONFilesUnder: Self.packageRoot.appendingPathComponent("Fixtures"))
        // Fixtures/ holds well over a hundred distinct certificates (x5c chains, metadata roots).
        #expect(certificates.count > 150, "found \(certificates.count)")
        Self.compare(certificates)
    }

    @Test(.enabled(if: sharedIsPresent, "needs ../shared/conformance"))
    func everySharedConformanceCertificate() throws {
        var total = 0
        for folder in ["devices", "w3c-l3", "w3c-l3-negative", "metadata"] {
            let url = Self.sharedConformance.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let certificates = CertificateDifferential.certificates(inJSONFilesUnder: url)
            total += certificates.count
            Self.compare(certificates)
        }
        #expect(total > 50, "found \(total)")
    }

    /// Single-byte changes of a real certificate: whenever `Certificate` accepts the result,
    /// libcrypto's getters read it too, and the same fields.
    @Test func singleByteChangesReadTheSameThroughBothReaders() throws {
        let certificates = CertificateDifferential.certificates(
            inJSONFilesUnder: Self.packageRoot.appendingPathComponent("Fixtures/attestation/packed-x5c"))
        let sample = try #require(certificates.first).der
        var accepted = 0
        for position in sample.indices {
            for replacement in [sample[position] ^ 0x01, sample[position] ^ 0x80, 0x00] where replacement != sample[position] {
                var mutated = sample
                mutated[position] = replacement
                // Certificate may refuse more (an explicit v1, a changed inner algorithm…).
                guard (try? Certificate(derEncoded: mutated)) != nil else { continue }
                accepted += 1
                let differences = CertificateDifferential.differences(mutated)
                #expect(differences.isEmpty, "byte \(position) → \(replacement): \(differences)")
            }
        }
        // Changes inside names, keys and signatures still parse: the comparison saw real work.
        #expect(accepted > sample.count / 2, "accepted \(accepted)")
    }
}
