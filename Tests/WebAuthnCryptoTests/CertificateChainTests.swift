import Foundation
import Testing
import WebAuthnTestSupport

@testable import WebAuthnCrypto

@Suite("Certificate chain verification")
struct CertificateChainTests {
    let rootKey: PrivateKey
    let root: Certificate
    let intermediateKey: PrivateKey
    let intermediate: Certificate
    let leafKey: PrivateKey
    let leaf: Certificate
    let now = TestPKI.date(2025, 6, 1)

    init() throws {
        rootKey = try PrivateKey.generate(.p256)
        root = try TestPKI.selfSignedCA("Root", key: rootKey)
        intermediateKey = try PrivateKey.generate(.p384)
        intermediate = try TestPKI.issue("Intermediate", key: intermediateKey, isCA: true, by: root, issuerKey: rootKey)
        leafKey = try PrivateKey.generate(.p256)
        // Like most attestation leaves: no basicConstraints, no EKU.
        leaf = try TestPKI.issue("Leaf", key: leafKey, isCA: nil, by: intermediate, issuerKey: intermediateKey)
    }

    /// The CryptoError `body` throws (recording an issue when it does not throw).
    private func failure(_ body: () throws -> Void) -> CryptoError? {
        do {
            try body()
            Issue.record("expected the chain to be rejected")
            return nil
        } catch let error as CryptoError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func validChainIsAccepted() throws {
        let chain = try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustAnchors: [root], at: now)
        #expect(chain.certificates == [leaf, intermediate, root])
        #expect(chain.anchor == root)
    }

    @Test func unrelatedIntermediatesAndAnchorsAreIgnored() throws {
        let otherKey = try PrivateKey.generate(.p256)
        let otherRoot = try TestPKI.selfSignedCA("Other Root", key: otherKey)
        let otherIntermediate = try TestPKI.issue(
            "Other Intermediate", key: try PrivateKey.generate(.p256), isCA: true,
            by: otherRoot, issuerKey: otherKey)
        let chain = try CertificateChain.verify(
            leaf: leaf, intermediates: [otherIntermediate, intermediate], trustAnchors: [otherRoot, root], at: now)
        #expect(chain.certificates == [leaf, intermediate, root])
        #expect(chain.anchor == root)
    }

    @Test func intermediateGivenAsAnchorIsAccepted() throws {
        let chain = try CertificateChain.verify(leaf: leaf, intermediates: [], trustAnchors: [intermediate], at: now)
        #expect(chain.certificates == [leaf, intermediate])
        #expect(chain.anchor == intermediate)
    }

