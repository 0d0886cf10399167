import Foundation
import Testing
@_spi(Testing) import WebAuthnCrypto
@testable import WebAuthnRP

/// A software authenticator plus client for ceremony tests: it holds one credential
/// and produces complete registration and authentication responses, signed for
/// real, with every part configurable and hooks to corrupt any of it.
///
/// Deterministic where it matters: credential id, AAGUID, user handle and client
/// data bytes are fixed by the configuration; only key material and ECDSA
/// signatures are random. Usage:
///
///     var authenticator = try TestAuthenticator(key: .es256)
///     let registration = try authenticator.register(challenge: challenge)
///     let login = try authenticator.authenticate(challenge: other)
struct TestAuthenticator {
    /// A credential key: which key to generate and which COSE algorithm it uses.
    struct KeySpec: Sendable {
        var kind: PrivateKey.Kind
        var algorithm: COSEAlgorithm

        static let es256 = KeySpec(kind: .p256, algorithm: .es256)
        static let es384 = KeySpec(kind: .p384, algorithm: .es384)
        static let es512 = KeySpec(kind: .p521, algorithm: .es512)
        static let esp256 = KeySpec(kind: .p256, algorithm: .esp256)
        static let es256k = KeySpec(kind: .secp256k1, algorithm: .es256k)
        static let edDSA = KeySpec(kind: .ed25519, algorithm: .edDSA)
        static let ed25519 = KeySpec(kind: .ed25519, algorithm: .ed25519)
        static let ed448 = KeySpec(kind: .ed448, algorithm: .edDSA)
        static let rs256 = KeySpec(kind: .rsa(bits: 2048), algorithm: .rs256)
        static let ps256 = KeySpec(kind: .rsa(bits: 2048), algorithm: .ps256)
    }

    /// A CA for x5c attestations: its key and self-signed certificate (the trust anchor).
    struct CA: Sendable {
        let key: PrivateKey
        let certificate: Certificate

        /// A fresh CA valid from a year before until ten years after 2025-01-01.
        static func make(name: String = "Test Attestation Root") throws -> CA {
            let made = try AttestationTestSupport.makeCA(name: name)
            return CA(key: made.key, certificate: made.cert)
        }
    }

    /// The attestation statement to produce at registration.
    enum Attestation: Sendable {
        /// `fmt: "none"`, empty attStmt.
        case none
        /// `packed` self attestation, signed by the credential key.
        case packedSelf
        /// `packed` with `x5c`: a §8.2.1-compliant leaf issued by `ca` (AAGUID extension included).
        case packed(ca: CA)
        /// `fido-u2f`: a P-256 leaf issued by `ca`; the credential must be ES256.
        case fidoU2F(ca: CA)
        /// `packed` with a caller-made chain: `leafKey` signs with `alg`, `x5c` is `chain` as given.
        case packedChain(leafKey: PrivateKey, chain: [Certificate], alg: COSEAlgorithm)
        /// `fido-u2f` with a caller-made chain: `leafKey` signs, `x5c` is `chain` as given.
        case fidoU2FChain(leafKey: PrivateKey, chain: [Certificate])
        /// A given `fmt` with a given attStmt (for unknown formats and broken statements).
        case custom(fmt: String, statement: CBORItem)
    }

    // MARK: The credential

