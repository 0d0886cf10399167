import Foundation
package import WebAuthnCoding
package import WebAuthnCrypto
package import WebAuthnRP

/// A software stand-in for an iOS device's App Attest service (`DCAppAttestService`): it attests
/// a P-256 key under a test App Attestation root (root → intermediate → credCert, as Apple
/// issues them) and signs assertions with a counter, with a knob for each way either can be
/// wrong. Keys derive from the seed and ECDSA is deterministic, so output is byte-stable.
package struct TestAppAttestDevice: Sendable {
    /// A test App Attestation CA: a root (the trust anchor) and the intermediate that issues credCerts.
    package struct Authority: Sendable {
        package let root: TestAuthenticator.CA
        package let intermediateKey: PrivateKey
        package let intermediate: Certificate

        /// Builds the root and its intermediate from a seed.
        /// - Parameters:
        ///   - name: the root's common name.
        ///   - seed: derives both keys.
        package static func make(name: String = "Test App Attestation Root CA", seed: String) throws -> Authority {
            let root = try TestAuthenticator.CA.make(name: name, seed: seed)
            let key = try PrivateKey.derive(.p256, seed: "\(seed) intermediate")
            var builder = CertificateBuilder(
                subject: try DistinguishedName([.commonName("Test App Attestation CA 1"), .organization("Test"), .init("ST", "Test")]),
                publicKey: key.publicKey, notBefore: TestCertificates.now.addingTimeInterval(-86_400 * 300),
                notAfter: TestCertificates.now.addingTimeInterval(86_400 * 365 * 5))
            builder.issued(by: root.certificate)
            builder.serialNumber = [0x0a]
            builder.basicConstraints = .init(isCA: true, pathLength: 0)
            builder.keyUsage = [.keyCertSign, .cRLSign]
            return Authority(root: root, intermediateKey: key, intermediate: try builder.sign(with: root.key))
        }
    }

    /// Ways an attestation can be wrong; each defaults to the right value.
    package struct AttestationOptions {
        /// Edits the nonce certified in credCert's extension.
        package var nonce: (inout [UInt8]) -> Void = { _ in }
        /// The key credCert certifies (nil: the device's key), so its hash is not the key id.
        package var certifiedKey: PrivateKey?
        /// The AAGUID (nil: the device environment's).
        package var aaguid: [UInt8]?
        /// The counter (must be 0).
        package var signCount: UInt32 = 0
        /// The credential id in authData (nil: the key id).
        package var credentialId: [UInt8]?
        /// The App ID hashed into rpIdHash (nil: the device's app).
        package var appId: String?
        /// The authority that issues credCert (nil: the device's), for an untrusted chain.
        package var authority: Authority?
        /// Edits credCert before it is signed.
        package var certificate: (inout CertificateBuilder) -> Void = { _ in }
        /// Edits the x5c list (DER, credCert first).
        package var x5c: (inout [[UInt8]]) -> Void = { _ in }
        /// Edits the attStmt entries.
        package var statement: (inout [(CBORItem, CBORItem)]) -> Void = { _ in }
        /// Edits the encoded attestation object.
        package var object: (inout [UInt8]) -> Void = { _ in }
        /// The `fmt` (default `apple-appattest`).
        package var format = "apple-appattest"
        /// Leaves attested credential data out of authData (AT clear).
        package var omitAttestedCredentialData = false
        /// Bytes appended to authData after the credential key, the ED flag left clear, as recent
        /// devices append `{apple_bundle_version_01, apple_validation_category_01}`.
        package var unannouncedAuthDataTail: [UInt8]?

        package init() {}

        /// The map recent devices append to an attestation's authData (ED clear): bundle version
        /// and validation category, as in Apple's published sample.
        package static let deviceAuthDataExtensions = CBOREncoder.encode(
            CBORItem.map([
                (.text("apple_bundle_version_01"), .text("1")),
                (.text("apple_validation_category_01"), .bytes([1, 0, 0, 0])),
            ]))
    }

    /// Ways an assertion can be wrong.
    package struct AssertionOptions {
        /// The counter to report (nil: the device's next one).
        package var signCount: UInt32?
        /// The App ID hashed into rpIdHash (nil: the device's app).
        package var appId: String?
        /// Signs a nonce over these client data bytes instead of the ones sent.
        package var signedClientData: [UInt8]?
        /// Signs with this key instead of the device's.
        package var signingKey: PrivateKey?
        /// Edits the DER signature.
        package var signature: (inout [UInt8]) -> Void = { _ in }
        /// Edits the encoded assertion.
        package var object: (inout [UInt8]) -> Void = { _ in }

        package init() {}
    }

    /// The app the device's builds belong to.
    package var app: AppleApp
    /// The environment it attests in.
    package var environment: AppAttestEnvironment
    /// The authority that issues its credCerts.
    package let authority: Authority
    /// The attested key.
    package let privateKey: PrivateKey
    /// The last counter value used.
    package var signCount: UInt32 = 0

    /// A device with a key derived from `seed`.
    /// - Parameters:
    ///   - seed: derives the key.
    ///   - app: the app.
    ///   - environment: the environment.
    ///   - authority: the issuing test CA.
    package init(seed: String, app: AppleApp, environment: AppAttestEnvironment, authority: Authority) throws {
        self.app = app
        self.environment = environment
        self.authority = authority
        self.privateKey = try PrivateKey.derive(.p256, seed: "app attest key \(seed)")
    }

    /// The uncompressed point of a key.
    package static func point(_ key: PrivateKey) -> [UInt8] {
        guard let c = key.publicKey.ecCoordinates else { return [] }
        return [0x04] + c.x + c.y
    }

    /// The key's uncompressed point `04 ‖ x ‖ y`.
    package var publicPoint: [UInt8] { Self.point(privateKey) }
    /// The key id: SHA-256 of the point.
    package var keyId: [UInt8] { Digest.sha256.hash(publicPoint) }

    /// `attestKey(keyId, clientDataHash: SHA-256(challenge))`.
    /// - Parameters:
    ///   - challenge: the server's challenge.
    ///   - options: what to get wrong.
    /// - Returns: the attestation object.
    package func attest(challenge: [UInt8], _ options: AttestationOptions = AttestationOptions()) throws -> [UInt8] {
        try attest(clientDataHash: Digest.sha256.hash(challenge), options)
    }

    /// `attestKey(keyId, clientDataHash:)` with any bytes, as an app that hashes a request (or
    /// passes its challenge unhashed) does.
    /// - Parameters:
    ///   - clientDataHash: the bytes the app passes.
    ///   - options: what to get wrong.
    /// - Returns: the attestation object.
    package func attest(clientDataHash: [UInt8], _ options: AttestationOptions = AttestationOptions()) throws -> [UInt8] {
        let authority = options.authority ?? self.authority
        let appId = options.appId ?? app.appID
        let coseKey = try privateKey.coseKey(algorithm: .es256)
        let authData =
            TestAuthData(
                rpId: appId, flags: [], signCount: options.signCount,
                aaguid: options.aaguid ?? environment.aaguid,
                credentialId: options.credentialId ?? keyId,
                credentialKey: options.omitAttestedCredentialData ? nil : coseKey
            ).bytes
            + (options.unannouncedAuthDataTail ?? [])
        var nonce = Digest.sha256.hash(authData + clientDataHash)
        options.nonce(&nonce)
        let certified = options.certifiedKey ?? privateKey
        var builder = CertificateBuilder(
            subject: try DistinguishedName([
                .commonName(Self.hex(Digest.sha256.hash(Self.point(certified)))),
                .organizationalUnit("AAA Certification"), .organization("Test"), .init("ST", "Test"),
            ]),
            publicKey: certified.publicKey, notBefore: TestCertificates.now.addingTimeInterval(-86_400 * 30),
            notAfter: TestCertificates.now.addingTimeInterval(86_400 * 365 * 2))
        builder.issued(by: authority.intermediate)
        builder.serialNumber = Array(keyId.prefix(6))
        builder.basicConstraints = .init(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.extraExtensions = [.appleNonce(nonce)]
        options.certificate(&builder)
        let credCert = try builder.sign(with: authority.intermediateKey)
        var x5c = [credCert.derBytes, authority.intermediate.derBytes]
        options.x5c(&x5c)
        var statement: [(CBORItem, CBORItem)] = [
            (.text("x5c"), .array(x5c.map { .bytes($0[...]) })),
            (.text("receipt"), .bytes(Array("test receipt for \(Self.hex(keyId))".utf8)[...])),
        ]
        options.statement(&statement)
        var object = CBOREncoder.encode(
            CBORItem.map([
                (.text("fmt"), .text(options.format)), (.text("attStmt"), .map(statement)),
                (.text("authData"), .bytes(authData[...])),
            ]))
        options.object(&object)
        return object
    }

    /// `generateAssertion(keyId, clientDataHash: SHA-256(clientData))`: advances the counter.
    /// - Parameters:
    ///   - clientData: the bytes the app hashes (its request, with the server's challenge).
    ///   - options: what to get wrong.
    /// - Returns: the assertion.
    package mutating func assert(clientData: [UInt8], _ options: AssertionOptions = AssertionOptions()) throws -> [UInt8] {
        let counter = options.signCount ?? (signCount + 1)
        signCount = counter
        let authData = TestAuthData(rpId: options.appId ?? app.appID, flags: [], signCount: counter).bytes
        let nonce = Digest.sha256.hash(authData + Digest.sha256.hash(options.signedClientData ?? clientData))
        var signature = try (options.signingKey ?? privateKey).sign(nonce, algorithm: .es256)
        options.signature(&signature)
        var object = CBOREncoder.encode(
            CBORItem.map([
                (.text("signature"), .bytes(signature[...])), (.text("authenticatorData"), .bytes(authData[...])),
            ]))
        options.object(&object)
        return object
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
