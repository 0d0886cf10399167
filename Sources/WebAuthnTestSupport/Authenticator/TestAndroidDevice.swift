import Foundation
import WebAuthnCrypto
package import WebAuthnRP

/// A software stand-in for an Android device's Keystore: it generates (derives) a P-256 key for
/// an app, attests it under a test attestation root (root → batch intermediate → key certificate,
/// as devices' chains run) with a KeyDescription whose every field a test may change, and signs
/// request assertions in the layout of `AndroidKeyAssertion`. Deterministic, so output is byte-stable.
package struct TestAndroidDevice: Sendable {
    /// The test attestation root and the batch key under it that certifies app keys.
    package let root: TestAuthenticator.CA
    package let batch: TestAuthenticator.CA
    /// The app key.
    package let privateKey: PrivateKey
    /// The app's package and the SHA-256 of its signing certificate.
    package var packageName: String
    package var signingDigest: [UInt8]

    /// A device with a key derived from `seed`, its app signed by a certificate whose digest is
    /// SHA-256 of `signer`.
    package init(
        seed: String, packageName: String = "com.example.app", signer: String = "release", root: TestAuthenticator.CA? = nil
    ) throws {
        let root = try root ?? TestAuthenticator.CA.make(name: "Test Android Attestation Root", seed: "android root")
        self.root = root
        self.batch = try root.intermediate(name: "Test Android Batch Key", seed: "android batch \(seed)")
        self.privateKey = try PrivateKey.derive(.p256, seed: "android app key \(seed)")
        self.packageName = packageName
        self.signingDigest = Digest.sha256.hash(Array(signer.utf8))
    }

    /// The app as a relying party declares it.
    package var app: AndroidApp {
        get throws {
            try AndroidApp(packageName: packageName, sha256Fingerprint: signingDigest.map { String(format: "%02X", $0) }.joined())
        }
    }

    /// The root's DER, for a fixture's `trustAnchors`.
    package var rootDER: [UInt8] { root.certificate.derBytes }

    /// The key id the server derives: SHA-256 of the uncompressed point.
    package var keyId: [UInt8] {
        guard let coordinates = privateKey.publicKey.ecCoordinates else { return [] }
        return Digest.sha256.hash([0x04] + coordinates.x + coordinates.y)
    }

    /// The KeyDescription a TEE of a locked, verified device writes for this app's signing key,
    /// with the attestation challenge given.
    package func keyDescription(challenge: [UInt8]) -> TestKeyDescription {
        var description = TestKeyDescription(challenge: challenge)
        description.softwareEnforced = [
            TestKeyDescription.applicationId(packages: [(packageName, 42)], digests: [signingDigest])
        ]
        description.teeEnforced = [
            TestKeyDescription.purposes([2]), TestKeyDescription.integer(2, 3), TestKeyDescription.integer(3, 256),
            TestKeyDescription.integer(10, 1), TestKeyDescription.field(503, [0x05, 0x00]),  // noAuthRequired (skipped)
            TestKeyDescription.integer(702, 0),
            TestKeyDescription.rootOfTrust(
                bootKey: [UInt8](repeating: 0xB0, count: 32), locked: true, state: 0, bootHash: [UInt8](repeating: 0xB1, count: 32)),
            TestKeyDescription.integer(705, 150000), TestKeyDescription.integer(706, 202_510),
            TestKeyDescription.integer(718, 20_251_005), TestKeyDescription.integer(719, 20_251_005),
        ]
        return description
    }

    /// The attestation chain (DER, the key's certificate first) for a KeyDescription.
    /// - Parameters:
    ///   - description: the key description (``keyDescription(challenge:)`` edited).
    ///   - certificate: edits the key's certificate before it is signed.
    ///   - key: the key certified (nil: the device's).
    ///   - batch: the CA that issues the key's certificate (nil: the device's batch key).
    package func chain(
        _ description: TestKeyDescription, certificate: (inout CertificateBuilder) -> Void = { _ in }, key: PrivateKey? = nil,
        batch: TestAuthenticator.CA? = nil
    ) throws -> [[UInt8]] {
        let batch = batch ?? self.batch
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("Android Keystore Key")]),
            publicKey: (key ?? privateKey).publicKey, notBefore: TestCertificates.now.addingTimeInterval(-86_400),
            notAfter: TestCertificates.now.addingTimeInterval(86_400 * 365))
        builder.issued(by: batch.certificate)
        builder.serialNumber = [0x01]
        builder.extraExtensions = [CertificateExtension(oid: "1.3.6.1.4.1.11129.2.1.17", isCritical: false, value: description.der)]
        certificate(&builder)
        let leaf = try builder.sign(with: batch.key)
        return [leaf.derBytes, batch.certificate.derBytes, root.certificate.derBytes]
    }

    /// A signed request: the DER ECDSA signature over the assertion layout.
    package func sign(
        counter: UInt32, binding: String, method: String, path: String, body: [UInt8], key: PrivateKey? = nil
    ) throws -> [UInt8] {
        try (key ?? privateKey).sign(
            AndroidKeyAssertion.signedBytes(counter: counter, binding: binding, method: method, path: path, body: body), algorithm: .es256)
    }
}
