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
    /// Whether a statement of this format that verified vouches for the AAGUID of the
    /// authenticator data: its signature (or the nonce its certificate carries) covers
    /// `authenticatorData`. Only then may the AAGUID choose the metadata entry whose roots judge
    /// the statement's chain; otherwise the attestation certificate's key identifier does
    /// (``MetadataTrust``). Packed and TPM additionally hold the certificate's
    /// id-fido-gen-ce-aaguid extension, when present, to the same AAGUID.
    var attestsAAGUID: Bool { get }
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
            AttestationResult(
                format: component.format, outcome: component.outcome, verdict: componentVerdict,
                authenticator: componentVerdict.trust)
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
        /// What the trust source said about the statement judged (for a compound: its reported component).
        var trust: AuthenticatorTrust? = nil
    }

    /// Steps 24-25 as a registration runs them: asks the policy's trust source for this
    /// authenticator's anchors (it may refuse the authenticator, category `metadata`), then
    /// judges the trust path against them.
    ///
    /// Each statement is asked about and judged on its own: a compound's sub-statements each
    /// with their own format, type and chain, so that a sub-statement's entry is chosen by what
    /// that statement vouches for (a `fido-u2f` one by its certificate's key identifier, never by
    /// the AAGUID it does not sign) and its chain is held to that entry's anchors alone. The
    /// compound's trust (name, metadata) reported is that of its first chained component, as
    /// its type is (``CompoundAttestation/reportedType(of:)``). A none or self component beside a
    /// chained one is not asked about: it vouches for nothing the chained one does not.
    /// - Throws: ``WebAuthnError`` from the trust source, for any statement.
    static func assess(
        _ outcome: AttestationOutcome, format: String, aaguid: AAGUID, policy: AttestationPolicy,
        at time: Date
    ) throws(WebAuthnError) -> (Verdict, AuthenticatorTrust) {
        let formats = AttestationFormatTable.standard
        return try judge(
            outcome, format: format, compoundRequirement: policy.formats.compoundRequirement,
            refusingAnchorInPath: policy.refusesAnchorInPath, at: time
        ) {
            (statementFormat, statement) throws(WebAuthnError) in
            let authenticator = AttestedAuthenticator(
                aaguid: aaguid, format: statementFormat, type: statement.type, trustPath: statement.trustPath,
                aaguidAttested: formats.format(statementFormat)?.attestsAAGUID ?? false)
            return try policy.source.trust(for: authenticator, at: time)
        }
    }

    /// Asks `trust` about each statement (the outcome itself, or each compound component) and
    /// judges its path against the anchors it answers.
    ///
    /// A compound under `.all` needs every component that claims a certificate chain to end in an
    /// anchor, and at least one must claim one. Self and none components make no claim to judge:
    /// they neither block nor give trust, as the compound's reported type is the first chained
    /// component's (``CompoundAttestation/reportedType(of:)``). Under `.any` one trusted component
    /// suffices. Every chained component is asked (each none and self one only when none is
    /// chained), so a source's refusal of any of them refuses the whole.
    /// - Returns: the verdict and the trust reported for the whole (a compound's first chained
    ///   component's, else its first component's).
    static func judge<Failure: Error>(
        _ outcome: AttestationOutcome, format: String,
        compoundRequirement: AttestationFormatOptions.CompoundRequirement, refusingAnchorInPath: Bool = false,
        at time: Date, trust: (String, AttestationOutcome) throws(Failure) -> AuthenticatorTrust
    ) throws(Failure) -> (Verdict, AuthenticatorTrust) {
        guard !outcome.components.isEmpty else {
            let statementTrust = try trust(format, outcome)
            var verdict = evaluate(outcome, trust: statementTrust, refusingAnchorInPath: refusingAnchorInPath, at: time)
            verdict.trust = statementTrust
            return (verdict, statementTrust)
        }
        let chainedFlags = outcome.components.map { $0.outcome.type != .none && $0.outcome.type != .self }
        // Beside a chained component, a none or self one claims nothing to look up (a none
        // statement vouches for no AAGUID): only when no component is chained is each asked about.
        let askAll = !chainedFlags.contains(true)
        var verdicts: [Verdict] = []
        for (component, chainedComponent) in zip(outcome.components, chainedFlags) {
            guard chainedComponent || askAll else {
                verdicts.append(evaluate(component.outcome, trust: AuthenticatorTrust(anchors: []), at: time))
                continue
            }
            verdicts.append(
                try judge(
                    component.outcome, format: component.format, compoundRequirement: compoundRequirement,
                    refusingAnchorInPath: refusingAnchorInPath, at: time, trust: trust
                ).0)
        }
        let trustedOnes = verdicts.filter(\.trusted)
        let chained = zip(chainedFlags, verdicts).filter(\.0).map(\.1)
        let ok = compoundRequirement == .all ? !chained.isEmpty && chained.allSatisfy(\.trusted) : !trustedOnes.isEmpty
        let judged = compoundRequirement == .all && !chained.isEmpty ? chained : verdicts
        let reported = chained.first ?? verdicts.first
        let reportedTrust = reported?.trust ?? AuthenticatorTrust(anchors: [])
        let verdict = Verdict(
            trusted: ok, anchor: trustedOnes.first?.anchor,
            reason: ok ? nil : judged.compactMap(\.reason).joined(separator: "; "), components: verdicts,
            trust: reportedTrust)
        return (verdict, reportedTrust)
    }

    /// Judges one statement's path against the anchors and compromised keys of `trust`: the path
    /// libcrypto builds, anchor included, must hold no key a compromise report names, wherever
    /// the certificate came from (`x5c`, the entry's roots, the relying party's own anchors).
    ///
    /// With `refusingAnchorInPath` (the FIDO conformance profile only), a path that carries one
    /// of the anchors or a self-issued certificate is untrusted.
    static func evaluate(
        _ outcome: AttestationOutcome, trust: AuthenticatorTrust, refusingAnchorInPath: Bool = false, at time: Date
    ) -> Verdict {
        switch outcome.type {
        case .none: return Verdict(trusted: false, anchor: nil, reason: "no attestation (fmt none)")
        case .self: return Verdict(trusted: false, anchor: nil, reason: "self attestation has no trust path")
        default: break
        }
        guard let leaf = outcome.trustPath.first else {
            return Verdict(trusted: false, anchor: nil, reason: "empty trust path")
        }
        guard !trust.anchors.isEmpty else {
            return Verdict(trusted: false, anchor: nil, reason: "the policy has no trust anchors for this authenticator")
        }
        if refusingAnchorInPath,
            let carried = outcome.trustPath.firstIndex(where: { certificate in
                certificate.isSelfIssued || trust.anchors.contains { $0.derBytes == certificate.derBytes }
            })
        {
            return Verdict(
                trusted: false, anchor: nil,
                reason: "x5c[\(carried)] is a root or a trust anchor, and the policy (FIDO conformance) refuses a path that carries it")
        }
        let chain: VerifiedCertificateChain
        do {
            chain = try CertificateChain.verify(
                leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()),
                trustAnchors: trust.anchors, at: time)
        } catch {
            return Verdict(trusted: false, anchor: nil, reason: "\(error)")
        }
        if let (certificate, reporter) = chain.certificates.lazy.compactMap({ certificate in
            trust.compromisedKeys.reporter(of: certificate).map { (certificate, $0) }
        }).first {
            return Verdict(
                trusted: false, anchor: nil,
                reason: "the path runs through \(certificate.subject), whose key the metadata of \(reporter) reports compromised")
        }
        return Verdict(trusted: true, anchor: chain.anchor, reason: nil)
    }
}
