package import Foundation
import WebAuthnCoding
package import WebAuthnCrypto

/// Verifies a Play Integrity token locally, with the keys the relying party manages (Play
/// Console, "Manage response encryption"): the compact JWE (`A256KW`, `A256GCM`) is decrypted with
/// the decryption key, the compact JWS inside it (`ES256`) verified with the verification key,
/// and the verdict checked against the declared apps, the request and the policy, one step each.
///
/// The stateless core behind ``PlayIntegrityService`` (the front door, which issues and uses up
/// nonces); package access for the fuzz target. Every rejection is a ``WebAuthnError`` whose step
/// names the check (``PlayIntegrityStep``).
package struct PlayIntegrityVerifier: Sendable {
    /// The AES-256 key that unwraps each token's content key.
    let decryptionKey: [UInt8]
    /// The EC P-256 key Google signs verdicts with.
    let verificationKey: PublicKey
    /// The apps whose verdicts are accepted: package name and signing-certificate digest.
    let apps: [AndroidApp]
    /// What the verdict must establish.
    let policy: PlayIntegrityPolicy

    /// The longest token read, in bytes (Google's are one to a few kilobytes).
    static let maximumTokenLength = 16 * 1024

    /// Creates a verifier.
    /// - Parameters:
    ///   - decryptionKey: the 32-byte AES key.
    ///   - verificationKey: the EC P-256 public key.
    ///   - apps: the apps the relying party declares.
    ///   - policy: what a verdict must establish.
    package init(decryptionKey: [UInt8], verificationKey: PublicKey, apps: [AndroidApp], policy: PlayIntegrityPolicy) {
        self.decryptionKey = decryptionKey
        self.verificationKey = verificationKey
        self.apps = apps
        self.policy = policy
    }
}

/// The step names of Play Integrity verification, as traces and errors show them.
enum PlayIntegrityStep {
    static let token = "Play Integrity token"
    static let encryptionHeader = "Play Integrity JWE header"
    static let keyUnwrap = "Play Integrity key unwrap"
    static let decryption = "Play Integrity decryption"
    static let signatureHeader = "Play Integrity JWS header"
    static let signature = "Play Integrity signature"
    static let payload = "Play Integrity payload"
    static let package = "Play Integrity package"
    static let binding = "Play Integrity request binding"
    static let timestamp = "Play Integrity timestamp"
    static let appRecognition = "Play Integrity app recognition"
    static let certificates = "Play Integrity certificate digests"
    static let device = "Play Integrity device verdict"
    static let licensing = "Play Integrity licensing"
    static let established = "Play Integrity result"
}

