import Foundation
import Testing
import WebAuthnCoding
import WebAuthnTestSupport

@testable import WebAuthnCrypto
@testable import WebAuthnRP

/// Builds `apple` statements from scratch: a test anonymization CA issues credCert for the
/// credential key with the nonce extension encoded by `DEREncoder`.
struct AppleStatementFactory {
    let credential: TestCredential
    let authData: [UInt8]
    let ca: (key: PrivateKey, cert: Certificate)

    init() throws {
        credential = try TestCredential()
        authData = TestAuthData(credentialKey: credential.coseKey).bytes
        ca = try AttestationTestSupport.makeCA(name: "Test Apple Anonymization CA")
    }

    /// SHA-256(authenticatorData || clientDataHash): what credCert must certify.
    var expectedNonce: [UInt8] { Digest.sha256.hash(authData + AttestationTestSupport.clientDataHash) }

    /// DER of `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
    static func nonceExtensionValue(_ nonce: [UInt8]) -> [UInt8] {
        DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce))])
    }

    /// What credCert carries under the Apple nonce OID.
    enum NonceExtension {
        /// The correct nonce, correctly encoded.
        case correct
        /// No extension at all.
        case absent
        /// These exact extension value bytes.
        case value([UInt8])
        /// The correct nonce, correctly encoded, under this other OID (and none under Apple's).
        case otherOID(String)
    }

    /// A credCert for `subjectKey` (default: the credential key) with `nonceExtension`, signed by the CA.
    func credCert(subjectKey: PublicKey? = nil, nonceExtension: NonceExtension = .correct) throws -> Certificate {
        let value: [UInt8]?
        var oid = AppleAttestation.nonceExtensionOID
        switch nonceExtension {
        case .correct: value = Self.nonceExtensionValue(expectedNonce)
        case .absent: value = nil
        case .value(let bytes): value = bytes
        case .otherOID(let other): value = Self.nonceExtensionValue(expectedNonce); oid = other
        }
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Test credential"), .organization("Test"), .init("ST", "Test")]),
            publicKey: subjectKey ?? credential.privateKey.publicKey,
            notBefore: AttestationTestSupport.now.addingTimeInterval(-3600),
            notAfter: AttestationTestSupport.now.addingTimeInterval(86_400))
        builder.issued(by: ca.cert)
        builder.serialNumber = [0x42]
        if let value {
            builder.extraExtensions = [CertificateExtension(oid: oid, isCritical: false, value: value)]
        }
        return try builder.sign(with: ca.key)
    }

    /// `{ x5c: [certs...] }`.
    static func statement(_ certificates: [Certificate]) -> CBORItem {
        .map([(.text("x5c"), .array(certificates.map { .bytes($0.derBytes) }))])
    }

    /// A valid `{ x5c: [credCert, caCert] }`.
    func validStatement() throws -> CBORItem { Self.statement([try credCert(), ca.cert]) }

    func context(
        _ statement: CBORItem, format: String = "apple", policy: AttestationPolicy = AttestationPolicy()
    ) throws -> AttestationContext {
        try AttestationTestSupport.context(format: format, statement: statement, authData: authData, policy: policy)
    }
}

/// Runs `body`, expects a `WebAuthnError` of category `attestation` whose message contains `fragment`.
func expectAttestationFailure(
    _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    let error = #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.category == .attestation, sourceLocation: sourceLocation)
    #expect(
        error?.message.contains(fragment) == true, "message was: \(error?.message ?? "none")",
        sourceLocation: sourceLocation)
}

