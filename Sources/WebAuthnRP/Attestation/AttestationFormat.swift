import Foundation
import WebAuthnCoding
public import WebAuthnCrypto

/// Everything an attestation statement format's verification procedure is given
/// (W3C L3 §6.5: attStmt, authenticatorData and clientDataHash), plus policy.
struct AttestationContext: Sendable {
    /// The identifier of the format whose procedure reads this context: every message starts with it.
    var format: String
    /// The `attStmt` item (a map for every format but `compound`).
    var statement: CBORItem
    /// The parsed authenticator data (its `rawBytes` are what was signed).
    let authenticatorData: AuthenticatorData
    /// SHA-256 of the clientDataJSON bytes.
    let clientDataHash: [UInt8]
    /// The credential public key from the attested credential data.
    let credentialKey: COSEKey
    /// The attested credential data (AAGUID, credential id).
    let attestedCredential: AttestedCredentialData
    /// Attestation policy (anchors, Android/SafetyNet/compound choices).
    let policy: AttestationPolicy
    /// The clock for certificate and timestamp checks.
    let verificationTime: Date
    /// The format table, for formats that nest others (compound).
    let formats: AttestationFormatTable
    /// Parsed certificates kept across registrations (nil: parse every time).
    var certificateCache: CertificateCache? = nil

    /// authenticatorData || clientDataHash: what most formats sign.
    var signedData: [UInt8] { Array(authenticatorData.rawBytes) + clientDataHash }
}

/// What a format's verification procedure established.
struct AttestationOutcome: Sendable {
    /// The attestation type.
    var type: AttestationType
    /// The attestation trust path, leaf first (empty for none and self).
    var trustPath: [Certificate]
    /// For compound attestation: the outcome of each sub-statement that verified.
    var components: [ComponentOutcome] = []
    /// Facts the format established about the authenticator (e.g. TPM manufacturer).
    var details: [String: String] = [:]

    struct ComponentOutcome: Sendable {
        var format: String
        var outcome: AttestationOutcome
    }
}

/// One attestation statement format's verification procedure (W3C L3 §8).
protocol AttestationFormat: Sendable {
    /// The format identifier as it appears in `fmt` (case-sensitive).
    var identifier: String { get }
    /// Verifies the statement.
    /// - Throws: ``WebAuthnError`` with category `attestation` when it does not verify.
    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome
}

/// The formats the verifier knows, chosen by `fmt` string. A format not in the table
/// is rejected with category `attestation` (§7.1 step 22).
struct AttestationFormatTable: Sendable {
    private let formats: [String: any AttestationFormat]

    init(_ formats: [any AttestationFormat]) {
        var table: [String: any AttestationFormat] = [:]
        for format in formats { table[format.identifier] = format }
        self.formats = table
    }

    /// Every format of W3C WebAuthn L3 §8 this library verifies.
    static let standard = AttestationFormatTable(AttestationFormatList.all)

    /// The format with this identifier (exact, case-sensitive match).
    func format(_ identifier: String) -> (any AttestationFormat)? { formats[identifier] }
}

extension AttestationContext {
    /// The most certificates an attestation chain (`x5c`, a SafetyNet JWS header's `x5c`, an App
    /// Attest `x5c`) may hold. Not a spec rule: real chains hold 1 to 5 (a Pixel's remotely
    /// provisioned chain is the longest seen), and each certificate costs a DER parse and a
    /// candidate in libcrypto's path building, so 1,500 distinct ones in an 870 KB response cost
    /// 0.2 s of CPU before the cap.
    static let maximumChainCertificates = 16

    /// An `attestation` error for a chain longer than ``maximumChainCertificates``, checked before any
    /// certificate is parsed.
    static func checkChainLength(_ count: Int, _ name: String, format: String) throws(WebAuthnError) {
        guard count <= maximumChainCertificates else {
            throw failure(format, "\(name) holds \(count) certificates, more than \(maximumChainCertificates)")
        }
    }

