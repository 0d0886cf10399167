import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnRP

/// `AttestationStatementCheck`: one attestation statement verified outside a ceremony (the fuzz
/// targets use it); it must refuse what step 22 of a ceremony refuses.
@Suite("attestation statement check")
struct AttestationStatementCheckTests {
    static func check(format: String, statement: CBORItem) throws -> Result<AttestationResult, WebAuthnError> {
        let authenticator = try TestAuthenticator()
        let authData = try AuthenticatorData(bytes: authenticator.registrationAuthData(flags: [.userPresent])[...])
        do throws(WebAuthnError) {
            return .success(
                try AttestationStatementCheck.verify(
                    format: format, statement: statement, authenticatorData: authData,
                    clientDataHash: Array(repeating: 0x11, count: 32), policy: AttestationPolicy(), at: CeremonyFixture.now))
        } catch {
            return .failure(error)
        }
    }

    @Test("an unsupported fmt is refused (attestation), even with the empty attStmt that none accepts")
    func unsupportedFormatIsRefused() throws {
        if case .success(let result) = try Self.check(format: "none", statement: .map([])) {
            #expect(result.type == .none)
        } else {
            Issue.record("fmt none with an empty attStmt must verify")
        }
        for format in ["none-such", "None", "packed2", ""] {
            guard case .failure(let error) = try Self.check(format: format, statement: .map([])) else {
                Issue.record("fmt \"\(format)\" was accepted")
                continue
            }
            #expect(error.category == .attestation, "\(format)")
        }
    }
}