@Suite("apple attestation (§8.8)")
struct AppleAttestationTests {
    @Test("a statement built by a test anonymization CA verifies as AnonCA with trust path x5c")
    func validStatement() throws {
        let factory = try AppleStatementFactory()
        let credCert = try factory.credCert()
        let outcome = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([credCert, factory.ca.cert])))
        #expect(outcome.type == .anonCA)
        #expect(outcome.trustPath.map(\.derBytes) == [credCert.derBytes, factory.ca.cert.derBytes])
        #expect(outcome.components.isEmpty)
    }

    @Test("the table selects apple, and its trust path chains to the CA when the policy trusts it")
    func trustThroughEvaluator() throws {
        let factory = try AppleStatementFactory()
        let format = try #require(AttestationFormatTable.standard.format("apple"))
        let outcome = try format.verify(try factory.context(try factory.validStatement()))
        func verdict(_ anchors: [Certificate]) -> AttestationTrustEvaluator.Verdict {
            AttestationTrustEvaluator.judge(outcome, format: "apple", compoundRequirement: .all, at: AttestationTestSupport.now) { _, _ in
                AuthenticatorTrust(anchors: anchors)
            }.0
        }
        #expect(verdict([factory.ca.cert]).trusted)
        let other = try AttestationTestSupport.makeCA(name: "Some other root")
        let untrusted = verdict([other.cert])
        #expect(!untrusted.trusted)
    }

    @Test("a nonce over different client data is rejected")
    func wrongNonce() throws {
        let factory = try AppleStatementFactory()
        let otherNonce = Digest.sha256.hash(factory.authData + Digest.sha256.hash(Array("other".utf8)))
        let cert = try factory.credCert(nonceExtension: .value(AppleStatementFactory.nonceExtensionValue(otherNonce)))
        expectAttestationFailure("does not equal") {
            _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([cert])))
        }
    }

    @Test("the same statement presented with a different clientDataHash is rejected")
    func replayedWithOtherClientData() throws {
        let factory = try AppleStatementFactory()
        let context = try AttestationTestSupport.context(
            format: "apple",
            statement: try factory.validStatement(), authData: factory.authData,
            clientDataHash: Digest.sha256.hash(Array("replayed".utf8)))
        expectAttestationFailure("does not equal") { _ = try AppleAttestation().verify(context) }
    }

    @Test("credCert without the nonce extension is rejected")
    func missingExtension() throws {
        let factory = try AppleStatementFactory()
        let cert = try factory.credCert(nonceExtension: .absent)
        expectAttestationFailure("no nonce extension") {
            _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([cert])))
        }
    }

    @Test("the right nonce under another OID is not the nonce extension")
    func nonceUnderAnotherOID() throws {
        let factory = try AppleStatementFactory()
        for oid in ["1.2.840.113635.100.8.3", "1.2.840.113635.100.8.1", "2.5.29.99"] {
            let cert = try factory.credCert(nonceExtension: .otherOID(oid))
            expectAttestationFailure("no nonce extension") {
                _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([cert])))
            }
        }
    }

    /// Ways to break the nonce extension's encoding, each with the reason it must be refused.
    enum Garble: String, CaseIterable, Sendable {
        case bareOctetString, implicitTag, wrongTagNumber, integerInside, twoElements, emptySequence,
            trailingByte, truncated, shortNonce, longNonce

        func encode(_ nonce: [UInt8]) -> [UInt8] {
            switch self {
            case .bareOctetString: DEREncoder.octetString(nonce)
            case .implicitTag: DEREncoder.sequence([DEREncoder.octetString(nonce, tag: .context(1, constructed: false))])
            case .wrongTagNumber: DEREncoder.sequence([DEREncoder.explicit(2, DEREncoder.octetString(nonce))])
            case .integerInside: DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.integer(7))])
            case .twoElements:
                DEREncoder.sequence([DEREncoder.explicit(1, DEREncoder.octetString(nonce)), DEREncoder.null()])
            case .emptySequence: DEREncoder.sequence([])
            case .trailingByte: AppleStatementFactory.nonceExtensionValue(nonce) + [0x00]
            case .truncated: Array(AppleStatementFactory.nonceExtensionValue(nonce).dropLast())
            case .shortNonce: AppleStatementFactory.nonceExtensionValue(Array(nonce.dropLast()))
            case .longNonce: AppleStatementFactory.nonceExtensionValue(nonce + [0])
            }
        }

        var fragment: String {
            switch self {
            case .bareOctetString, .trailingByte, .truncated: "not a DER SEQUENCE"
            case .implicitTag, .wrongTagNumber, .integerInside: "not [1] EXPLICIT OCTET STRING"
            case .twoElements: "2 elements"
            case .emptySequence: "0 elements"
            case .shortNonce: "31 bytes"
            case .longNonce: "33 bytes"
            }
        }
    }

    @Test("garbled nonce extensions are rejected", arguments: Garble.allCases)
    func garbledExtension(_ garble: Garble) throws {
        let factory = try AppleStatementFactory()
        let cert = try factory.credCert(nonceExtension: .value(garble.encode(factory.expectedNonce)))
        expectAttestationFailure(garble.fragment) {
            _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([cert])))
        }
    }

    @Test("a credCert for a different key than the credential's is rejected")
    func keyMismatch() throws {
        let factory = try AppleStatementFactory()
        let otherKey = try PrivateKey.generate(.p256).publicKey
        let cert = try factory.credCert(subjectKey: otherKey)
        expectAttestationFailure("differs from credCert") {
            _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([cert, factory.ca.cert])))
        }
    }

    @Test("an empty x5c is rejected")
    func emptyX5c() throws {
        let factory = try AppleStatementFactory()
        expectAttestationFailure("x5c") {
            _ = try AppleAttestation().verify(try factory.context(AppleStatementFactory.statement([])))
        }
    }

    @Test(
        "malformed statements are rejected",
        arguments: [
            ("not a map", CBORItem.array([]), "not a map"),
            ("no x5c", CBORItem.map([]), "x5c"),
            ("x5c not an array", CBORItem.map([(.text("x5c"), .bytes([0x30]))]), "x5c"),
            ("x5c entry not bytes", CBORItem.map([(.text("x5c"), .array([.text("cert")]))]), "not a byte string"),
        ])
    func malformed(name: String, statement: CBORItem, fragment: String) throws {
        let factory = try AppleStatementFactory()
        expectAttestationFailure(fragment) { _ = try AppleAttestation().verify(try factory.context(statement)) }
    }

    @Test("an x5c entry that is not a certificate is malformed")
    func unparsableCertificate() throws {
        let factory = try AppleStatementFactory()
        let statement = CBORItem.map([(.text("x5c"), .array([.bytes([0x30, 0x00])]))])
        #expect(throws: WebAuthnError(.malformed, "x5c[0] does not parse")) {
            _ = try AppleAttestation().verify(try factory.context(statement))
        }
    }
}