    /// An `attestation` error for this format.
    static func failure(_ format: String, _ message: String) -> WebAuthnError {
        WebAuthnError(.attestation, step: "§7.1 step 23", "\(format): \(message)")
    }

    /// A required member read as one CBOR type. An absent member and a member of another type are
    /// different faults and get different messages ("… is missing", "… is not …").
    /// - Parameters:
    ///   - item: the member, nil when absent.
    ///   - name: its name in messages (`ver`, `attStmt[1].fmt`).
    ///   - kind: the expected type in words (`a byte string`).
    ///   - format: the attestation format, for the message prefix.
    ///   - read: the typed accessor (`\.bytes`, `\.text`, …).
    static func member<T>(
        _ item: CBORItem?, _ name: String, is kind: String, format: String,
        _ read: (CBORItem) -> T?
    ) throws(WebAuthnError) -> T {
        guard let item else { throw failure(format, "\(name) is missing") }
        guard let value = read(item) else { throw failure(format, "\(name) is not \(kind)") }
        return value
    }

    /// Parses an `x5c` array of DER certificates (leaf first), through `cache` when given.
    static func certificates(
        _ item: CBORItem?, format: String,
        cache certificateCache: CertificateCache?
    ) throws(WebAuthnError) -> [Certificate] {
        let array = try Self.member(item, "x5c", is: "an array", format: format) { $0.array }
        guard !array.isEmpty else { throw Self.failure(format, "x5c is an empty array") }
        try Self.checkChainLength(array.count, "x5c", format: format)
        var certificates: [Certificate] = []
        for (index, element) in array.enumerated() {
            guard let der = element.bytes else { throw Self.failure(format, "x5c[\(index)] is not a byte string") }
            do {
                if let certificateCache {
                    certificates.append(try certificateCache.certificate(derEncoded: der))
                } else {
                    certificates.append(try Certificate(derEncoded: der))
                }
            } catch {
                // A certificate that does not parse is a structure that does not parse: `malformed`.
                throw WebAuthnError(.malformed, step: "§7.1 step 23", "\(format): x5c[\(index)] does not parse: \(error)")
            }
        }
        return certificates
    }
}

// The statement as the running format reads it: every §8 procedure opens with "Verify that attStmt
// is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it to extract the
// contained fields", and these readers are that step, member by member, with the format's name on
// every message.
extension AttestationContext {
    /// An `attestation` error from the running format.
    func failure(_ message: String) -> WebAuthnError { Self.failure(format, message) }

    /// Requires the statement to be a map (every format's syntax but `compound`'s).
    func requireMapStatement() throws(WebAuthnError) {
        guard statement.mapEntries != nil else { throw failure("attStmt is not a map") }
    }

    /// A required statement member read as one CBOR type (see the static form).
    func member<T>(_ name: String, is kind: String, _ read: (CBORItem) -> T?) throws(WebAuthnError) -> T {
        try Self.member(statement[textKey: name], name, is: kind, format: format, read)
    }

    /// The `alg` member as a COSE algorithm.
    func algorithm() throws(WebAuthnError) -> COSEAlgorithm {
        COSEAlgorithm(rawValue: try member("alg", is: "an integer") { $0.int })
    }

    /// The `sig` member's bytes.
    func signature() throws(WebAuthnError) -> ArraySlice<UInt8> {
        try member("sig", is: "a byte string") { $0.bytes }
    }

    /// The `x5c` member through the certificate cache: its first certificate (the one that attests)
    /// and the whole chain, leaf first.
    func certificates() throws(WebAuthnError) -> (leaf: Certificate, chain: [Certificate]) {
        let chain = try Self.certificates(statement[textKey: "x5c"], format: format, cache: certificateCache)
        guard let leaf = chain.first else { throw failure("x5c is an empty array") }
        return (leaf, chain)
    }