    /// The RP ID the credential is scoped to (its SHA-256 is `rpIdHash`).
    var rpId = "example.org"
    /// The origin the client reports.
    var origin = "https://example.org"
    /// The credential id.
    var credentialId: [UInt8]
    /// The user handle (`user.id`) the credential belongs to; returned in assertions
    /// when ``returnsUserHandle`` is set.
    var userHandle: [UInt8] = Array("user-a".utf8)
    /// Whether assertions carry `userHandle` (a discoverable credential).
    var returnsUserHandle = true
    /// The AAGUID in attested credential data (and the packed leaf's AAGUID extension).
    var aaguid: [UInt8] = Self.defaultAAGUID
    /// The AAGUID every test authenticator starts with: 01020304-0506-0708-090a-0b0c0d0e0f10.
    static let defaultAAGUID: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                         0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10]
    /// The signature counter; `authenticate` adds ``counterStep`` before each assertion.
    var signCount: UInt32 = 0
    /// How much the counter grows per assertion (0: an authenticator without a counter).
    var counterStep: UInt32 = 1
    /// Transports reported at registration.
    var transports: [String] = ["usb"]
    /// The key pair.
    let privateKey: PrivateKey
    /// The key's COSE algorithm.
    let algorithm: COSEAlgorithm
    /// The COSE_Key bytes of the credential public key.
    let coseKey: [UInt8]

    /// Creates an authenticator holding a fresh credential.
    /// - Parameters:
    ///   - key: key type and algorithm.
    ///   - credentialId: the credential id (default: 32 bytes 0x00...0x1f).
    init(key: KeySpec = .es256, credentialId: [UInt8] = Array(0..<32)) throws {
        privateKey = try PrivateKey.generate(key.kind)
        algorithm = key.algorithm
        coseKey = try privateKey.coseKey(algorithm: key.algorithm)
        self.credentialId = credentialId
    }

    // MARK: Client data

    /// What the client puts into clientDataJSON.
    struct ClientData {
        var type: String
        var challenge: [UInt8]
        var origin: String
        var crossOrigin: Bool? = false
        var topOrigin: String?
        /// Literal JSON members appended at the end, for example `"extra":1`.
        var extraMembers: [String] = []

        /// The challenge as text; replaces the base64url of ``challenge`` when set.
        var challengeText: String?

        /// The JSON bytes, members in the order browsers write them.
        var bytes: [UInt8] {
            var members = [
                "\"type\":\(Self.quoted(type))",
                "\"challenge\":\(Self.quoted(challengeText ?? Base64URL.encode(challenge)))",
                "\"origin\":\(Self.quoted(origin))",
            ]
            if let crossOrigin { members.append("\"crossOrigin\":\(crossOrigin)") }
            if let topOrigin { members.append("\"topOrigin\":\(Self.quoted(topOrigin))") }
            members += extraMembers
            return Array(("{" + members.joined(separator: ",") + "}").utf8)
        }

        static func quoted(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
    }

    // MARK: Registration

    /// Everything one registration can vary, and hooks to corrupt it.
    struct RegistrationOptions {
        var flags: AuthenticatorFlags = [.userPresent, .userVerified]
        var attestation: Attestation = .none
        /// Edits client data before it is serialized.
        var clientData: (inout ClientData) -> Void = { _ in }
        /// Replaces the clientDataJSON bytes before they are hashed and signed.
        var clientDataBytes: (inout [UInt8]) -> Void = { _ in }
        /// Edits authenticator data bytes before the attestation signs them.
        var authData: (inout [UInt8]) -> Void = { _ in }
        /// Edits the attStmt map entries after signing.
        var statement: (inout [(CBORItem, CBORItem)]) -> Void = { _ in }
        /// Edits the encoded attestation object.
        var attestationObject: (inout [UInt8]) -> Void = { _ in }
        /// Edits the finished response (id, rawId, type, transports...).
        var response: (inout RegistrationResponse) -> Void = { _ in }
    }

    /// Authenticator data for a registration: with attested credential data.
    func registrationAuthData(flags: AuthenticatorFlags) -> [UInt8] {
        var data = TestAuthData(rpId: rpId, flags: flags, signCount: signCount, aaguid: aaguid,
                                credentialId: credentialId, credentialKey: coseKey)
        data.flags.remove(.extensionData)
        return data.bytes
    }

    /// A registration response for `challenge`.
    func register(challenge: [UInt8], _ options: RegistrationOptions = RegistrationOptions()) throws -> RegistrationResponse {
        var clientData = ClientData(type: "webauthn.create", challenge: challenge, origin: origin)
        options.clientData(&clientData)
        var clientDataJSON = clientData.bytes
        options.clientDataBytes(&clientDataJSON)
        var authData = registrationAuthData(flags: options.flags)
        options.authData(&authData)
        let clientDataHash = Digest.sha256.hash(clientDataJSON)

        let fmt: String
        var statement: [(CBORItem, CBORItem)]
        switch options.attestation {
        case .none:
            fmt = "none"
            statement = []
        case .packedSelf:
            fmt = "packed"
            let sig = try privateKey.sign(authData + clientDataHash, algorithm: algorithm)
            statement = [(.text("alg"), .int(Int64(algorithm.rawValue))), (.text("sig"), .bytes(sig))]
        case .packed(let ca):
            fmt = "packed"
            let leafKey = try PrivateKey.generate(.p256)
            let leaf = try Self.packedLeaf(key: leafKey, ca: ca, aaguid: aaguid)
            statement = try Self.packedStatement(leafKey: leafKey, chain: [leaf], alg: .es256,
                                                 signed: authData + clientDataHash)
        case .packedChain(let leafKey, let chain, let alg):
            fmt = "packed"
            statement = try Self.packedStatement(leafKey: leafKey, chain: chain, alg: alg, signed: authData + clientDataHash)
        case .fidoU2F(let ca):
            fmt = "fido-u2f"
            let leafKey = try PrivateKey.generate(.p256)
            let leaf = try Self.u2fLeaf(key: leafKey, ca: ca)
            statement = try u2fStatement(leafKey: leafKey, chain: [leaf], clientDataHash: clientDataHash)
        case .fidoU2FChain(let leafKey, let chain):
            fmt = "fido-u2f"
            statement = try u2fStatement(leafKey: leafKey, chain: chain, clientDataHash: clientDataHash)
        case .custom(let customFmt, let customStatement):
            fmt = customFmt
            statement = customStatement.mapEntries.map { Array($0.map { ($0.key, $0.value) }) } ?? []
        }
        options.statement(&statement)
        var attestationObject = CBOREncoder.encode(CBORItem.map([
            (.text("fmt"), .text(fmt)), (.text("attStmt"), .map(statement)), (.text("authData"), .bytes(authData)),
        ]))
        options.attestationObject(&attestationObject)
        var response = RegistrationResponse(id: Base64URL.encode(credentialId), rawId: credentialId,
                                            clientDataJSON: clientDataJSON, attestationObject: attestationObject,
                                            transports: transports)
        options.response(&response)
        return response
    }

    static func packedStatement(leafKey: PrivateKey, chain: [Certificate], alg: COSEAlgorithm,
                                signed: [UInt8]) throws -> [(CBORItem, CBORItem)] {
        let sig = try leafKey.sign(signed, algorithm: alg)
        return [(.text("alg"), .int(Int64(alg.rawValue))), (.text("sig"), .bytes(sig)),
                (.text("x5c"), .array(chain.map { .bytes($0.derBytes) }))]
    }

    /// fido-u2f: the leaf signs 0x00 || rpIdHash || clientDataHash || credentialId || 0x04 || x || y.
    func u2fStatement(leafKey: PrivateKey, chain: [Certificate], clientDataHash: [UInt8]) throws -> [(CBORItem, CBORItem)] {
        let cose = try COSEKey(cbor: coseKey[...])
        guard let point = cose.ec2Coordinates else { throw WebAuthnError(.malformed, "fido-u2f needs an EC2 key") }
        let data: [UInt8] = [0x00] + Digest.sha256.hash(Array(rpId.utf8)) + clientDataHash + credentialId
            + [0x04] + point.x + point.y
        let sig = try leafKey.sign(data, algorithm: .es256)
        return [(.text("sig"), .bytes(sig)), (.text("x5c"), .array(chain.map { .bytes($0.derBytes) }))]
    }

    /// The JSON form of a registration response (`RegistrationResponseJSON`).
    static func json(_ response: RegistrationResponse) -> RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                transports: response.transports.map { AuthenticatorTransport(rawValue: $0) },
                attestationObject: Base64URLBytes(response.attestationObject)),
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    /// A registration in JSON form.
    func registerJSON(challenge: [UInt8], _ options: RegistrationOptions = RegistrationOptions()) throws -> RegistrationResponseJSON {
        Self.json(try register(challenge: challenge, options))
    }

    // MARK: Authentication

    /// Everything one assertion can vary, and hooks to corrupt it.
    struct AuthenticationOptions {
        var flags: AuthenticatorFlags = [.userPresent, .userVerified]
        /// The counter to report; nil takes the authenticator's counter (after ``counterStep``).
        var signCount: UInt32?
        /// Edits client data before it is serialized.
        var clientData: (inout ClientData) -> Void = { _ in }
        /// Replaces the clientDataJSON bytes before they are hashed and signed.
        var clientDataBytes: (inout [UInt8]) -> Void = { _ in }
        /// Edits authenticator data bytes before they are signed.
        var authData: (inout [UInt8]) -> Void = { _ in }
        /// Edits the signature after signing.
        var signature: (inout [UInt8]) -> Void = { _ in }
        /// Edits the finished response (id, rawId, type, userHandle, authenticatorData...).
        var response: (inout AuthenticationResponse) -> Void = { _ in }
    }

    /// An assertion for `challenge`; advances the counter by ``counterStep`` unless
    /// `options.signCount` is given.
    mutating func authenticate(challenge: [UInt8], _ options: AuthenticationOptions = AuthenticationOptions()) throws -> AuthenticationResponse {
        let count: UInt32
        if let fixed = options.signCount {
            count = fixed
        } else {
            signCount &+= counterStep
            count = signCount
        }
        var clientData = ClientData(type: "webauthn.get", challenge: challenge, origin: origin)
        options.clientData(&clientData)
        var clientDataJSON = clientData.bytes
        options.clientDataBytes(&clientDataJSON)
        var flags = options.flags
        flags.remove(.attestedCredentialData)
        var authData = TestAuthData(rpId: rpId, flags: flags, signCount: count).bytes
        options.authData(&authData)
        var signature = try privateKey.sign(authData + Digest.sha256.hash(clientDataJSON), algorithm: algorithm)
        options.signature(&signature)
        var response = AuthenticationResponse(id: Base64URL.encode(credentialId), rawId: credentialId,
                                              clientDataJSON: clientDataJSON, authenticatorData: authData,
                                              signature: signature, userHandle: returnsUserHandle ? userHandle : nil)
        options.response(&response)
        return response
    }

    /// The JSON form of an authentication response (`AuthenticationResponseJSON`).
    static func json(_ response: AuthenticationResponse) -> AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                authenticatorData: Base64URLBytes(response.authenticatorData),
                signature: Base64URLBytes(response.signature),
                userHandle: response.userHandle.map { Base64URLBytes($0) }),
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    /// An assertion in JSON form.
    mutating func authenticateJSON(challenge: [UInt8], _ options: AuthenticationOptions = AuthenticationOptions()) throws -> AuthenticationResponseJSON {
        Self.json(try authenticate(challenge: challenge, options))
    }

    // MARK: Records

    /// The credential record a relying party would hold after registering this
    /// credential (for tests that start at authentication).
    func record(signCount: UInt32 = 0, backupEligible: Bool = false, backupState: Bool = false,
                uvInitialized: Bool = false) -> CredentialRecord {
        CredentialRecord(id: credentialId, publicKey: coseKey, algorithm: algorithm.rawValue, signCount: signCount,
                         userHandle: userHandle, uvInitialized: uvInitialized, backupEligible: backupEligible,
                         backupState: backupState, transports: transports,
                         aaguid: AAGUID(bytes: aaguid)?.uuidString ?? AAGUID.zero.uuidString)
    }

    // MARK: Attestation certificates

    /// A packed attestation leaf meeting §8.2.1: v3, C/O/OU="Authenticator Attestation"/CN,
    /// basicConstraints CA=false, the AAGUID extension (not critical), issued by `ca`.
    static func packedLeaf(key: PrivateKey, ca: CA, aaguid: [UInt8]?,
                           edit: (inout CertificateBuilder) -> Void = { _ in }) throws -> Certificate {
        let now = AttestationTestSupport.now
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.country("AA"), .organization("Test Vendor"),
                                            .organizationalUnit("Authenticator Attestation"),
                                            .commonName("Test Authenticator")]),
            publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 30),
            notAfter: now.addingTimeInterval(86_400 * 365 * 5))
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x10, 0x01]
        builder.basicConstraints = .init(isCA: false)
        if let aaguid {
            builder.extraExtensions = [CertificateExtension(oid: PackedAttestation.aaguidExtensionOID, isCritical: false,
                                                            value: [0x04, 0x10] + aaguid)]
        }
        edit(&builder)
        return try builder.sign(with: ca.key)
    }

    /// A fido-u2f attestation leaf (any subject; P-256 key), issued by `ca`.
    static func u2fLeaf(key: PrivateKey, ca: CA) throws -> Certificate {
        let now = AttestationTestSupport.now
        var builder = CertificateBuilder(subject: try DistinguishedName([.commonName("U2F Test Token")]),
                                         publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 30),
                                         notAfter: now.addingTimeInterval(86_400 * 365 * 5))
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x20, 0x02]
        return try builder.sign(with: ca.key)
    }
}

