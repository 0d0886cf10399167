import WebAuthnCoding

/// `compound` (W3C L3 §8.9): several self-contained attestation statements about the same
/// credential, carried in one attestation object and sharing its authenticator data and
/// client data hash.
///
/// Each sub-statement is verified with its own format's verification procedure, taken from
/// ``AttestationContext/formats``. How many must verify is Relying Party policy
/// (``AttestationFormatOptions/compoundRequirement``): `.all` (the default) or `.any`.
///
/// The outcome carries every sub-statement that verified as a component; trust is then judged
/// per component by ``AttestationTrustEvaluator``, again under the compound requirement: `.all`
/// needs every chain-bearing component trusted (a self or none component neither blocks nor
/// gives trust), `.any` one trusted component. The compound outcome itself has an empty trust
/// path.
///
/// Attestation type reported for the compound as a whole: the L3 text leaves the result to the
/// implementation ("any combination of outputs"), and the ceremony has room for one type. This
/// verifier reports the strongest claim among the verified components: the type of the first
/// (in statement order) component that carries a certificate chain (Basic, AttCA, AnonCA);
/// failing that `self` if any component is self attestation; otherwise `none`. Reporting the
/// weakest or simply the first type instead would let a compound that contains an untrusted
/// certificate chain pass as unattested under ``AttestationPolicy/acceptUnattestedWhenTrustRequired``;
/// with this rule a compound counts as unattested only when no component claims a chain at all.
struct CompoundAttestation: AttestationFormat {
    let identifier = "compound"
    /// Does not vouch for the AAGUID: its sub-statements vouch, each for itself, and are judged one by one.
    let attestsAAGUID = false

    /// The most sub-statements a compound may hold. Not a spec rule (the syntax is `[2*
    /// nonCompoundAttStmt]`): §8 defines seven non-compound formats, and each sub-statement costs
    /// a signature check and perhaps a chain, so 7,000 of them in a 955 KB response cost half a
    /// second of CPU before the bound.
    static let maximumStatements = 8

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        // Syntax: compoundAttStmts = [2* nonCompoundAttStmt], each { fmt: text, attStmt: any }.
        // "compoundAttStmts MUST contain two or more attestation statements which MUST NOT be
        // compound attestation statements." Breaking the syntax fails the whole statement under
        // every policy: the policy only chooses how many well-formed sub-statements must verify.
        guard let items = context.statement.array else {
            throw context.failure("attStmt is not an array of attestation statements")
        }
        guard items.count >= 2 else {
            throw context.failure("attStmt holds \(items.count) statement(s); at least 2 are required")
        }
        guard items.count <= Self.maximumStatements else {
            throw context.failure("attStmt holds \(items.count) statements, more than \(Self.maximumStatements)")
        }
        var statements: [(fmt: String, attStmt: CBORItem)] = []
        for (index, item) in items.enumerated() {
            guard let entries = item.mapEntries else {
                throw context.failure("attStmt[\(index)] is not a map")
            }
            let fmt = try AttestationContext.member(
                item[textKey: "fmt"], "attStmt[\(index)].fmt", is: "a text string",
                format: identifier
            ) { $0.text }
            guard let attStmt = item[textKey: "attStmt"] else {
                throw context.failure("attStmt[\(index)].attStmt is missing")
            }
            guard entries.count == 2 else {
                throw context.failure("attStmt[\(index)] has \(entries.count) members; only fmt and attStmt are allowed")
            }
            guard fmt != identifier else {
                throw context.failure("attStmt[\(index)] is itself a compound statement, which is not allowed")
            }
            statements.append((fmt, attStmt))
        }

        // For each sub-statement, run the verification procedure of its format with the same
        // authenticatorData and clientDataHash. An unsupported format (or one the policy's
        // allowedFormats excludes) makes that sub-statement fail, like any other failure.
        var verified: [AttestationOutcome.ComponentOutcome] = []
        var failures: [String] = []
        for (index, statement) in statements.enumerated() {
            do {
                let outcome = try verifyComponent(fmt: statement.fmt, attStmt: statement.attStmt, context: context)
                verified.append(.init(format: statement.fmt, outcome: outcome))
            } catch {
                failures.append("attStmt[\(index)] (\(statement.fmt)): \(error.message)")
            }
        }

        // "If validation fails for one or more sub-statements, decide the appropriate result based
        // on Relying Party policy": .all needs every sub-statement, .any at least one.
        switch context.options.compoundRequirement {
        case .all:
            guard failures.isEmpty else {
                throw context.failure(
                    "every sub-statement must verify, but \(failures.count) of \(statements.count) did not: "
                        + failures.joined(separator: "; "))
            }
        case .any:
            guard !verified.isEmpty else {
                throw context.failure("no sub-statement verified: " + failures.joined(separator: "; "))
            }
        }
        return AttestationOutcome(type: Self.reportedType(of: verified), trustPath: [], components: verified)
    }

    /// Runs one sub-statement through its own format's verification procedure.
    private func verifyComponent(
        fmt: String, attStmt: CBORItem,
        context: AttestationContext
    ) throws(WebAuthnError) -> AttestationOutcome {
        if let allowed = context.allowedFormats, !allowed.contains(fmt) {
            throw AttestationContext.failure(fmt, "format is not allowed by policy")
        }
        guard let format = context.formats.format(fmt) else {
            throw AttestationContext.failure(fmt, "unsupported attestation format")
        }
        var subContext = context
        subContext.format = fmt
        subContext.statement = attStmt
        return try format.verify(subContext)
    }

    /// The type reported for the whole compound statement (see the type's documentation):
    /// the first chain-bearing component's type, else `self`, else `none`.
    static func reportedType(of components: [AttestationOutcome.ComponentOutcome]) -> AttestationType {
        let types = components.map(\.outcome.type)
        if let chained = types.first(where: { $0 != .none && $0 != .self }) { return chained }
        if types.contains(.self) { return .self }
        return .none
    }
}