    /// Verifies `signature` over `data` with `key` and `algorithm`; false and errors become `attestation`.
    func requireSignature(
        _ signature: ArraySlice<UInt8>, over data: [UInt8], key: PublicKey,
        algorithm: COSEAlgorithm, signer: String,
        options: COSEKeyOptions = .default
    ) throws(WebAuthnError) {
        let valid: Bool
        do {
            valid = try key.verify(signature: signature, over: data[...], algorithm: algorithm, options: options)
        } catch {
            throw failure("\(signer) signature could not be checked: \(error)")
        }
        guard valid else { throw failure("\(signer) signature does not verify") }
    }
}

/// The attestation part of a verified registration: which format and type, and
/// whether (and through which anchor) the claim chains to a root the RP trusts.
public struct AttestationResult: Sendable {
    /// The `fmt` of the statement.
    public let format: String
    /// The attestation type.
    public let type: AttestationType
    /// True when the trust path ended at one of the policy's trust anchors.
    public let trusted: Bool
    /// The anchor the path ended at, when trusted.
    public let trustAnchor: Certificate?
    /// The attestation trust path as presented (`x5c`, leaf first).
    public let trustPath: [Certificate]
    /// Why the path is not trusted, when it is not.
    public let untrustedReason: String?
    /// Facts the format established about the authenticator, for example the TPM
    /// manufacturer, model and firmware version (`tpmManufacturer`, `tpmModel`, `tpmVersion`).
    public let details: [String: String]
    /// For `compound`: the result of each sub-statement that verified, with its own trust.
    public let components: [AttestationResult]
    /// The authenticator's name from a verified FIDO metadata entry (the statement's
    /// description, as the trust source reports it), or nil. The entry is the one the trust
    /// source chose by an identifier the attestation statement vouches for; a `none` attestation
    /// vouches for nothing (its AAGUID is the client's claim), so it has no metadata name.
    /// Never the community list's name: that is ``claimedProviderName``.
    public let metadataName: String?
    /// The passkey provider's name for the AAGUID in the policy's `passkeyProviders` (the
    /// community AAGUID list, ``PasskeyProviders``), or nil: always a claim, never a statement.
    /// An AAGUID without a verified attestation is whatever the authenticator or client says;
    /// show it as "claims to be", never decide trust by it.
    public let claimedProviderName: String?
    /// The FIDO metadata entry the trust decision used, when the source is ``MetadataTrust``
    /// and the authenticator has an entry: its status reports, certification level, statement.
    public let metadata: MetadataEntry?
    /// True when that metadata was past its nextUpdate (accepted because the policy allows stale metadata).
    public let metadataStale: Bool

    /// Builds the public result from a format's outcome, the trust verdict and what the trust source said.
    init(
        format: String, outcome: AttestationOutcome, verdict: AttestationTrustEvaluator.Verdict,
        authenticator: AuthenticatorTrust? = nil, providerName: String? = nil
    ) {
        self.format = format
        self.type = outcome.type
        self.trusted = verdict.trusted
        self.trustAnchor = verdict.anchor
        self.trustPath = outcome.trustPath
        self.untrustedReason = verdict.trusted ? nil : verdict.reason
        self.details = outcome.details
        // Two names, never merged: metadata's, signed by the FIDO Alliance, and only for an entry
        // an attestation statement led to; the community list's, a claim by AAGUID.
        self.metadataName = outcome.type == .none ? nil : authenticator?.authenticatorName
        self.claimedProviderName = providerName
        self.metadata = authenticator?.metadata
        self.metadataStale = authenticator?.metadataStale ?? false
        // The verdict holds one verdict per component, in the same order (each chain verified once).
        self.components = zip(outcome.components, verdict.components).map { component, componentVerdict in
            AttestationResult(format: component.format, outcome: component.outcome, verdict: componentVerdict)
        }
    }
}

/// Decides trust for a verified attestation outcome (W3C L3 §7.1 steps 24-25).
enum AttestationTrustEvaluator {
    struct Verdict {
        var trusted: Bool
        var anchor: Certificate?
        var reason: String?
        /// For compound attestation: one verdict per component, in order.
        var components: [Verdict] = []
    }