/// Shared fixtures for the ceremony tests.
enum CeremonyFixture {
    static let now = AttestationTestSupport.now
    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])

    /// A registration challenge issued now, offering the common algorithms.
    static func registrationChallenge(_ bytes: [UInt8] = Array(repeating: 0xA1, count: 32),
                                      userHandle: [UInt8] = Array("user-a".utf8),
                                      userVerification: UserVerificationRequirement = .preferred,
                                      offered: [COSEAlgorithm] = [.es256, .edDSA, .ed25519, .es384, .es512, .ps256, .rs256],
                                      conditional: Bool = false, rpId: String = "example.org",
                                      expiresAt: Date = now.addingTimeInterval(300)) -> IssuedChallenge {
        IssuedChallenge(challenge: bytes, kind: .registration, rpId: rpId, userHandle: userHandle,
                        userVerification: userVerification, offeredAlgorithms: offered,
                        conditionalCreate: conditional, expiresAt: expiresAt)
    }

    /// An authentication challenge issued now.
    static func authenticationChallenge(_ bytes: [UInt8] = Array(repeating: 0xB2, count: 32),
                                        userHandle: [UInt8]? = nil, allowCredentials: [[UInt8]] = [],
                                        userVerification: UserVerificationRequirement = .preferred,
                                        rpId: String = "example.org",
                                        expiresAt: Date = now.addingTimeInterval(300)) -> IssuedChallenge {
        IssuedChallenge(challenge: bytes, kind: .authentication, rpId: rpId, userHandle: userHandle,
                        allowCredentials: allowCredentials, userVerification: userVerification, expiresAt: expiresAt)
    }
}