    @Test func missingIntermediateIsRejected() {
        let error = failure { _ = try CertificateChain.verify(leaf: leaf, intermediates: [], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("issuer") == true)
    }

    @Test func noAnchorsIsRejected() {
        let error = failure { _ = try CertificateChain.verify(leaf: leaf, intermediates: [intermediate, root], trustAnchors: [], at: now) }
        #expect(error?.code == .untrustedChain)
    }

    @Test func expiredLeafIsRejected() throws {
        let expired = try TestPKI.issue("Expired", key: leafKey, isCA: nil, by: intermediate, issuerKey: intermediateKey) {
            $0.notBefore = TestPKI.date(2020, 1, 1)
            $0.notAfter = TestPKI.date(2025, 5, 31)
        }
        let error = failure { _ = try CertificateChain.verify(leaf: expired, intermediates: [intermediate], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("expired") == true)
        #expect(error?.reason.contains("depth 0") == true)
        // The same certificate verifies at a time inside its validity.
        _ = try CertificateChain.verify(
            leaf: expired, intermediates: [intermediate], trustAnchors: [root],
            at: TestPKI.date(2025, 5, 30))
    }

    @Test func notYetValidLeafIsRejected() throws {
        let future = try TestPKI.issue("Future", key: leafKey, isCA: nil, by: intermediate, issuerKey: intermediateKey) {
            $0.notBefore = TestPKI.date(2025, 6, 2)
        }
        let error = failure { _ = try CertificateChain.verify(leaf: future, intermediates: [intermediate], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("not yet valid") == true)
    }

    @Test func verificationTimeComesFromTheCallerNotTheClock() throws {
        // Valid only in 2001: accepted at a 2001 time whatever the system clock says.
        let oldRootKey = try PrivateKey.generate(.p256)
        var rootBuilder = try TestPKI.builder("Old Root", key: oldRootKey, isCA: true)
        rootBuilder.notBefore = TestPKI.date(2000, 1, 1)
        rootBuilder.notAfter = TestPKI.date(2002, 1, 1)
        let oldRoot = try rootBuilder.sign(with: oldRootKey)
        let oldLeaf = try TestPKI.issue("Old Leaf", key: leafKey, isCA: nil, by: oldRoot, issuerKey: oldRootKey) {
            $0.notBefore = TestPKI.date(2001, 1, 1)
            $0.notAfter = TestPKI.date(2001, 12, 31)
        }
        _ = try CertificateChain.verify(leaf: oldLeaf, intermediates: [], trustAnchors: [oldRoot], at: TestPKI.date(2001, 6, 1))
        #expect(
            failure { _ = try CertificateChain.verify(leaf: oldLeaf, intermediates: [], trustAnchors: [oldRoot], at: now) }?
                .code == .untrustedChain)
        // An expired intermediate fails at depth 1.
        let error = failure {
            _ = try CertificateChain.verify(
                leaf: leaf, intermediates: [intermediate], trustAnchors: [root],
                at: TestPKI.date(2041, 1, 1))
        }
        #expect(error?.reason.contains("expired") == true)
    }

    @Test func wrongIssuerIsRejected() throws {
        let otherKey = try PrivateKey.generate(.p256)
        let otherRoot = try TestPKI.selfSignedCA("Other Root", key: otherKey)
        let error = failure {
            _ = try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustAnchors: [otherRoot], at: now)
        }
        #expect(error?.code == .untrustedChain)
    }

    @Test func leafNotSignedByItsIssuerIsRejected() throws {
        // Names the intermediate as issuer but is signed by another key.
        let forger = try PrivateKey.generate(.p384)
        let forged = try TestPKI.issue("Forged", key: leafKey, isCA: nil, by: intermediate, issuerKey: forger)
        #expect(forged.issuer == intermediate.subject)
        #expect(!forged.isSignatureValid(issuer: intermediate))
        let error = failure { _ = try CertificateChain.verify(leaf: forged, intermediates: [intermediate], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("signature") == true)
    }

    @Test(arguments: [nil, false] as [Bool?])
    func issuerWithoutCABasicConstraintIsRejected(isCA: Bool?) throws {
        let notCAKey = try PrivateKey.generate(.p256)
        let notCA = try TestPKI.issue("Not a CA", key: notCAKey, isCA: nil, by: root, issuerKey: rootKey) { builder in
            if let isCA { builder.basicConstraints = .init(isCA: isCA) }
            builder.keyUsage = [.keyCertSign, .digitalSignature]
        }
        let issued = try TestPKI.issue("Leaf under non-CA", key: leafKey, isCA: nil, by: notCA, issuerKey: notCAKey)
        #expect(issued.isSignatureValid(issuer: notCA))
        let error = failure { _ = try CertificateChain.verify(leaf: issued, intermediates: [notCA], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("CA") == true)
    }

    @Test func selfSignedCertificateInTheChainIsNotTrusted() throws {
        // A rogue root with the same name as the trusted one, offered as an intermediate.
        let rogueKey = try PrivateKey.generate(.p256)
        let rogueRoot = try TestPKI.selfSignedCA("Root", key: rogueKey)
        #expect(rogueRoot.subject == root.subject)
        let rogueLeaf = try TestPKI.issue("Rogue Leaf", key: leafKey, isCA: nil, by: rogueRoot, issuerKey: rogueKey)
        let error = failure { _ = try CertificateChain.verify(leaf: rogueLeaf, intermediates: [rogueRoot], trustAnchors: [root], at: now) }
        #expect(error?.code == .untrustedChain)
        // A self-signed leaf is not trusted either unless it is an anchor.
        let selfSigned = try TestPKI.selfSignedCA("Self", key: leafKey)
        #expect(
            failure { _ = try CertificateChain.verify(leaf: selfSigned, intermediates: [selfSigned], trustAnchors: [root], at: now) }?
                .code == .untrustedChain)
        let accepted = try CertificateChain.verify(leaf: selfSigned, intermediates: [], trustAnchors: [selfSigned], at: now)
        #expect(accepted.certificates == [selfSigned])
    }

    @Test func pathLengthConstraintIsEnforced() throws {
        let constrainedKey = try PrivateKey.generate(.p256)
        var builder = try TestPKI.builder("Constrained Root", key: constrainedKey, isCA: true)
        builder.basicConstraints = .init(isCA: true, pathLength: 0)
        let constrained = try builder.sign(with: constrainedKey)
        let subCA = try TestPKI.issue("Sub CA", key: intermediateKey, isCA: true, by: constrained, issuerKey: constrainedKey)
        let deepLeaf = try TestPKI.issue("Deep Leaf", key: leafKey, isCA: nil, by: subCA, issuerKey: intermediateKey)
        let error = failure {
            _ = try CertificateChain.verify(leaf: deepLeaf, intermediates: [subCA], trustAnchors: [constrained], at: now)
        }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("path length") == true)
    }

    @Test func unknownCriticalExtensionIsRejected() throws {
        let critical = try TestPKI.issue("Critical", key: leafKey, isCA: nil, by: intermediate, issuerKey: intermediateKey) {
            $0.extraExtensions = [CertificateExtension(oid: "1.2.3.4.99", isCritical: true, value: DEREncoder.null())]
        }
        let error = failure {
            _ = try CertificateChain.verify(leaf: critical, intermediates: [intermediate], trustAnchors: [root], at: now)
        }
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("critical") == true)
    }

    @Test func nonFiniteTimeIsRejected() {
        let error = failure {
            _ = try CertificateChain.verify(
                leaf: leaf, intermediates: [intermediate], trustAnchors: [root],
                at: Date(timeIntervalSince1970: .infinity))
        }
        #expect(error?.code == .untrustedChain)
    }

    @Test func sharedCertificatesVerifyConcurrently() async throws {
        let (leaf, intermediate, root, now) = (leaf, intermediate, root, now)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    (try? CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustAnchors: [root], at: now)) != nil
                        && leaf.isSignatureValid(issuer: intermediate)
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0 })
    }
}