extension PlayIntegrityVerifier {
    /// Decrypts and verifies a token, then checks its verdict, recording each step in `trace`.
    /// - Parameters:
    ///   - token: the token text as the app sent it.
    ///   - binding: the nonce or request hash the verdict must carry.
    ///   - time: the verification time, for the timestamp window.
    ///   - trace: receives each step.
    /// - Returns: what the verdict established.
    /// - Throws: ``WebAuthnError``: `malformed` (the token, a header or the payload does not
    ///   read), `algorithm` (another `alg` or `enc`), `signature` (the key does not unwrap, the
    ///   content does not decrypt, the signature does not verify), `challenge` (another nonce or
    ///   request hash, a timestamp outside the window), `attestation` (the app, its certificates,
    ///   its recognition, the device, the licence).
    package func verify(
        token: String, binding: PlayIntegrityRequestBinding, at time: Date, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> VerifiedPlayIntegrityVerdict {
        let jwe = try trace.check(
            PlayIntegrityStep.token, "the token is a compact JWE of at most \(Self.maximumTokenLength) bytes",
            detail: "\(token.utf8.count) bytes"
        ) { () throws(WebAuthnError) in
            guard token.utf8.count <= Self.maximumTokenLength else {
                throw WebAuthnError(.malformed, "the token is \(token.utf8.count) bytes, longer than \(Self.maximumTokenLength)")
            }
            return try CompactJWE(Array(token.utf8)[...])
        }
        let jws = try openToken(jwe, trace: &trace)
        let payload = try trace.check(PlayIntegrityStep.payload, "the payload is a verdict in Google's JSON form") {
            () throws(WebAuthnError) in try PlayIntegrityPayload(json: jws.payload)
        }
        let app = try checkPackage(payload, trace: &trace)
        try checkBinding(payload, binding, trace: &trace)
        let timestamp = try checkVerdictTime(payload, at: time, trace: &trace)
        try checkVerdicts(payload, app: app, trace: &trace)

        let verdict = VerifiedPlayIntegrityVerdict(
            packageName: payload.requestPackageName, versionCode: payload.versionCode.map { Int($0) },
            certificateDigests: payload.certificateDigests, appRecognition: payload.appRecognition,
            deviceVerdicts: payload.deviceVerdicts, recentDeviceActivity: payload.recentDeviceActivity,
            appLicensing: payload.appLicensing, timestamp: timestamp)
        trace.note(
            PlayIntegrityStep.established, "what the verdict established",
            detail: "package \(verdict.packageName) version \(verdict.versionCode.map(String.init) ?? "-"); "
                + "app \(verdict.appRecognition); device [\(verdict.deviceVerdicts.joined(separator: ", "))]; "
                + "activity \(verdict.recentDeviceActivity ?? "-"); licensing \(verdict.appLicensing ?? "-"); "
                + "certificates \(verdict.certificateDigests.map { Base64URL.encode($0) }.joined(separator: ", ")); "
                + "at \(CeremonyChecks.describe(timestamp))")
        return verdict
    }

    /// The JWE's header, key unwrap and decryption, then the JWS's header and signature: the
    /// signed payload inside.
    private func openToken(_ jwe: CompactJWE, trace: inout CeremonyTrace) throws(WebAuthnError) -> CompactJWS {
        try trace.check(
            PlayIntegrityStep.encryptionHeader, "alg is A256KW and enc A256GCM, without compression or critical extensions",
            detail: "alg \(jwe.header["alg"]?.stringValue ?? "-"), enc \(jwe.header["enc"]?.stringValue ?? "-")"
        ) { () throws(WebAuthnError) in
            guard jwe.header["alg"] == .string("A256KW") else {
                throw WebAuthnError(.algorithm, "the JWE alg is \(Self.describe(jwe.header["alg"])), not A256KW")
            }
            guard jwe.header["enc"] == .string("A256GCM") else {
                throw WebAuthnError(.algorithm, "the JWE enc is \(Self.describe(jwe.header["enc"])), not A256GCM")
            }
            // RFC 7516 §4.1.3: compression before encryption; Google does not compress.
            guard jwe.header["zip"] == nil else { throw WebAuthnError(.malformed, "the JWE header asks for compression (zip)") }
            // RFC 7516 §4.1.13: a recipient must refuse extensions it does not understand; it understands none.
            guard jwe.header["crit"] == nil else {
                throw WebAuthnError(.malformed, "the JWE header names critical extensions this verifier does not understand")
            }
        }
        let contentKey = try trace.check(PlayIntegrityStep.keyUnwrap, "the content key unwraps with the decryption key (A256KW)") {
            () throws(WebAuthnError) in
            let unwrapped: [UInt8]?
            do { unwrapped = try AESKeyWrap.unwrap(jwe.encryptedKey, key: decryptionKey) } catch {
                throw WebAuthnError(.signature, "the content key could not be unwrapped: \(error)")
            }
            guard let unwrapped, unwrapped.count == AES256GCM.keySize else {
                throw WebAuthnError(.signature, "the content key does not unwrap with the decryption key, or is not 32 bytes")
            }
            return unwrapped
        }
        let plaintext = try trace.check(
            PlayIntegrityStep.decryption, "the content decrypts and authenticates with the header (A256GCM)"
        ) { () throws(WebAuthnError) in
            guard jwe.iv.count == AES256GCM.nonceSize, jwe.tag.count == AES256GCM.tagSize else {
                throw WebAuthnError(
                    .malformed,
                    "the iv is \(jwe.iv.count) bytes and the tag \(jwe.tag.count), expected \(AES256GCM.nonceSize) and \(AES256GCM.tagSize)"
                )
            }
            let opened: [UInt8]?
            do {
                opened = try AES256GCM.open(jwe.ciphertext + jwe.tag, key: contentKey, nonce: jwe.iv, aad: jwe.additionalData)
            } catch {
                throw WebAuthnError(.signature, "the content could not be decrypted: \(error)")
            }
            guard let opened else { throw WebAuthnError(.signature, "the content does not authenticate under the content key") }
            return opened
        }
        let jws = try trace.check(PlayIntegrityStep.signatureHeader, "the content is a compact JWS whose alg is ES256") {
            () throws(WebAuthnError) in
            let jws: CompactJWS
            do { jws = try CompactJWS(plaintext[...]) } catch {
                throw WebAuthnError(.malformed, "the content is not a compact JWS: \(error)")
            }
            guard jws.header["alg"] == .string("ES256") else {
                throw WebAuthnError(.algorithm, "the JWS alg is \(Self.describe(jws.header["alg"])), not ES256")
            }
            guard jws.header["crit"] == nil else {
                throw WebAuthnError(.malformed, "the JWS header names critical extensions this verifier does not understand")
            }
            return jws
        }
        try trace.check(PlayIntegrityStep.signature, "the signature verifies with the verification key (ES256)") {
            () throws(WebAuthnError) in
            let valid: Bool
            do {
                // ES256 is r || s, 32 bytes each (RFC 7518 §3.4); the crypto layer verifies DER.
                let signature = try ECDSASignature.derEncoded(raw: jws.signature[...], coordinateLength: 32)
                valid = try verificationKey.verify(signature: signature[...], over: jws.signingInput[...], algorithm: .es256)
            } catch {
                throw WebAuthnError(.signature, "the signature could not be checked: \(error)")
            }
            guard valid else { throw WebAuthnError(.signature, "the signature does not verify with the verification key") }
        }
        return jws
    }

    /// The package the verdict was requested for is a declared app, and the app Play evaluated is it.
    private func checkPackage(_ payload: PlayIntegrityPayload, trace: inout CeremonyTrace) throws(WebAuthnError) -> AndroidApp {
        try trace.check(
            PlayIntegrityStep.package, "the requested package is a declared app, and the evaluated app is the same package",
            detail: payload.requestPackageName
        ) { () throws(WebAuthnError) in
            guard let app = apps.first(where: { $0.packageName == payload.requestPackageName }) else {
                throw WebAuthnError(.attestation, "the package \(payload.requestPackageName) is not an app the relying party declares")
            }
            if let evaluated = payload.appPackageName, evaluated != payload.requestPackageName {
                throw WebAuthnError(
                    .attestation, "Play evaluated the package \(evaluated), not the requested \(payload.requestPackageName)")
            }
            return app
        }
    }

    /// The verdict carries the request's nonce or request hash, compared in constant time.
    private func checkBinding(
        _ payload: PlayIntegrityPayload, _ binding: PlayIntegrityRequestBinding, trace: inout CeremonyTrace
    ) throws(WebAuthnError) {
        let (name, expected, received): (String, String, String?)
        switch binding {
        case .nonce(let nonce): (name, expected, received) = ("nonce", nonce, payload.nonce)
        case .requestHash(let hash): (name, expected, received) = ("requestHash", hash, payload.requestHash)
        }
        try trace.check(PlayIntegrityStep.binding, "requestDetails.\(name) is the request's") { () throws(WebAuthnError) in
            guard let received else { throw WebAuthnError(.challenge, "the verdict carries no requestDetails.\(name)") }
            guard ConstantTime.equals(Array(received.utf8), Array(expected.utf8)) else {
                throw WebAuthnError(.challenge, "requestDetails.\(name) differs from the request's")
            }
        }
    }

    /// The verdict was made within the policy's window before `time`.
    private func checkVerdictTime(_ payload: PlayIntegrityPayload, at time: Date, trace: inout CeremonyTrace) throws(WebAuthnError) -> Date
    {
        let made = Date(timeIntervalSince1970: Double(payload.timestampMillis) / 1000)
        return try trace.check(
            PlayIntegrityStep.timestamp,
            "the verdict was made at most \(Self.seconds(policy.maximumAge)) s before now and \(Self.seconds(policy.allowedClockSkew)) s after",
            detail: CeremonyChecks.describe(made)
        ) { () throws(WebAuthnError) in
            let age = time.timeIntervalSince(made)
            guard age <= policy.maximumAge else {
                throw WebAuthnError(
                    .challenge, "the verdict is \(Self.seconds(age)) s old, older than \(Self.seconds(policy.maximumAge)) s")
            }
            guard -age <= policy.allowedClockSkew else {
                throw WebAuthnError(
                    .challenge, "the verdict is \(Self.seconds(-age)) s in the future, more than \(Self.seconds(policy.allowedClockSkew)) s"
                )
            }
            return made
        }
    }

    /// App recognition, the signing certificate, the device and the licence, as the policy requires.
    private func checkVerdicts(_ payload: PlayIntegrityPayload, app: AndroidApp, trace: inout CeremonyTrace) throws(WebAuthnError) {
        try trace.check(
            PlayIntegrityStep.appRecognition,
            "the app recognition verdict is \(policy.acceptedAppRecognition.sorted().joined(separator: " or "))",
            detail: payload.appRecognition
        ) { () throws(WebAuthnError) in
            guard policy.acceptedAppRecognition.contains(payload.appRecognition) else {
                throw WebAuthnError(.attestation, "the app recognition verdict is \(payload.appRecognition), not one the policy accepts")
            }
        }
        if payload.certificateDigests.isEmpty && payload.appRecognition == "UNEVALUATED" {
            trace.skip(
                PlayIntegrityStep.certificates, "the app is signed with the declared certificate",
                because: "Play did not evaluate the app, and the policy accepts that")
        } else {
            try trace.check(PlayIntegrityStep.certificates, "the app is signed with the declared certificate") {
                () throws(WebAuthnError) in
                guard payload.certificateDigests.contains(app.signingCertificateDigest) else {
                    throw WebAuthnError(
                        .attestation,
                        "the package \(app.packageName) is signed with a certificate other than the declared \(app.sha256Fingerprint)")
                }
            }
        }
        let missing = policy.requiredDeviceVerdicts.subtracting(payload.deviceVerdicts).sorted()
        try trace.check(
            PlayIntegrityStep.device, "the device verdict has \(policy.requiredDeviceVerdicts.sorted().joined(separator: " and "))",
            detail: "[\(payload.deviceVerdicts.joined(separator: ", "))]"
        ) { () throws(WebAuthnError) in
            guard missing.isEmpty else {
                throw WebAuthnError(.attestation, "the device verdict lacks \(missing.joined(separator: ", "))")
            }
        }
        if policy.requireLicensed {
            try trace.check(PlayIntegrityStep.licensing, "the app licensing verdict is LICENSED", detail: payload.appLicensing ?? "absent")
            {
                () throws(WebAuthnError) in
                guard payload.appLicensing == "LICENSED" else {
                    throw WebAuthnError(.attestation, "the app licensing verdict is \(payload.appLicensing ?? "absent"), not LICENSED")
                }
            }
        } else {
            trace.skip(PlayIntegrityStep.licensing, "the app licensing verdict is LICENSED", because: "the policy does not require it")
        }
    }

    /// Seconds as a message shows them, whole (no conversion to Int: a policy may say infinity).
    private static func seconds(_ value: TimeInterval) -> String { String(format: "%.0f", value) }

    /// A header value as a message shows it.
    private static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        return value.stringValue ?? "not a string"
    }
}