    /// Steps 24-25 as a registration runs them: asks the policy's trust source for this
    /// authenticator's anchors (it may refuse the authenticator, category `metadata`), then
    /// judges the trust path against them.
    /// - Throws: ``WebAuthnError`` from the trust source.
    static func assess(
        _ outcome: AttestationOutcome, format: String, aaguid: AAGUID, policy: AttestationPolicy,
        at time: Date
    ) throws(WebAuthnError) -> (Verdict, AuthenticatorTrust) {
        let path = outcome.components.isEmpty ? outcome.trustPath : outcome.components.flatMap(\.outcome.trustPath)
        let authenticator = AttestedAuthenticator(aaguid: aaguid, format: format, type: outcome.type, trustPath: path)
        let trust = try policy.source.trust(for: authenticator, at: time)
        let verdict = evaluate(
            outcome, anchors: trust.anchors, compoundRequirement: policy.formats.compoundRequirement,
            refusingAnchorInPath: policy.refusesAnchorInPath, at: time)
        return (verdict, trust)
    }

    /// Judges trust against `anchors`; a compound outcome is trusted per `compoundRequirement`.
    ///
    /// Under `.all` every component that claims a certificate chain must end in an anchor, and at
    /// least one must claim one. Self and none components make no claim to judge: they neither
    /// block nor give trust, as the compound's reported type is the first chained component's
    /// (``CompoundAttestation/reportedType(of:)``). Under `.any` one trusted component suffices.
    ///
    /// With `refusingAnchorInPath` (the FIDO conformance profile only), a path that carries one
    /// of `anchors` or a self-issued certificate is untrusted.
    static func evaluate(
        _ outcome: AttestationOutcome, anchors: [Certificate],
        compoundRequirement: AttestationFormatOptions.CompoundRequirement, refusingAnchorInPath: Bool = false,
        at time: Date
    ) -> Verdict {
        if !outcome.components.isEmpty {
            let verdicts = outcome.components.map {
                evaluate(
                    $0.outcome, anchors: anchors, compoundRequirement: compoundRequirement,
                    refusingAnchorInPath: refusingAnchorInPath, at: time)
            }
            let trustedOnes = verdicts.filter(\.trusted)
            let chained = zip(outcome.components, verdicts).filter { component, _ in
                component.outcome.type != .none && component.outcome.type != .self
            }.map(\.1)
            let ok = compoundRequirement == .all ? !chained.isEmpty && chained.allSatisfy(\.trusted) : !trustedOnes.isEmpty
            let judged = compoundRequirement == .all && !chained.isEmpty ? chained : verdicts
            return Verdict(
                trusted: ok, anchor: trustedOnes.first?.anchor,
                reason: ok ? nil : judged.compactMap(\.reason).joined(separator: "; "), components: verdicts)
        }
        switch outcome.type {
        case .none: return Verdict(trusted: false, anchor: nil, reason: "no attestation (fmt none)")
        case .self: return Verdict(trusted: false, anchor: nil, reason: "self attestation has no trust path")
        default: break
        }
        guard let leaf = outcome.trustPath.first else {
            return Verdict(trusted: false, anchor: nil, reason: "empty trust path")
        }
        guard !anchors.isEmpty else {
            return Verdict(trusted: false, anchor: nil, reason: "the policy has no trust anchors for this authenticator")
        }
        if refusingAnchorInPath,
            let carried = outcome.trustPath.firstIndex(where: { certificate in
                certificate.isSelfIssued || anchors.contains { $0.derBytes == certificate.derBytes }
            })
        {
            return Verdict(
                trusted: false, anchor: nil,
                reason: "x5c[\(carried)] is a root or a trust anchor, and the policy (FIDO conformance) refuses a path that carries it")
        }
        do {
            let chain = try CertificateChain.verify(
                leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()),
                trustAnchors: anchors, at: time)
            return Verdict(trusted: true, anchor: chain.anchor, reason: nil)
        } catch {
            return Verdict(trusted: false, anchor: nil, reason: "\(error)")
        }
    }
}
