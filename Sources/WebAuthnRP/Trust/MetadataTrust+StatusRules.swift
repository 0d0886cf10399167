import Foundation
import WebAuthnCrypto

// What an entry's status reports, certification and declared attestation types refuse
// (MetadataPolicy says which), at registration and at a record's re-check.

extension MetadataTrust {
    /// Checks an entry against the policy at `time`: status, certification, declared attestation type.
    ///
    /// Every status report in effect counts (``MetadataEntry/currentStatusReports(at:)``): a
    /// refused status can share its date with a certification. A refused status dated after
    /// `time` counts too (a revocation announced ahead is taken at once), while a certification
    /// dated after `time` does not count yet. An `ATTESTATION_KEY_COMPROMISE` counts whatever
    /// came after it (unless the policy opts out); one naming a certificate refuses the chains
    /// holding its key, through ``compromisedKeys(at:)``, whichever entry they claim.
    /// - Parameters:
    ///   - chain: the attestation's certificates, leaf first (empty for none and self
    ///     attestation), or nil when not known (a re-check without the attestation object):
    ///     then a compromise naming a certificate refuses, as the chain cannot be shown clear of it.
    func check(
        _ entry: MetadataEntry, authenticator: AttestedAuthenticator?, chain: [Certificate]?,
        at time: Date
    ) throws(WebAuthnError) {
        let name = Self.name(of: entry)
        for report in refusingReports(entry, at: time) {
            // A known chain is judged by key against every compromise report of the BLOB (``refuse(_:holding:)``).
            if report.status == .attestationKeyCompromise, report.certificate != nil, chain != nil {
                continue
            }
            let detail =
                report.status != .attestationKeyCompromise
                ? "in effect or announced"
                : report.certificate != nil
                    ? "reported for the key of a certificate the chain may hold, whatever came after"
                    : "reported for every chain of the model, whatever came after"
            throw Self.failure("\(name): the metadata status \(report.status.rawValue) is \(detail)")
        }
        if let minimum = policy.minimumCertificationLevel {
            let level = entry.certificationLevel(at: time)
            guard let level, level >= minimum else {
                throw Self.failure(
                    "\(name) is certified at \(level.map { "\($0)" } ?? "no level"), "
                        + "the policy requires \(minimum) or better")
            }
        }
        guard let authenticator, let statement = entry.statement, authenticator.type != .none else { return }
        let fitting = Self.declarations(fitting: authenticator)
        guard statement.attestationTypes.contains(where: fitting.contains) else {
            throw Self.failure(
                "\(name): attestation type \(authenticator.type.rawValue) (\(fitting.joined(separator: " or "))) is not "
                    + "one its metadata statement declares (\(statement.attestationTypes.joined(separator: ", ")))")
        }
    }

    /// The reports of `entry` that refuse under the policy at `time`: a refused status in effect
    /// or announced, and, sticky, every `ATTESTATION_KEY_COMPROMISE` whatever its date.
    func refusingReports(_ entry: MetadataEntry, at time: Date) -> [MetadataStatusReport] {
        let announced = entry.statusReports.filter { report in report.effectiveDate.map { $0 > time } ?? false }
        let inForce = entry.currentStatusReports(at: time) + announced
        let sticky = !policy.trustLeakedAttestationKeysAfterLaterReport
        return entry.statusReports.filter { report in
            guard policy.refusedStatuses.contains(report.status) else { return false }
            return (sticky && report.status == .attestationKeyCompromise) || inForce.contains(report)
        }
    }

    /// The MDS `attestationTypes` values a verified attestation may be declared as.
    ///
    /// A `packed` or `fido-u2f` statement with `x5c` verifies as "Basic, AttCA or uncertainty"
    /// (W3C L3 §8.2, §8.6): only the metadata tells a batch certificate from one a CA issued for
    /// this credential, so the entry's declaration of either (or of an anonymization CA) fits,
    /// and the chain is still held to that entry's roots. Every other format's verification
    /// procedure names one type.
    static func declarations(fitting authenticator: AttestedAuthenticator) -> [String] {
        switch authenticator.type {
        case .basic where authenticator.format == "packed" || authenticator.format == "fido-u2f":
            return ["basic_full", "attca", "anonca"]
        case .basic: return ["basic_full"]
        case .self: return ["basic_surrogate"]
        case .attCA: return ["attca"]
        case .anonCA: return ["anonca"]
        case .none: return []
        }
    }

    /// An entry's name in messages: its description, else its AAGUID, else its first key identifier.
    static func name(of entry: MetadataEntry) -> String {
        entry.name.map { "\"\($0)\"" } ?? entry.aaguid?.uuidString
            ?? entry.attestationCertificateKeyIdentifiers.first.map { "keyid \($0)" } ?? "authenticator"
    }
}
