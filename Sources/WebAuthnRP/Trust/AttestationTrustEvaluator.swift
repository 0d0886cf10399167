import Foundation
import WebAuthnCrypto

// One registration's trust decision, in the order it runs (W3C L3 §7.1 steps 24, 25, 29):
// 1. `assess` asks the policy's source about each statement, through `judge` a compound's one by
//    one (AttestationTrustSource.swift); the metadata source (MetadataTrust.swift) checks the
//    BLOB's freshness, the keys compromise reports name (CompromisedKeys.swift), the one entry the
//    statement leads to, its statuses and declared types (MetadataTrust+StatusRules.swift), and
//    answers that entry's roots;
// 2. `evaluate` judges the statement's path against those anchors and compromised keys;
// 3. the registration then holds the verdict to the policy's requirement (AttestationPolicy.swift,
//    `check`, step 29); what reaches the server is an AttestationResult.

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