/// A verdict and its trace, from running a verifier directly.
struct CeremonyOutcome<Verified> {
    var result: Result<Verified, WebAuthnError>
    var trace: CeremonyTrace

    /// The verified value, or nil (the failure is recorded as a test issue).
    func accepted(sourceLocation: SourceLocation = #_sourceLocation) -> Verified? {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            Issue.record("expected acceptance, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Records a test issue unless the ceremony failed with `category` at `step`.
    func expectRejected(_ category: WebAuthnError.Category, step: String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        switch result {
        case .success:
            Issue.record("expected \(category.rawValue) at \(step), but the ceremony was accepted", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.category == category, "\(error)", sourceLocation: sourceLocation)
            #expect(error.step == step, "\(error)", sourceLocation: sourceLocation)
            // The trace's last step is the failed one, with the same error.
            if case .failed(let traced)? = trace.steps.last?.outcome {
                #expect(traced.step == step && traced.category == category, sourceLocation: sourceLocation)
            } else {
                Issue.record("the trace does not end in a failed step", sourceLocation: sourceLocation)
            }
        }
    }
}

extension CeremonyOutcome {
    /// Records a test issue unless the ceremony failed with a message containing `text`
    /// (to tell apart two checks of one step that fail with the same category).
    func expectMessage(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .failure(let error) = result else {
            Issue.record("expected a failure mentioning \"\(text)\"", sourceLocation: sourceLocation)
            return
        }
        #expect(error.message.contains(text), "\(error)", sourceLocation: sourceLocation)
    }
}

extension CeremonyReport {
    /// The report as a ``CeremonyOutcome``.
    var outcome: CeremonyOutcome<Verified> { CeremonyOutcome(result: result, trace: trace) }
}

extension CeremonyTrace {
    /// The outcomes recorded under `step`, in order.
    func outcomes(_ step: String) -> [Outcome] { steps.filter { $0.step == step }.map(\.outcome) }

