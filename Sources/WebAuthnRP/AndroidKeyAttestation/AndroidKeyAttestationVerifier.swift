package import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Verifies the key attestation of an Android app's key (a Keystore key generated with
/// `setAttestationChallenge`, its certificate chain from `KeyStore.getCertificateChain`), one
/// check per step, and request assertions signed with a verified key.
///
/// The stateless core behind ``AndroidKeyAttestationService`` (the front door, which issues and
/// uses up challenges and stores keys); package access for the replay and the fuzz targets.
/// Every rejection is a ``WebAuthnError`` whose step names the check (``AndroidKeyStep``).
package struct AndroidKeyAttestationVerifier: Sendable {
    /// The apps whose keys are accepted: package name and signing-certificate digest.
    let apps: [AndroidApp]
    /// What the attestation must establish.
    let policy: AndroidKeyAttestationPolicy
    /// The roots a chain must end in.
    let trustAnchors: [Certificate]
    /// The revoked and suspended attestation certificates.
    let statusList: AndroidAttestationStatusList
    /// Parsed certificates and built keys kept between verifications (nil: keep nothing).
    let cache: VerificationCache?

    /// The most certificates a chain may hold (devices send 3 or 4).
    static let maximumChainLength = 16

    /// Creates a verifier.
    /// - Parameters:
    ///   - apps: the apps the relying party declares.
    ///   - policy: what an attestation must establish.
    ///   - trustAnchors: the roots to trust.
    ///   - statusList: the attestation status list.
    ///   - cache: what to keep between verifications, or nil.
    package init(
        apps: [AndroidApp], policy: AndroidKeyAttestationPolicy, trustAnchors: [Certificate],
        statusList: AndroidAttestationStatusList, cache: VerificationCache? = nil
    ) {
        self.apps = apps
        self.policy = policy
        self.trustAnchors = trustAnchors
        self.statusList = statusList
        self.cache = cache
    }
}

/// The step names of Android key attestation and request assertions, as traces and errors show them.
enum AndroidKeyStep {
    static let certificates = "Android key attestation certificates"
    static let validity = "Android key attestation validity"
    static let chain = "Android key attestation chain"
    static let revocation = "Android key attestation revocation"
    static let description = "Android key attestation key description"
    static let challenge = "Android key attestation attested challenge"
    static let securityLevel = "Android key attestation security level"
    static let rootOfTrust = "Android key attestation root of trust"
    static let app = "Android key attestation app"
    static let key = "Android key attestation key"
    static let osVersion = "Android key attestation OS version"
    static let patchLevel = "Android key attestation patch level"
    static let assertionSignature = "Android assertion signature"
    static let assertionCounter = "Android assertion counter"
    static let keyStore = "Android key store"
    static let established = "Android key attestation result"
}

/// A verified Android key attestation: the key to store and what the attestation established.
public struct VerifiedAndroidKeyAttestation: Sendable {
    /// The key to store: id, public key, counter 0, package.
    public let key: AttestedAndroidKey
    /// The KeyDescription's `attestationVersion` (1 for Keymaster 2 … 400 for KeyMint 4).
    public let attestationVersion: Int
    /// Where the attestation was made (`attestationSecurityLevel`).
    public let securityLevel: AndroidSecurityLevel
    /// Where the key lives (`keymasterSecurityLevel`, `keyMintSecurityLevel` in newer schemas).
    public let keystoreSecurityLevel: AndroidSecurityLevel
    /// The verified boot state, nil when the attestation states no root of trust.
    public let verifiedBootState: AndroidVerifiedBootState?
    /// Whether the bootloader was locked, nil when the attestation states no root of trust.
    public let deviceLocked: Bool?
    /// The version code of the app's package, as the attestation states it.
    public let packageVersion: Int?
    /// The SHA-256 digests of the app's signing certificates, as the attestation states them.
    public let signatureDigests: [[UInt8]]
    /// `osVersion` (`MMmmpp`), nil when absent.
    public let osVersion: Int?
    /// `osPatchLevel` (`YYYYMM`), nil when absent.
    public let osPatchLevel: Int?
    /// `vendorPatchLevel` (`YYYYMMDD`), nil when absent.
    public let vendorPatchLevel: Int?
    /// `bootPatchLevel` (`YYYYMMDD`), nil when absent.
    public let bootPatchLevel: Int?
    /// The verified chain: the key's certificate first, the trust anchor last.
    package let certificateChain: [Certificate]
}

