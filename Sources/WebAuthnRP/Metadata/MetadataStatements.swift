import Foundation
import WebAuthnCoding

// Unsigned metadata statements (the JSON files a vendor or the FIDO conformance tool hands a
// server) read into the same entries, index and trust decision as a signed BLOB's.

extension MetadataPayloadParser {
    /// The most statements one call reads.
    static let maximumStatements = 10_000

    /// One unsigned MDS3 metadata statement as an entry: the statement's own `aaguid` or
    /// `attestationCertificateKeyIdentifiers` identify it, its body is read by the BLOB's statement
    /// reader (strict on `attestationTypes` and `attestationRootCertificates`, lenient on the
    /// descriptive members), and `statusReports`, when a statement carries them, by the BLOB's.
    /// - Parameters:
    ///   - bytes: the statement's JSON.
    ///   - index: its position, for messages.
    /// - Throws: ``WebAuthnError`` `metadata` naming what could not be read.
    static func statementEntry(_ bytes: [UInt8], index: Int) throws(WebAuthnError) -> MetadataEntry {
        let path = "statements[\(index)]"
        let json: JSONValue
        do {
            json = try JSONReader.parse(
                bytes[...], limits: .init(maximumDepth: maximumDepth, maximumBytes: MetadataBLOB.maximumBytes))
        } catch {
            throw WebAuthnError(.metadata, step: "MDS3 §3.1", "metadata \(path) is not JSON: \(error)")
        }
        let node = Node(value: json, path: path)
        let members = try node.object()
        let (aaguid, identifiers) = try identity(node, members)
        // A statement that names no FIDO2 or U2F authenticator (a UAF `aaid` only) could never be
        // chosen: refused rather than loaded as dead weight.
        guard aaguid != nil || !identifiers.isEmpty else {
            throw failure(path, "has neither aaguid nor attestationCertificateKeyIdentifiers")
        }
        let statement = try metadataStatement(node)
        var reports: [MetadataStatusReport] = []
        if let list = try node.optionalMember(members, "statusReports") {
            for item in try list.array(limit: maximumListLength) { reports.append(try statusReport(item)) }
        }
        return MetadataEntry(
            aaguid: aaguid, attestationCertificateKeyIdentifiers: identifiers, statement: statement,
            statusReports: reports, json: json)
    }
}

extension MetadataBLOB {
    /// Unsigned metadata statements indexed as a BLOB is: nothing was signed, so no signing
    /// chain; no `nextUpdate`, so never stale. Every statement must read (strict, as the caller
    /// chose each one): the first that does not refuses the whole list.
    /// - Parameter statements: each statement's JSON.
    /// - Throws: ``WebAuthnError`` `metadata` naming the statement and what could not be read.
    init(statements: [[UInt8]]) throws(WebAuthnError) {
        guard statements.count <= MetadataPayloadParser.maximumStatements else {
            throw MetadataPayloadParser.failure(
                "statements", "holds \(statements.count); at most \(MetadataPayloadParser.maximumStatements) are read")
        }
        var entries: [MetadataEntry] = []
        for (index, bytes) in statements.enumerated() {
            entries.append(try MetadataPayloadParser.statementEntry(bytes, index: index))
        }
        self.init(
            payload: MetadataPayloadParser.Payload(number: 0, nextUpdate: .distantFuture, legalHeader: nil, entries: entries),
            signingChain: [])
    }
}