    /// Whether `step` was recorded and every record of it passed.
    func passed(_ step: String) -> Bool {
        let found = outcomes(step)
        return !found.isEmpty && found.allSatisfy { if case .passed = $0 { return true } else { return false } }
    }

    /// Whether `step` was recorded as skipped.
    func skipped(_ step: String) -> Bool {
        outcomes(step).contains { if case .skipped = $0 { return true } else { return false } }
    }
}

extension CeremonyFixture {
    /// Runs §7.1 directly.
    static func register(_ response: RegistrationResponse, issued: IssuedChallenge = registrationChallenge(),
                         relyingParty: RelyingParty = relyingParty, policy: VerificationPolicy = VerificationPolicy(),
                         now: Date = now, keepAttestation: Bool = false) -> CeremonyOutcome<VerifiedRegistration> {
        var trace = CeremonyTrace()
        let verifier = RegistrationVerifier(relyingParty: relyingParty, policy: policy)
        do {
            let verified = try verifier.verify(response, issued: issued, now: now, keepAttestation: keepAttestation, trace: &trace)
            return CeremonyOutcome(result: .success(verified), trace: trace)
        } catch {
            return CeremonyOutcome(result: .failure(error), trace: trace)
        }
    }

    /// Runs §7.2 directly.
    static func authenticate(_ response: AuthenticationResponse, issued: IssuedChallenge = authenticationChallenge(),
                             record: CredentialRecord?, relyingParty: RelyingParty = relyingParty,
                             policy: VerificationPolicy = VerificationPolicy(),
                             now: Date = now) -> CeremonyOutcome<VerifiedAuthentication> {
        var trace = CeremonyTrace()
        let verifier = AuthenticationVerifier(relyingParty: relyingParty, policy: policy)
        do {
            let verified = try verifier.verify(response, issued: issued, record: record, now: now, trace: &trace)
            return CeremonyOutcome(result: .success(verified), trace: trace)
        } catch {
            return CeremonyOutcome(result: .failure(error), trace: trace)
        }
    }
}