extension AndroidKeyAttestationVerifier {
    /// Verifies a key attestation chain, recording each step in `trace`.
    /// - Parameters:
    ///   - chain: the DER certificates, the key's own first (`KeyStore.getCertificateChain`).
    ///   - challenge: the bytes the app passed to `setAttestationChallenge`, as the server
    ///     rebuilds them.
    ///   - time: the clock for certificate validity.
    ///   - trace: receives each step.
    /// - Returns: the key to store and the established facts.
    /// - Throws: ``WebAuthnError``: `malformed` (a certificate or the key description does not
    ///   parse), `trust` (validity, chain, revocation), `challenge`, `attestation` (every other check).
    package func verifyAttestation(
        chain: [[UInt8]], challenge: [UInt8], at time: Date, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedAndroidKeyAttestation {
        let certificates = try trace.check(
            AndroidKeyStep.certificates, "the chain holds 2 to \(Self.maximumChainLength) DER certificates",
            detail: "\(chain.count) certificates"
        ) { () throws(WebAuthnError) in
            guard (2...Self.maximumChainLength).contains(chain.count) else {
                throw WebAuthnError(.malformed, "the chain holds \(chain.count) certificates, expected 2 to \(Self.maximumChainLength)")
            }
            var parsed: [Certificate] = []
            for (index, der) in chain.enumerated() {
                do {
                    parsed.append(try cache?.certificates.certificate(derEncoded: der[...]) ?? Certificate(derEncoded: der))
                } catch {
                    throw WebAuthnError(.malformed, "certificate \(index) does not parse: \(error)")
                }
            }
            return parsed
        }
        guard let leaf = certificates.first else {  // checked above; never trap on it
            throw trace.fail(AndroidKeyStep.certificates, "the chain is not empty", .malformed, "the chain is empty")
        }

        try trace.check(AndroidKeyStep.validity, "every certificate is valid at the verification time") {
            () throws(WebAuthnError) in
            for (index, certificate) in certificates.enumerated()
            where !(certificate.notBefore <= time && time <= certificate.notAfter) {
                throw WebAuthnError(
                    .trust,
                    "certificate \(index) is valid from \(CeremonyChecks.describe(certificate.notBefore)) "
                        + "to \(CeremonyChecks.describe(certificate.notAfter)), not at \(CeremonyChecks.describe(time))")
            }
        }

        let verified = try trace.check(AndroidKeyStep.chain, "the chain ends in a Google hardware attestation root") {
            () throws(WebAuthnError) in
            do {
                return try CertificateChain.verify(
                    leaf: leaf, intermediates: Array(certificates.dropFirst()), trustAnchors: trustAnchors, at: time)
            } catch {
                throw WebAuthnError(.trust, "the chain does not end in a trusted attestation root: \(error)")
            }
        }

        try trace.check(AndroidKeyStep.revocation, "no certificate of the chain is revoked or suspended") {
            () throws(WebAuthnError) in
            for certificate in verified.certificates {
                if let entry = statusList.status(ofSerial: certificate.serialNumber) {
                    let serial = certificate.serialNumber.map { String(format: "%02x", $0) }.joined()
                    throw WebAuthnError(
                        .trust, "the certificate with serial \(serial) is \(entry.status) (\(entry.reason ?? "no reason given"))")
                }
            }
        }

        let description = try trace.check(AndroidKeyStep.description, "the key's certificate, and only it, has a key description") {
            () throws(WebAuthnError) in
            // An attested key may not certify another: a key description above the leaf means a
            // Keystore key was used as a CA (libcrypto also refuses issuers without CA=true).
            if certificates.dropFirst().contains(where: { $0.extension(oid: AndroidKeyDescription.extensionOID) != nil }) {
                throw WebAuthnError(.attestation, "a certificate above the key's carries a key description")
            }
            guard let ext = leaf.extension(oid: AndroidKeyDescription.extensionOID) else {
                throw WebAuthnError(.attestation, "the key's certificate has no key description \(AndroidKeyDescription.extensionOID)")
            }
            do {
                return try AndroidKeyDescription(derEncoded: Array(ext.value))
            } catch {
                throw WebAuthnError(.malformed, "the key description does not parse: \(error)")
            }
        }

        try trace.check(AndroidKeyStep.challenge, "attestationChallenge is the server's challenge") { () throws(WebAuthnError) in
            guard description.attestationChallenge == challenge else {
                throw WebAuthnError(.challenge, "attestationChallenge differs from the challenge the server expects")
            }
        }

        let levels = try checkSecurityLevels(description, trace: &trace)
        // What the key is and where it was made: the list of the level that attested it.
        let enforced = levels.attestation == .software ? description.softwareEnforced : description.teeEnforced
        let rootOfTrust = try checkRootOfTrust(enforced.rootOfTrust, trace: &trace)
        let (app, package, digests) = try checkApp(description, trace: &trace)
        let point = try checkKey(description, enforced: enforced, leaf: leaf, trace: &trace)
        try checkVersions(enforced, trace: &trace)

        let key = AttestedAndroidKey(
            keyId: Digest.sha256.hash(point), publicKey: point, counter: 0, packageName: app.packageName)
        trace.note(
            AndroidKeyStep.established, "what the attestation established",
            detail: "attestation version \(description.attestationVersion); security \(levels.attestation.rawValue), "
                + "keystore \(levels.keystore.rawValue); boot \(rootOfTrust.flatMap { AndroidVerifiedBootState(schemaValue: $0.verifiedBootState)?.rawValue } ?? "not stated"), "
                + "\(rootOfTrust.map { $0.deviceLocked ? "locked" : "unlocked" } ?? "lock not stated"); package \(app.packageName) "
                + "version \(package.version); signing digests \(digests.map { Base64URL.encode($0) }.joined(separator: ", ")); "
                + "OS \(enforced.osVersion.map(String.init) ?? "-"), patch \(enforced.osPatchLevel.map(String.init) ?? "-"), "
                + "vendor patch \(enforced.vendorPatchLevel.map(String.init) ?? "-"), boot patch \(enforced.bootPatchLevel.map(String.init) ?? "-"); "
                + "key id \(Base64URL.encode(key.keyId))")
        return VerifiedAndroidKeyAttestation(
            key: key, attestationVersion: description.attestationVersion, securityLevel: levels.attestation,
            keystoreSecurityLevel: levels.keystore,
            verifiedBootState: rootOfTrust.flatMap { AndroidVerifiedBootState(schemaValue: $0.verifiedBootState) },
            deviceLocked: rootOfTrust?.deviceLocked, packageVersion: package.version, signatureDigests: digests,
            osVersion: enforced.osVersion, osPatchLevel: enforced.osPatchLevel, vendorPatchLevel: enforced.vendorPatchLevel,
            bootPatchLevel: enforced.bootPatchLevel, certificateChain: verified.certificates)
    }

    /// Both security levels are ones the policy accepts.
    private func checkSecurityLevels(
        _ description: AndroidKeyDescription, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> (attestation: AndroidSecurityLevel, keystore: AndroidSecurityLevel) {
        let accepted = AndroidSecurityLevel.allCases.filter(policy.securityLevels.contains).map(\.rawValue)
        return try trace.check(
            AndroidKeyStep.securityLevel, "attestation and keystore security levels are \(accepted.joined(separator: " or "))",
            detail:
                "attestation \(Self.levelName(description.attestationSecurityLevel)), keystore \(Self.levelName(description.keymasterSecurityLevel))"
        ) { () throws(WebAuthnError) in
            guard let attestation = AndroidSecurityLevel(schemaValue: description.attestationSecurityLevel),
                let keystore = AndroidSecurityLevel(schemaValue: description.keymasterSecurityLevel)
            else {
                throw WebAuthnError(
                    .attestation,
                    "security levels \(description.attestationSecurityLevel) and \(description.keymasterSecurityLevel) "
                        + "are not both ones the schema defines")
            }
            for (name, level) in [("attestationSecurityLevel", attestation), ("keymasterSecurityLevel", keystore)]
            where !policy.securityLevels.contains(level) {
                throw WebAuthnError(.attestation, "\(name) is \(level.rawValue), not one the policy accepts")
            }
            return (attestation, keystore)
        }
    }

    /// A schema security level's name, or its number when the schema defines none.
    static func levelName(_ value: Int) -> String { AndroidSecurityLevel(schemaValue: value)?.rawValue ?? "\(value)" }

    /// The device booted verified and locked, as the policy requires.
    private func checkRootOfTrust(
        _ rootOfTrust: AndroidRootOfTrust?, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> AndroidRootOfTrust? {
        let state = rootOfTrust.map { AndroidVerifiedBootState(schemaValue: $0.verifiedBootState)?.rawValue ?? "\($0.verifiedBootState)" }
        return try trace.check(
            AndroidKeyStep.rootOfTrust, "verified boot and a locked bootloader, as the policy requires",
            detail: rootOfTrust.map { "\(state ?? ""), \($0.deviceLocked ? "locked" : "unlocked")" } ?? "no root of trust"
        ) { () throws(WebAuthnError) in
            guard policy.requireVerifiedBoot || policy.requireLockedBootloader else { return rootOfTrust }
            guard let rootOfTrust else {
                throw WebAuthnError(.attestation, "the attestation states no root of trust (verified boot state, lock)")
            }
            if policy.requireVerifiedBoot, AndroidVerifiedBootState(schemaValue: rootOfTrust.verifiedBootState) != .verified {
                throw WebAuthnError(.attestation, "the verified boot state is \(state ?? ""), not verified")
            }
            if policy.requireLockedBootloader, !rootOfTrust.deviceLocked {
                throw WebAuthnError(.attestation, "the bootloader is unlocked")
            }
            return rootOfTrust
        }
    }

    /// The app that asked for the key is one the relying party declares: its package name, and
    /// its signing certificate's digest among those the attestation states.
    private func checkApp(
        _ description: AndroidKeyDescription, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> (AndroidApp, AndroidAttestationApplicationId.Package, [[UInt8]]) {
        // The keystore service (not the TEE) fills attestationApplicationId: softwareEnforced,
        // though some devices put it in the hardware list.
        let applicationIdDER =
            description.softwareEnforced.attestationApplicationIdDER ?? description.teeEnforced.attestationApplicationIdDER
        let applicationId = applicationIdDER.flatMap { try? AndroidAttestationApplicationId(derEncoded: $0) }
        let packages = applicationId?.packages.map(\.name).joined(separator: ", ") ?? "none"
        return try trace.check(
            AndroidKeyStep.app, "the package and its signing certificate are an app the relying party declares",
            detail:
                "packages \(packages); signing certificate digests \(applicationId?.signatureDigests.map(Base64URL.encode).joined(separator: ", ") ?? "none")"
        ) { () throws(WebAuthnError) in
            guard !description.softwareEnforced.allApplications, !description.teeEnforced.allApplications else {
                throw WebAuthnError(.attestation, "the key is usable by all applications (allApplications)")
            }
            guard let applicationIdDER else {
                throw WebAuthnError(.attestation, "the key description names no application (attestationApplicationId)")
            }
            let applicationId: AndroidAttestationApplicationId
            do {
                applicationId = try AndroidAttestationApplicationId(derEncoded: applicationIdDER)
            } catch {
                throw WebAuthnError(.malformed, "attestationApplicationId does not parse: \(error)")
            }
            for app in apps {
                guard let package = applicationId.packages.first(where: { $0.name == app.packageName }) else { continue }
                guard applicationId.signatureDigests.contains(app.signingCertificateDigest) else {
                    throw WebAuthnError(
                        .attestation,
                        "the package \(app.packageName) is signed with a certificate other than the declared \(app.sha256Fingerprint)")
                }
                return (app, package, applicationId.signatureDigests)
            }
            throw WebAuthnError(.attestation, "the packages \(packages) are not apps the relying party declares")
        }
    }

    /// An EC P-256 signing key generated in the keystore; its point (the key id's preimage).
    private func checkKey(
        _ description: AndroidKeyDescription, enforced: AndroidAuthorizationList, leaf: Certificate,
        trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> [UInt8] {
        try trace.check(
            AndroidKeyStep.key, "an EC P-256 signing key generated in the keystore",
            detail: "purposes \(enforced.purposes ?? []), algorithm \(enforced.algorithm.map(String.init) ?? "absent"), "
                + "curve \(enforced.ecCurve.map(String.init) ?? "absent"), origin \(enforced.origin.map(String.init) ?? "absent")"
        ) { () throws(WebAuthnError) in
            guard let purposes = enforced.purposes, purposes.contains(AndroidAuthorizationList.purposeSign),
                purposes.allSatisfy({ [AndroidAuthorizationList.purposeSign, AndroidAuthorizationList.purposeVerify].contains($0) })
            else {
                throw WebAuthnError(
                    .attestation, "the key's purposes are \(enforced.purposes ?? []), expected SIGN (2), with VERIFY (3) at most")
            }
            guard enforced.algorithm == AndroidAuthorizationList.algorithmEC,
                enforced.ecCurve.map({ $0 == AndroidAuthorizationList.curveP256 }) ?? true
            else {
                throw WebAuthnError(
                    .attestation, "the key is not an EC P-256 key (algorithm \(enforced.algorithm ?? -1), curve \(enforced.ecCurve ?? -1))")
            }
            guard enforced.origin == AndroidAuthorizationList.originGenerated else {
                throw WebAuthnError(
                    .attestation, "the key's origin is \(enforced.origin ?? -1), not GENERATED (0): it was imported or derived")
            }
            guard leaf.publicKey.curve == .p256, let coordinates = leaf.publicKey.ecCoordinates else {
                throw WebAuthnError(.attestation, "the certificate's key is \(leaf.publicKey.keyKind), not EC P-256")
            }
            return [0x04] + coordinates.x + coordinates.y
        }
    }

    /// The OS version and patch level reach the policy's minimums, when it sets them.
    private func checkVersions(_ enforced: AndroidAuthorizationList, trace: inout CeremonyTrace) throws(WebAuthnError) {
        if let minimum = policy.minimumOSVersion {
            try trace.check(
                AndroidKeyStep.osVersion, "the OS version is \(minimum) or later", detail: enforced.osVersion.map(String.init) ?? "absent"
            ) { () throws(WebAuthnError) in
                guard let version = enforced.osVersion, version >= minimum else {
                    throw WebAuthnError(
                        .attestation, "the OS version is \(enforced.osVersion.map(String.init) ?? "not stated"), below \(minimum)")
                }
            }
        } else {
            trace.skip(AndroidKeyStep.osVersion, "the OS version is recent enough", because: "the policy sets no minimum")
        }
        if let minimum = policy.minimumPatchLevel {
            try trace.check(
                AndroidKeyStep.patchLevel, "the OS patch level is \(minimum) or later",
                detail: enforced.osPatchLevel.map(String.init) ?? "absent"
            ) { () throws(WebAuthnError) in
                guard let level = enforced.osPatchLevel, level >= minimum else {
                    throw WebAuthnError(
                        .attestation, "the OS patch level is \(enforced.osPatchLevel.map(String.init) ?? "not stated"), below \(minimum)")
                }
            }
        } else {
            trace.skip(AndroidKeyStep.patchLevel, "the OS patch level is recent enough", because: "the policy sets no minimum")
        }
    }
}
