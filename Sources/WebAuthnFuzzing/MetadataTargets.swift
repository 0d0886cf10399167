import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// The FIDO Metadata Service BLOB: the whole compact JWS (header, chain, signature, payload)
/// verified against the test root of `Fixtures/metadata/`, and the payload JSON alone.
enum MetadataTargets {
    static let all: [FuzzTarget] = [blob, payload]

    /// 2025-06-01T00:00:00Z, the fixtures' verification time.
    static let time = Date(timeIntervalSince1970: 1_748_736_000)

    /// The root of the fixtures' test metadata PKI (`Fixtures/metadata/*.json`, `policy.metadata.trustAnchor`).
    static let root: Certificate? = {
        let text =
            "MIIBgjCCASigAwIBAgIBATAKBggqhkjOPQQDAjA4MRYwFAYDVQQDDA1UZXN0IE1EUyBSb290MREwDwYDVQQKDAhUZXN0IE1EUzEL"
            + "MAkGA1UEBhMCQUEwHhcNMjQwMTAyMDAwMDAwWhcNMzQxMjMwMDAwMDAwWjA4MRYwFAYDVQQDDA1UZXN0IE1EUyBSb290MREwDwYD"
            + "VQQKDAhUZXN0IE1EUzELMAkGA1UEBhMCQUEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARRL1DtB7xBkUPvEdyVza9PA_9xmSZV"
            + "sZzC-mIcYDZN0371xyG8RwgLjsXBQbRa2fUZWRsvzuyo2MK0RQ3saWi1oyMwITAPBgNVHRMBAf8EBTADAQH_MA4GA1UdDwEB_wQE"
            + "AwIBBjAKBggqhkjOPQQDAgNIADBFAiEA7pnMnojIh6XpeJ0vHI0kkeuNgZ6YCYcpTNfCFiIe7lQCIDTXfyAF_2PNiRX9Po220QWG"
            + "OMBDjgwP9aJWktIcdIbu"
        guard let der = try? Base64URL.decode(text) else { return nil }
        return try? Certificate(derEncoded: der)
    }()

    /// What an indexed BLOB holds, in a stable order.
    static func describe(_ blob: MetadataBLOB) -> String {
        let entries = blob.entries.map { entry in
            "\(entry.aaguid?.uuidString ?? "-") \(entry.attestationCertificateKeyIdentifiers) \(entry.latestStatusReport?.status.rawValue ?? "-") "
                + "\(entry.certificationLevel(at: nil).map { "\($0)" } ?? "-") \(entry.name ?? "-") \(entry.statement?.attestationTypes ?? [])"
        }
        return "no \(blob.number) next \(blob.nextUpdate.timeIntervalSince1970) \(entries) skipped \(blob.skippedEntries)"
    }

    /// Every entry is found again by its own AAGUID and key identifiers, in either case; an
    /// identifier that two entries list, or that a skipped entry lists, finds nothing.
    static func checkIndex(_ blob: MetadataBLOB, _ check: inout PropertyCheck) {
        for skipped in blob.skippedEntries {
            if let aaguid = skipped.aaguid {
                check.require(blob.entry(aaguid: aaguid) == nil, "a skipped entry's AAGUID finds no entry", "\(skipped)")
            }
            for identifier in skipped.attestationCertificateKeyIdentifiers {
                check.require(
                    blob.entry(attestationCertificateKeyIdentifier: identifier) == nil,
                    "a skipped entry's key identifier finds no entry", "\(skipped)")
            }
        }
        var aaguidCounts: [AAGUID: Int] = [:]
        var identifierCounts: [String: Int] = [:]
        for entry in blob.entries {
            if let aaguid = entry.aaguid { aaguidCounts[aaguid, default: 0] += 1 }
            for identifier in Set(entry.attestationCertificateKeyIdentifiers) { identifierCounts[identifier, default: 0] += 1 }
        }
        let blockedAAGUIDs = Set(blob.skippedEntries.compactMap(\.aaguid))
        let blockedIdentifiers = Set(blob.skippedEntries.flatMap(\.attestationCertificateKeyIdentifiers))
        for (index, entry) in blob.entries.enumerated() {
            if let aaguid = entry.aaguid, !blockedAAGUIDs.contains(aaguid) {
                let unique = aaguidCounts[aaguid] == 1
                check.require(
                    unique ? blob.entry(aaguid: aaguid)?.json == entry.json : blob.entry(aaguid: aaguid) == nil,
                    unique ? "an entry is found by its AAGUID" : "an AAGUID two entries list finds none", "entry \(index)")
            }
            for identifier in entry.attestationCertificateKeyIdentifiers where !blockedIdentifiers.contains(identifier) {
                let unique = identifierCounts[identifier] == 1
                let found = blob.entry(attestationCertificateKeyIdentifier: identifier.uppercased())
                check.require(
                    unique ? found?.json == entry.json : found == nil,
                    unique
                        ? "an entry is found by its key identifier, in either case"
                        : "a key identifier two entries list finds none", "entry \(index)")
            }
        }
    }

    static let blob = FuzzTarget(
        "metadata-blob",
        checks: """
            the input as an MDS3 BLOB (compact JWS) verified against the fixtures' test metadata root at \
            2025-06-01: the same verdict twice; an accepted BLOB's entries are found by AAGUID and key identifier
            """
    ) { bytes, check in
        guard let root else {
            check.require(false, "the fixed root parses", "")
            return
        }
        let run = { () -> (String, MetadataBLOB?) in
            Verdict.of(
                { () throws(WebAuthnError) in try MetadataBLOB(jws: Array(bytes), trustAnchor: root, at: time) },
                describe: describe)
        }
        let (first, verified) = run()
        check.requireSame(first, run().0, "verifying twice gives the same verdict")
        if let verified { checkIndex(verified, &check) }
    }

    static let payload = FuzzTarget(
        "metadata-payload",
        checks: """
            the input as an MDS3 BLOB payload (JSON), read and indexed without a signature: the same \
            verdict twice; every refusal is category metadata; entries are found by AAGUID and key identifier
            """
    ) { bytes, check in
        let run = { () -> (String, MetadataBLOB?) in
            Verdict.of({ () throws(WebAuthnError) in try MetadataBLOB.indexUnverifiedPayload(Array(bytes)) }, describe: describe)
        }
        let (first, indexed) = run()
        check.requireSame(first, run().0, "reading twice gives the same verdict")
        if let indexed {
            checkIndex(indexed, &check)
        } else {
            check.require(first.hasPrefix("reject: metadata"), "a refusal is category metadata", first)
        }
    }
}
