import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// ``VerificationPolicy/fidoConformance(trust:)`` beside the default: where the FIDO conformance
/// tool departs from W3C L3 the profile departs with it, and the default stays L3.
@Suite("FIDO conformance profile and the L3 default")
struct ConformanceProfileTests {
    typealias F = CeremonyFixture
    static let registrationChallenge = Array(repeating: UInt8(0xA1), count: 32)
    static let loginChallenge = Array(repeating: UInt8(0xB2), count: 32)

    static func profile(_ anchors: [Certificate]) -> VerificationPolicy {
        VerificationPolicy.fidoConformance(trust: FixedTrustAnchors(anchors))
    }

    @Test("an assertion with UP clear: refused by default (userPresence, §7.2 step 16), accepted by the profile")
    func userPresenceClear() throws {
        var authenticator = try TestAuthenticator()
        let options = TestAuthenticator.AuthenticationOptions(flags: [])
        let response = try authenticator.authenticate(challenge: Self.loginChallenge, options)
        F.authenticate(response, record: authenticator.record()).expectRejected(.userPresence, step: "§7.2 step 16")
        let accepted = F.authenticate(response, record: authenticator.record(), policy: Self.profile([]))
        #expect(accepted.accepted()?.userPresent == false)
        #expect(accepted.trace.skipped("§7.2 step 16"))
    }

    @Test("a registration with UP clear is refused by the profile too (only assertions depart)")
    func registrationUserPresence() throws {
        let options = TestAuthenticator.RegistrationOptions(flags: [])
        F.register(try TestAuthenticator().register(challenge: Self.registrationChallenge, options), policy: Self.profile([]))
            .expectRejected(.userPresence, step: "§7.1 step 15")
    }

    @Test("the profile's trust rule: a chain must end in an anchor, self and none are accepted")
    func trustRule() throws {
        let ca = try TestAuthenticator.CA.make()
        let other = try TestAuthenticator.CA.make()
        let profile = Self.profile([ca.certificate])
        func register(_ attestation: TestAuthenticator.Attestation) throws -> CeremonyOutcome<VerifiedRegistration> {
            F.register(
                try TestAuthenticator().register(challenge: Self.registrationChallenge, .init(attestation: attestation)),
                policy: profile)
        }
        #expect(try register(.packed(ca: ca)).accepted()?.attestation.trusted == true)
        #expect(try register(.none).accepted()?.attestation.type == AttestationType.none)
        #expect(try register(.packedSelf).accepted()?.attestation.type == .self)
        let untrusted = try register(.packed(ca: other))
        guard case .failure(let error) = untrusted.result else {
            Issue.record("a chain to another root was accepted")
            return
        }
        #expect(error.category == .trust)
    }

    @Test("x5c that carries its own root: trusted by default (RFC 5280: the anchor is an input), refused by the profile")
    func anchorInPath() throws {
        let ca = try TestAuthenticator.CA.make()
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try TestAuthenticator.packedLeaf(key: leafKey, ca: ca, aaguid: TestAuthenticator.defaultAAGUID)
        let options = TestAuthenticator.RegistrationOptions(
            attestation: .packedChain(leafKey: leafKey, chain: [leaf, ca.certificate], alg: .es256))
        let response = try TestAuthenticator().register(challenge: Self.registrationChallenge, options)
        let byDefault = F.register(response, policy: VerificationPolicy(attestation: .trusted(by: [ca.certificate])))
        #expect(byDefault.accepted()?.attestation.trusted == true)
        let outcome = F.register(response, policy: Self.profile([ca.certificate]))
        guard case .failure(let error) = outcome.result else {
            Issue.record("the profile accepted an x5c carrying its root")
            return
        }
        #expect(error.category == .trust && error.message.contains("x5c[1] is a root or a trust anchor"), "\(error)")
    }

    @Test("the profile accepts RS1 besides the default algorithms; the default does not")
    func rs1() {
        #expect(Self.profile([]).acceptedAlgorithms.contains(.rs1))
        #expect(Self.profile([]).acceptedAlgorithms.starts(with: VerificationPolicy.defaultAlgorithms))
        #expect(!VerificationPolicy().acceptedAlgorithms.contains(.rs1))
        let policy = VerificationPolicy()
        #expect(!policy.userPresenceOptionalInAssertions && !policy.attestation.refusesAnchorInPath)
        #expect(!policy.attestation.formats.tpmNameMayUseItsOwnAlgorithm && !policy.attestation.formats.fidoU2FRequiresZeroAAGUID)
    }
}
