import Foundation
import Testing
package import WebAuthnCoding
package import WebAuthnCrypto
package import WebAuthnRP

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
package struct TestAuthenticator {
    /// A credential key: which key to generate and which COSE algorithm it uses.
    package struct KeySpec: Sendable {
        package var kind: PrivateKey.Kind
        package var algorithm: COSEAlgorithm

        /// A key spec: what to generate and which COSE algorithm it signs with.
        package init(kind: PrivateKey.Kind, algorithm: COSEAlgorithm) {
            self.kind = kind
            self.algorithm = algorithm
        }

        package static let es256 = KeySpec(kind: .p256, algorithm: .es256)
        package static let es384 = KeySpec(kind: .p384, algorithm: .es384)
        package static let es512 = KeySpec(kind: .p521, algorithm: .es512)
        package static let esp256 = KeySpec(kind: .p256, algorithm: .esp256)
        package static let es256k = KeySpec(kind: .secp256k1, algorithm: .es256k)
        package static let edDSA = KeySpec(kind: .ed25519, algorithm: .edDSA)
        package static let ed25519 = KeySpec(kind: .ed25519, algorithm: .ed25519)
        package static let ed448 = KeySpec(kind: .ed448, algorithm: .ed448)
        package static let rs256 = KeySpec(kind: .rsa(bits: 2048), algorithm: .rs256)
        package static let ps256 = KeySpec(kind: .rsa(bits: 2048), algorithm: .ps256)
    }

    /// A CA for x5c attestations: its key and self-signed certificate (the trust anchor).
    package struct CA: Sendable {
        package let key: PrivateKey
        package let certificate: Certificate

        /// A CA from its key and certificate (a test that builds an unusual one itself).
        package init(key: PrivateKey, certificate: Certificate) {
            self.key = key
            self.certificate = certificate
        }

        /// A CA valid from a year before until ten years after 2025-01-01.
        /// - Parameters:
        ///   - name: its common name.
        ///   - seed: derives the key (the same seed, the same CA); nil: a fresh random key.
        package static func make(name: String = "Test Attestation Root", seed: String? = nil) throws -> CA {
            let made = try TestCertificates.makeCA(name: name, seed: seed)
            return CA(key: made.key, certificate: made.cert)
        }

        /// An intermediate CA issued by this one (CA, path length 0), valid as long as `make`'s.
        /// - Parameters:
        ///   - name: its common name.
        ///   - seed: derives its key.
        package func intermediate(name: String, seed: String) throws -> CA {
            let key = try PrivateKey.derive(.p256, seed: "\(seed) intermediate CA")
            let now = TestCertificates.now
            var builder = CertificateBuilder(
                subject: try DistinguishedName([.commonName(name), .organization("Test"), .country("AA")]),
                publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 365),
                notAfter: now.addingTimeInterval(86_400 * 365 * 10))
            builder.issued(by: certificate)
            builder.serialNumber = [0x20, 0x01]
            builder.basicConstraints = .init(isCA: true, pathLength: 0)
            builder.keyUsage = [.keyCertSign, .cRLSign]
            return CA(key: key, certificate: try builder.sign(with: self.key))
        }
    }

    /// The attestation statement to produce at registration.
    package enum Attestation: Sendable {
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
        /// `tpm` (TPM 2.0): an AIK certificate issued by `ca`, pubArea and certInfo for the
        /// credential key (RSA or NIST P-curve ECC), certInfo signed by an RSA-2048 AIK with RS256.
        case tpm(ca: CA)
        /// `android-key`: a certificate for the credential key issued by `ca`, carrying the key
        /// description (challenge = clientDataHash, TEE-enforced purpose SIGN, origin GENERATED).
        case androidKey(ca: CA)
        /// `apple`: credCert for the credential key issued by `ca`, carrying the nonce
        /// SHA-256(authenticatorData || clientDataHash).
        case apple(ca: CA)
        /// `compound`: each component statement, in order (none of them compound).
        case compound([Attestation])
        /// A given `fmt` with a given attStmt (for unknown formats and broken statements).
        case custom(fmt: String, statement: CBORItem)

        /// A `fido-u2f` statement this authenticator makes (not a custom one): its authenticator
        /// data carries the zero AAGUID, as a CTAP2 client writes it for a U2F device.
        var isFIDOU2F: Bool {
            switch self {
            case .fidoU2F, .fidoU2FChain: return true
            default: return false
            }
        }
    }

    /// The test authenticator's statement of format `fmt`, one of the library's one list of
    /// formats (`AttestationFormatList.identifiers`), issued by `ca` where the format carries a
    /// chain; nil for a format it cannot make: `android-safetynet`, whose JWS
    /// `AndroidSafetyNetAttestationTests` builds. A format added to the list without a case
    /// here fails `PackedAndU2FAttestationTests`' smoke test.
    package static func attestation(format fmt: String, ca: CA) -> Attestation? {
        switch fmt {
        case "none": return Attestation.none
        case "packed": return .packed(ca: ca)
        case "fido-u2f": return .fidoU2F(ca: ca)
        case "tpm": return .tpm(ca: ca)
        case "android-key": return .androidKey(ca: ca)
        case "apple": return .apple(ca: ca)
        case "compound": return .compound([.packed(ca: ca), .androidKey(ca: ca)])
        default: return nil
        }
    }

    // MARK: The credential

    /// The RP ID the credential is scoped to (its SHA-256 is `rpIdHash`).
    package var rpId = "example.org"
    /// The origin the client reports.
    package var origin = "https://example.org"
    /// The credential id.
    package var credentialId: [UInt8]
    /// The user handle (`user.id`) the credential belongs to; returned in assertions
    /// when ``returnsUserHandle`` is set.
    package var userHandle: [UInt8] = Array("user-a".utf8)
    /// Whether assertions carry `userHandle` (a discoverable credential).
    package var returnsUserHandle = true
    /// The AAGUID in attested credential data (and the packed leaf's AAGUID extension).
    package var aaguid: [UInt8] = Self.defaultAAGUID
    /// The AAGUID every test authenticator starts with: 01020304-0506-0708-090a-0b0c0d0e0f10.
    package static let defaultAAGUID: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    ]
    /// The signature counter; `authenticate` adds ``counterStep`` before each assertion.
    package var signCount: UInt32 = 0
    /// How much the counter grows per assertion (0: an authenticator without a counter).
    package var counterStep: UInt32 = 1
    /// Transports reported at registration.
    package var transports: [String] = ["usb"]
    /// The key pair.
    package let privateKey: PrivateKey
    /// The key's COSE algorithm.
    package let algorithm: COSEAlgorithm
    /// The COSE_Key bytes of the credential public key (a test may replace them with a key
    /// the verifier must refuse; signatures are still made with ``privateKey``).
    package var coseKey: [UInt8]
    /// Where every key this authenticator makes comes from: nil for fresh random keys;
    /// a seed derives the credential key and attestation keys, so output repeats exactly.
    package let seed: String?

    /// Creates an authenticator holding a credential.
    /// - Parameters:
    ///   - key: key type and algorithm.
    ///   - credentialId: the credential id (default: 32 bytes 0x00...0x1f).
    ///   - seed: derives every key (the same seed, the same bytes out); nil: fresh random keys.
    package init(key: KeySpec = .es256, credentialId: [UInt8] = Array(0..<32), seed: String? = nil) throws {
        self.seed = seed
        privateKey = try seed.map { try PrivateKey.derive(key.kind, seed: "\($0) credential") } ?? PrivateKey.generate(key.kind)
        algorithm = key.algorithm
        coseKey = try privateKey.coseKey(algorithm: key.algorithm)
        self.credentialId = credentialId
    }

    // MARK: Client data

    /// What the client puts into clientDataJSON.
    package struct ClientData {
        package var type: String
        package var challenge: [UInt8]
        package var origin: String
        package var crossOrigin: Bool? = false
        package var topOrigin: String?
        /// Literal JSON members appended at the end, for example `"extra":1`.
        package var extraMembers: [String] = []

        /// The challenge as text; replaces the base64url of ``challenge`` when set.
        package var challengeText: String?

        /// Client data with the given members (crossOrigin false, no topOrigin).
        package init(type: String, challenge: [UInt8], origin: String) {
            self.type = type
            self.challenge = challenge
            self.origin = origin
        }

        /// The JSON bytes, members in the order browsers write them.
        package var bytes: [UInt8] {
            var members = [
                "\"type\":\(JSONValue.quoted(type))",
                "\"challenge\":\(JSONValue.quoted(challengeText ?? Base64URL.encode(challenge)))",
                "\"origin\":\(JSONValue.quoted(origin))",
            ]
            if let crossOrigin { members.append("\"crossOrigin\":\(crossOrigin)") }
            if let topOrigin { members.append("\"topOrigin\":\(JSONValue.quoted(topOrigin))") }
            members += extraMembers
            return Array(("{" + members.joined(separator: ",") + "}").utf8)
        }
    }

    // MARK: Registration

    /// Everything one registration can vary, and hooks to corrupt it.
    package struct RegistrationOptions {
        package var flags: AuthenticatorFlags = [.userPresent, .userVerified]
        package var attestation: Attestation = .none
        /// Edits client data before it is serialized.
        package var clientData: (inout ClientData) -> Void = { _ in }
        /// Replaces the clientDataJSON bytes before they are hashed and signed.
        package var clientDataBytes: (inout [UInt8]) -> Void = { _ in }
        /// Edits authenticator data bytes before the attestation signs them.
        package var authData: (inout [UInt8]) -> Void = { _ in }
        /// Edits the attStmt map entries after signing (map statements; compound's components are not edited).
        package var statement: (inout [(CBORItem, CBORItem)]) -> Void = { _ in }
        /// Edits the attestation certificate (packed, fido-u2f, tpm's AIK, android-key, apple) before the CA signs it.
        package var certificate: (inout CertificateBuilder) -> Void = { _ in }
        /// Edits the value the attestation binds to this ceremony before it is certified or signed:
        /// android-key's attestationChallenge, apple's nonce, tpm's extraData.
        package var nonce: (inout [UInt8]) -> Void = { _ in }
        /// Format-specific contents of the tpm and android-key statements (TestAttestations.swift).
        package var details = StatementDetails()
        /// Edits the encoded attestation object.
        package var attestationObject: (inout [UInt8]) -> Void = { _ in }
        /// Edits the finished response (id, rawId, type, transports...).
        package var response: (inout RegistrationResponse) -> Void = { _ in }
        /// Extension outputs, authenticator (CBOR map bytes after ED) and client (see
        /// TestAuthenticator+Extensions.swift).
        package var extensions = ExtensionOutputs()

        /// Defaults: UP and UV, `none` attestation, nothing edited.
        package init(flags: AuthenticatorFlags = [.userPresent, .userVerified], attestation: Attestation = .none) {
            self.flags = flags
            self.attestation = attestation
        }
    }

    /// Authenticator data for a registration: with attested credential data, under this
    /// authenticator's AAGUID or `aaguid` when given.
    package func registrationAuthData(flags: AuthenticatorFlags, aaguid: [UInt8]? = nil) -> [UInt8] {
        var data = TestAuthData(
            rpId: rpId, flags: flags, signCount: signCount, aaguid: aaguid ?? self.aaguid,
            credentialId: credentialId, credentialKey: coseKey)
        data.flags.remove(.extensionData)
        return data.bytes
    }

    /// A registration response for `challenge`.
    package func register(challenge: [UInt8], _ options: RegistrationOptions = RegistrationOptions()) throws -> RegistrationResponse {
        var clientData = ClientData(type: "webauthn.create", challenge: challenge, origin: origin)
        options.clientData(&clientData)
        var clientDataJSON = clientData.bytes
        options.clientDataBytes(&clientDataJSON)
        // A U2F device has no AAGUID: the CTAP2 client writes the zero AAGUID for it.
        var authData = registrationAuthData(flags: options.flags, aaguid: options.attestation.isFIDOU2F ? AAGUID.zero.bytes : nil)
        options.extensions.append(to: &authData)
        options.authData(&authData)
        let clientDataHash = Digest.sha256.hash(clientDataJSON)

        var (fmt, statement) = try attestationStatement(
            options.attestation, authData: authData,
            clientDataHash: clientDataHash, options: options)
        if var entries = statement.mapEntries.map({ Array($0.map { ($0.key, $0.value) }) }) {
            options.statement(&entries)
            statement = .map(entries)
        }
        fmt = fmt.isEmpty ? "none" : fmt
        var attestationObject = CBOREncoder.encode(
            CBORItem.map([
                (.text("fmt"), .text(fmt)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData)),
            ]))
        options.attestationObject(&attestationObject)
        var response = RegistrationResponse(
            id: Base64URL.encode(credentialId), rawId: credentialId,
            clientDataJSON: clientDataJSON, attestationObject: attestationObject,
            transports: transports,
            clientExtensionResults: options.extensions.client)
        options.response(&response)
        return response
    }

    /// The `fmt` and attStmt for one attestation choice.
    func attestationStatement(
        _ attestation: Attestation, authData: [UInt8], clientDataHash: [UInt8],
        options: RegistrationOptions
    ) throws -> (fmt: String, statement: CBORItem) {
        switch attestation {
        case .none:
            return ("none", .map([]))
        case .packedSelf:
            let sig = try privateKey.sign(authData + clientDataHash, algorithm: algorithm)
            return ("packed", .map([(.text("alg"), .int(Int64(algorithm.rawValue))), (.text("sig"), .bytes(sig))]))
        case .packed(let ca):
            let leafKey = try attestationKey(.p256, "packed leaf")
            let leaf = try Self.packedLeaf(key: leafKey, ca: ca, aaguid: aaguid, edit: options.certificate)
            return (
                "packed",
                .map(
                    try Self.packedStatement(
                        leafKey: leafKey, chain: [leaf], alg: .es256,
                        signed: authData + clientDataHash))
            )
        case .packedChain(let leafKey, let chain, let alg):
            return (
                "packed",
                .map(
                    try Self.packedStatement(
                        leafKey: leafKey, chain: chain, alg: alg,
                        signed: authData + clientDataHash))
            )
        case .fidoU2F(let ca):
            let leafKey = try attestationKey(.p256, "fido-u2f leaf")
            let leaf = try Self.u2fLeaf(key: leafKey, ca: ca, edit: options.certificate)
            return ("fido-u2f", .map(try u2fStatement(leafKey: leafKey, chain: [leaf], clientDataHash: clientDataHash)))
        case .fidoU2FChain(let leafKey, let chain):
            return ("fido-u2f", .map(try u2fStatement(leafKey: leafKey, chain: chain, clientDataHash: clientDataHash)))
        case .tpm(let ca):
            return ("tpm", try tpmStatement(ca: ca, authData: authData, clientDataHash: clientDataHash, options: options))
        case .androidKey(let ca):
            return (
                "android-key",
                try androidKeyStatement(
                    ca: ca, authData: authData, clientDataHash: clientDataHash,
                    options: options)
            )
        case .apple(let ca):
            return ("apple", try appleStatement(ca: ca, authData: authData, clientDataHash: clientDataHash, options: options))
        case .compound(let components):
            let statements = try components.map { component throws -> CBORItem in
                let (fmt, statement) = try attestationStatement(
                    component, authData: authData,
                    clientDataHash: clientDataHash, options: options)
                return .map([(.text("fmt"), .text(fmt)), (.text("attStmt"), statement)])
            }
            return ("compound", .array(statements))
        case .custom(let fmt, let statement):
            return (fmt, statement)
        }
    }

    /// An attestation key: derived from ``seed`` and `label` when there is a seed, else fresh.
    func attestationKey(_ kind: PrivateKey.Kind, _ label: String) throws -> PrivateKey {
        try seed.map { try PrivateKey.derive(kind, seed: "\($0) \(label)") } ?? PrivateKey.generate(kind)
    }

    package static func packedStatement(
        leafKey: PrivateKey, chain: [Certificate], alg: COSEAlgorithm,
        signed: [UInt8]
    ) throws -> [(CBORItem, CBORItem)] {
        let sig = try leafKey.sign(signed, algorithm: alg)
        return [
            (.text("alg"), .int(Int64(alg.rawValue))), (.text("sig"), .bytes(sig)),
            (.text("x5c"), .array(chain.map { .bytes($0.derBytes) })),
        ]
    }

    /// fido-u2f: the leaf signs 0x00 || rpIdHash || clientDataHash || credentialId || 0x04 || x || y.
    package func u2fStatement(leafKey: PrivateKey, chain: [Certificate], clientDataHash: [UInt8]) throws -> [(CBORItem, CBORItem)] {
        let cose = try COSEKey(cbor: coseKey[...])
        guard let point = cose.ec2Coordinates else { throw WebAuthnError(.malformed, "fido-u2f needs an EC2 key") }
        let data: [UInt8] =
            [0x00] + Digest.sha256.hash(Array(rpId.utf8)) + clientDataHash + credentialId
            + [0x04] + point.x + point.y
        let sig = try leafKey.sign(data, algorithm: .es256)
        return [(.text("sig"), .bytes(sig)), (.text("x5c"), .array(chain.map { .bytes($0.derBytes) }))]
    }

    /// The JSON form of a registration response (`RegistrationResponseJSON`).
    package static func json(_ response: RegistrationResponse) -> RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                transports: response.transports.map { AuthenticatorTransport(rawValue: $0) },
                attestationObject: Base64URLBytes(response.attestationObject)),
            clientExtensionResults: response.clientExtensionResults,
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    /// A registration in JSON form.
    package func registerJSON(challenge: [UInt8], _ options: RegistrationOptions = RegistrationOptions()) throws -> RegistrationResponseJSON
    {
        Self.json(try register(challenge: challenge, options))
    }

    // MARK: Authentication

    /// Everything one assertion can vary, and hooks to corrupt it.
    package struct AuthenticationOptions {
        var flags: AuthenticatorFlags = [.userPresent, .userVerified]
        /// The counter to report; nil takes the authenticator's counter (after ``counterStep``).
        package var signCount: UInt32?
        /// Edits client data before it is serialized.
        package var clientData: (inout ClientData) -> Void = { _ in }
        /// Replaces the clientDataJSON bytes before they are hashed and signed.
        package var clientDataBytes: (inout [UInt8]) -> Void = { _ in }
        /// Edits authenticator data bytes before they are signed.
        package var authData: (inout [UInt8]) -> Void = { _ in }
        /// Edits the signature after signing.
        package var signature: (inout [UInt8]) -> Void = { _ in }
        /// Edits the finished response (id, rawId, type, userHandle, authenticatorData...).
        package var response: (inout AuthenticationResponse) -> Void = { _ in }
        /// Extension outputs, authenticator and client.
        package var extensions = ExtensionOutputs()

        /// Defaults: UP and UV, the authenticator's own counter, nothing edited.
        package init(flags: AuthenticatorFlags = [.userPresent, .userVerified], signCount: UInt32? = nil) {
            self.flags = flags
            self.signCount = signCount
        }
    }

    /// An assertion for `challenge`; advances the counter by ``counterStep`` unless
    /// `options.signCount` is given.
    package mutating func authenticate(
        challenge: [UInt8], _ options: AuthenticationOptions = AuthenticationOptions()
    ) throws -> AuthenticationResponse {
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
        options.extensions.append(to: &authData)
        options.authData(&authData)
        var signature = try privateKey.sign(authData + Digest.sha256.hash(clientDataJSON), algorithm: algorithm)
        options.signature(&signature)
        var response = AuthenticationResponse(
            id: Base64URL.encode(credentialId), rawId: credentialId,
            clientDataJSON: clientDataJSON, authenticatorData: authData,
            signature: signature, userHandle: returnsUserHandle ? userHandle : nil,
            clientExtensionResults: options.extensions.client)
        options.response(&response)
        return response
    }

    /// The JSON form of an authentication response (`AuthenticationResponseJSON`).
    package static func json(_ response: AuthenticationResponse) -> AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                authenticatorData: Base64URLBytes(response.authenticatorData),
                signature: Base64URLBytes(response.signature),
                userHandle: response.userHandle.map { Base64URLBytes($0) }),
            clientExtensionResults: response.clientExtensionResults,
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    /// An assertion in JSON form.
    package mutating func authenticateJSON(
        challenge: [UInt8], _ options: AuthenticationOptions = AuthenticationOptions()
    ) throws -> AuthenticationResponseJSON {
        Self.json(try authenticate(challenge: challenge, options))
    }

    // MARK: Records

    /// The credential record a relying party would hold after registering this
    /// credential (for tests that start at authentication).
    package func record(
        signCount: UInt32 = 0, backupEligible: Bool = false, backupState: Bool = false,
        uvInitialized: Bool = false
    ) -> CredentialRecord {
        CredentialRecord(
            id: credentialId, publicKey: coseKey, signCount: signCount,
            userHandle: userHandle, uvInitialized: uvInitialized, backupEligible: backupEligible,
            backupState: backupState, transports: transports,
            aaguid: AAGUID(bytes: aaguid)?.uuidString ?? AAGUID.zero.uuidString)
    }

    // MARK: Attestation certificates

    /// A packed attestation leaf meeting §8.2.1: v3, C/O/OU="Authenticator Attestation"/CN,
    /// basicConstraints CA=false, the AAGUID extension (not critical), issued by `ca`.
    package static func packedLeaf(
        key: PrivateKey, ca: CA, aaguid: [UInt8]?,
        edit: (inout CertificateBuilder) -> Void = { _ in }
    ) throws -> Certificate {
        let now = TestCertificates.now
        var builder = CertificateBuilder(
            subject: try DistinguishedName([
                .country("AA"), .organization("Test Vendor"),
                .organizationalUnit("Authenticator Attestation"),
                .commonName("Test Authenticator"),
            ]),
            publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 30),
            notAfter: now.addingTimeInterval(86_400 * 365 * 5))
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x10, 0x01]
        builder.basicConstraints = .init(isCA: false)
        if let aaguid {
            builder.extraExtensions = [
                CertificateExtension(
                    oid: AttestationOID.aaguidExtension, isCritical: false,
                    value: [0x04, 0x10] + aaguid)
            ]
        }
        edit(&builder)
        return try builder.sign(with: ca.key)
    }

    /// A fido-u2f attestation leaf (any subject; P-256 key), issued by `ca`.
    package static func u2fLeaf(key: PrivateKey, ca: CA, edit: (inout CertificateBuilder) -> Void = { _ in }) throws -> Certificate {
        let now = TestCertificates.now
        var builder = CertificateBuilder(
            subject: try DistinguishedName([.commonName("U2F Test Token")]),
            publicKey: key.publicKey, notBefore: now.addingTimeInterval(-86_400 * 30),
            notAfter: now.addingTimeInterval(86_400 * 365 * 5))
        builder.issued(by: ca.certificate)
        builder.serialNumber = [0x20, 0x02]
        edit(&builder)
        return try builder.sign(with: ca.key)
    }
}
