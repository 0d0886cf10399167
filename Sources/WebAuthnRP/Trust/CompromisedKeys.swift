import Foundation
import WebAuthnCrypto

/// Attestation keys that metadata reports compromised, with who reported each: by subject
/// public key (a report's `certificate`) and by key identifier (an entry whose compromise report
/// names no certificate leaks every key it lists in `attestationCertificateKeyIdentifiers`).
struct CompromisedKeys: Sendable {
    /// SPKI DER of each named certificate, to the entry that reported it.
    var bySubjectPublicKey: [[UInt8]: String] = [:]
    /// Lowercase hex key identifiers, to the entry that reported them.
    var byKeyIdentifier: [String: String] = [:]

    /// The entry that reports the key of `certificate` compromised, or nil when none does.
    func reporter(of certificate: Certificate) -> String? {
        if let reporter = bySubjectPublicKey[certificate.subjectPublicKeyInfoDER] { return reporter }
        guard !byKeyIdentifier.isEmpty, let identifier = MetadataBLOB.keyIdentifier(of: certificate) else { return nil }
        return byKeyIdentifier[identifier]
    }
}

extension MetadataTrust {
    /// The keys that refusing reports of **any** entry of the BLOB name at `time`: a refusing
    /// report's `certificate` names its key, whatever the status (an
    /// `ATTESTATION_KEY_COMPROMISE`, or another refused status naming the affected batch); an
    /// `ATTESTATION_KEY_COMPROMISE` naming none leaks every key its entry lists by key identifier
    /// (and refuses every chain of its own entry through ``check(_:authenticator:chain:at:)``). A
    /// named key is refused wherever it appears, not only in chains that claim the reporting
    /// entry's model.
    func compromisedKeys(at time: Date) -> CompromisedKeys {
        var keys = CompromisedKeys()
        for entry in blob.entriesNamingKeys {
            for report in refusingReports(entry, at: time) {
                let reporter = "\(Self.name(of: entry)) (\(report.status.rawValue))"
                if let der = report.certificate {
                    // The parser kept only certificates that parse; one that does not names no key it could match.
                    if let certificate = try? Certificate(derEncoded: der) {
                        keys.bySubjectPublicKey[certificate.subjectPublicKeyInfoDER] = reporter
                    }
                } else if report.status == .attestationKeyCompromise {
                    for identifier in entry.attestationCertificateKeyIdentifiers { keys.byKeyIdentifier[identifier] = reporter }
                }
            }
        }
        return keys
    }

    /// Refuses (`metadata`) a chain that holds a certificate with a compromised key.
    static func refuse(_ chain: [Certificate], holding keys: CompromisedKeys) throws(WebAuthnError) {
        for certificate in chain {
            guard let reporter = keys.reporter(of: certificate) else { continue }
            throw failure(
                "the chain holds \(certificate.subject), whose key the metadata of \(reporter) reports compromised")
        }
    }
}
