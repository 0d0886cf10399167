public import Foundation
import WebAuthnCoding
public import WebAuthnCrypto

/// A FIDO Metadata Service (MDS3) BLOB whose signature and signing chain verified, indexed
/// for lookups by AAGUID and by attestation certificate key identifier.
///
/// The server downloads the BLOB however it likes (the production BLOB is at
/// `https://mds3.fidoalliance.org/`) and hands the bytes here with the root it trusts for
/// the BLOB's signing chain (``KnownAttestationRoots/fidoMetadataServiceRoot`` for
/// production, opted into explicitly). Verification follows the MDS3 processing rules: the
/// compact JWS's `alg` must be one this library verifies, its `x5c` chain must end in the
/// root at the given time (and pass the given CRLs), and the signature must verify with the
/// leaf's key; only then is the payload read. A BLOB past its `nextUpdate` still verifies:
/// ``isStale(at:)`` reports it and ``MetadataPolicy`` decides.
///
/// Every refusal is a ``WebAuthnError`` of category `metadata` whose message names what failed
/// (the header member, the certificate, the payload member). An entry that cannot be read does
/// not refuse the BLOB: it is left out and listed in ``skippedEntries`` with the reason.
public struct MetadataBLOB: Sendable {
    /// The BLOB's serial number (`no`); a newer BLOB has a larger one.
    public let number: Int
    /// The day the next BLOB will be published at the latest (`nextUpdate`, as 00:00 UTC of
    /// that day; ``isStale(at:)`` counts the whole day).
    public let nextUpdate: Date
    /// The legal header, if given.
    let legalHeader: String?
    /// Every entry that could be read, in the BLOB's order.
    public let entries: [MetadataEntry]
    /// The entries that could not be read, with the reason: left out of the index, so their
    /// authenticators have no entry (a ``MetadataPolicy`` made with `requireEntry: true` refuses them).
    public let skippedEntries: [SkippedEntry]
    /// The signing chain that verified, leaf first, the trust anchor last.
    package let signingChain: [Certificate]

    private let byAAGUID: [AAGUID: Int]
    private let byKeyIdentifier: [String: Int]
    /// AAGUIDs that more than one entry lists, with the positions of those entries.
    private let duplicateAAGUIDs: [AAGUID: [Int]]
    /// Key identifiers that more than one entry lists, with the positions of those entries.
    private let duplicateKeyIdentifiers: [String: [Int]]
    /// The entries with a report that can name keys (an `ATTESTATION_KEY_COMPROMISE`, or any
    /// report with a `certificate`), whose named keys every chain is checked against
    /// (``MetadataTrust``), in the BLOB's order.
    let entriesNamingKeys: [MetadataEntry]

    /// The largest BLOB accepted, in bytes (the production BLOB is a few megabytes).
    static let maximumBytes = 32 << 20
    /// The most certificates accepted in the header's `x5c`.
    static let maximumChainLength = 10

    /// Verifies and indexes a BLOB.
    /// - Parameters:
    ///   - jws: the BLOB as downloaded: a compact JWS (`header.payload.signature`), ASCII bytes
    ///     (`Data`, `[UInt8]`, or a `String`'s `utf8`).
    ///   - trustAnchor: the root the signing chain must end in.
    ///   - crls: revocation lists for the chain (empty: no revocation check). A listed
    ///     certificate, or a list past its nextUpdate, refuses the BLOB.
    ///   - time: the moment at which the chain must be valid.
    /// - Throws: ``WebAuthnError`` with category `metadata`.
    public init(
        jws: some Sequence<UInt8>, trustAnchor: Certificate, crls: [CertificateRevocationList] = [],
        at time: Date
    ) throws(WebAuthnError) {
        let verified = try MetadataJWSVerifier.verify(Array(jws), trustAnchor: trustAnchor, crls: crls, at: time)
        let payload = try MetadataPayloadParser.parse(verified.payload)
        self.init(payload: payload, signingChain: verified.chain)
    }

    init(payload: MetadataPayloadParser.Payload, signingChain: [Certificate]) {
        number = payload.number
        nextUpdate = payload.nextUpdate
        legalHeader = payload.legalHeader
        entries = payload.entries
        skippedEntries = payload.skipped
        self.signingChain = signingChain
        var byAAGUID: [AAGUID: Int] = [:]
        var byKeyIdentifier: [String: Int] = [:]
        var duplicateAAGUIDs: [AAGUID: [Int]] = [:]
        var duplicateKeyIdentifiers: [String: [Int]] = [:]
        byAAGUID.reserveCapacity(payload.entries.count)
        // An identifier two entries list is ambiguous: neither entry is used for it (the other
        // could be the one whose report refuses it), and a registration it names is refused.
        for (index, entry) in payload.entries.enumerated() {
            if let aaguid = entry.aaguid {
                if let first = byAAGUID[aaguid] {
                    duplicateAAGUIDs[aaguid, default: [first]].append(index)
                } else {
                    byAAGUID[aaguid] = index
                }
            }
            for identifier in Set(entry.attestationCertificateKeyIdentifiers).sorted() {
                if let first = byKeyIdentifier[identifier] {
                    duplicateKeyIdentifiers[identifier, default: [first]].append(index)
                } else {
                    byKeyIdentifier[identifier] = index
                }
            }
        }
        // A skipped entry may be the one that refuses its authenticator (a compromise report it
        // could not read): another entry listing the same identifier does not stand in for it.
        for skipped in payload.skipped {
            if let aaguid = skipped.aaguid { byAAGUID[aaguid] = nil }
            for identifier in skipped.attestationCertificateKeyIdentifiers { byKeyIdentifier[identifier] = nil }
        }
        self.byAAGUID = byAAGUID
        self.byKeyIdentifier = byKeyIdentifier
        self.duplicateAAGUIDs = duplicateAAGUIDs
        self.duplicateKeyIdentifiers = duplicateKeyIdentifiers
        entriesNamingKeys = payload.entries.filter { entry in
            entry.statusReports.contains { $0.status == .attestationKeyCompromise || $0.certificate != nil }
        }
    }

    /// The entry for an AAGUID, if the BLOB has exactly one (nil also when two entries list it).
    /// - Parameter aaguid: the authenticator's AAGUID.
    public func entry(aaguid: AAGUID) -> MetadataEntry? {
        (try? uniqueEntry(aaguid: aaguid)) ?? nil
    }

    /// The entry listing an attestation certificate key identifier (fido-u2f authenticators,
    /// which have no AAGUID), if exactly one does.
    /// - Parameter identifier: hex SHA-1 of the certificate's subject public key (either case).
    package func entry(attestationCertificateKeyIdentifier identifier: String) -> MetadataEntry? {
        (try? uniqueEntry(attestationCertificateKeyIdentifier: identifier)) ?? nil
    }

    /// The entry for a certificate: looked up by its key identifier (RFC 5280 §4.2.1.2 method 1,
    /// as MDS3 computes `attestationCertificateKeyIdentifiers`); nil also when two entries list it.
    /// - Parameter certificate: an attestation certificate.
    public func entry(attestationCertificate certificate: Certificate) -> MetadataEntry? {
        (try? uniqueEntry(attestationCertificate: certificate)) ?? nil
    }

    /// Each identifier more than one entry lists (an AAGUID, or a key identifier prefixed
    /// `keyid `), with those entries' positions, sorted: such an identifier names no entry, so
    /// its registrations are refused (`metadata`). For a listing of the BLOB.
    package var ambiguousIdentifiers: [(identifier: String, entries: [Int])] {
        (duplicateAAGUIDs.map { ($0.key.uuidString, $0.value) }
            + duplicateKeyIdentifiers.map { ("keyid " + $0.key, $0.value) }).sorted { $0.0 < $1.0 }
    }

    /// The entry for an AAGUID, for a trust decision.
    /// - Returns: the entry, or nil when no entry lists the AAGUID.
    /// - Throws: ``WebAuthnError`` `metadata` naming the entries when more than one lists it.
    func uniqueEntry(aaguid: AAGUID) throws(WebAuthnError) -> MetadataEntry? {
        if let duplicates = duplicateAAGUIDs[aaguid] { throw Self.ambiguous("AAGUID \(aaguid.uuidString)", duplicates) }
        guard let index = byAAGUID[aaguid], entries.indices.contains(index) else { return nil }
        return entries[index]
    }

    /// The entry listing a key identifier, for a trust decision.
    /// - Returns: the entry, or nil when no entry lists it.
    /// - Throws: ``WebAuthnError`` `metadata` naming the entries when more than one lists it.
    func uniqueEntry(attestationCertificateKeyIdentifier identifier: String) throws(WebAuthnError) -> MetadataEntry? {
        let identifier = identifier.lowercased()
        if let duplicates = duplicateKeyIdentifiers[identifier] {
            throw Self.ambiguous("attestation certificate key identifier \(identifier)", duplicates)
        }
        guard let index = byKeyIdentifier[identifier], entries.indices.contains(index) else { return nil }
        return entries[index]
    }

    /// The entry for an attestation certificate's key identifier, for a trust decision.
    /// - Throws: ``WebAuthnError`` `metadata` naming the entries when more than one lists it.
    func uniqueEntry(attestationCertificate certificate: Certificate) throws(WebAuthnError) -> MetadataEntry? {
        guard let identifier = Self.keyIdentifier(of: certificate) else { return nil }
        return try uniqueEntry(attestationCertificateKeyIdentifier: identifier)
    }

    /// The refusal of an identifier several entries list: which entry decides its status, roots
    /// and name cannot be told, so none does (a later `REVOKED` must not lose to an earlier entry).
    private static func ambiguous(_ identifier: String, _ positions: [Int]) -> WebAuthnError {
        WebAuthnError(
            .metadata, step: "§7.1 step 24",
            "the metadata BLOB lists \(identifier) in more than one entry (entries "
                + positions.map { "[\($0)]" }.joined(separator: ", ") + "); it names no entry and is refused")
    }

    /// Whether the ``nextUpdate`` day (UTC) is over: a newer BLOB should exist.
    ///
    /// `nextUpdate` is a date, "when the next update will be provided at latest" (MDS3), so the
    /// next BLOB may appear at any hour of that day; a BLOB counts as stale from the following
    /// midnight, or a server that fetches early in the day would refuse registrations until FIDO
    /// publishes.
    /// - Parameter time: the current time.
    public func isStale(at time: Date) -> Bool { time >= nextUpdate.addingTimeInterval(Self.secondsPerDay) }

    private static let secondsPerDay: TimeInterval = 86_400

    /// A certificate's key identifier as MDS3 writes `attestationCertificateKeyIdentifiers`:
    /// lowercase hex SHA-1 of the subjectPublicKey BIT STRING's value (RFC 5280 §4.2.1.2 method 1).
    /// - Parameter certificate: the certificate.
    /// - Returns: 40 hex digits, or nil when the key cannot be read.
    static func keyIdentifier(of certificate: Certificate) -> String? {
        guard let spki = try? DER.parseSequence(certificate.subjectPublicKeyInfoDER), spki.count == 2,
            let bitString = spki.last, bitString.tag == .bitString, let first = bitString.content.first,
            first == 0
        else { return nil }
        let digest = Digest.sha1.hash(bitString.content.dropFirst())
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension MetadataBLOB {
    /// An entry of the BLOB that could not be read (a member that decides trust is missing or
    /// of the wrong type), left out of the index; its ``description`` says which and why.
    public struct SkippedEntry: Sendable, Hashable, CustomStringConvertible {
        /// Its position in the payload's `entries`, from 0.
        let index: Int
        /// Its AAGUID, when that member could still be read.
        package let aaguid: AAGUID?
        /// Its attestation certificate key identifiers (lowercase hex) that could still be read.
        package let attestationCertificateKeyIdentifiers: [String]
        /// What could not be read, for example
        /// `metadata BLOB payload: payload.entries[3].statusReports[0].status is missing`.
        let reason: String

        /// The entry's position, the identifier that could still be read, and what could not be
        /// read, for example `entries[3] keyid 82cc…: metadata BLOB payload:
        /// payload.entries[3].statusReports[0].status is missing`.
        public var description: String {
            let identifier =
                aaguid?.uuidString
                ?? attestationCertificateKeyIdentifiers.first.map { "keyid \($0)" } ?? "(no readable identifier)"
            return "entries[\(index)] \(identifier): \(reason)"
        }
    }
}

/// The JWS part of the MDS3 processing rules: header, chain, signature.
enum MetadataJWSVerifier {
    struct Verified {
        let payload: [UInt8]
        let chain: [Certificate]
    }

    static func failure(_ message: String) -> WebAuthnError {
        WebAuthnError(.metadata, step: "MDS3 §3.2", "metadata BLOB: \(message)")
    }

    /// Parses the compact JWS and checks its header, signing chain and signature.
    static func verify(
        _ jws: [UInt8], trustAnchor: Certificate, crls: [CertificateRevocationList],
        at time: Date
    ) throws(WebAuthnError) -> Verified {
        guard jws.count <= MetadataBLOB.maximumBytes else {
            throw failure("\(jws.count) bytes exceeds the limit of \(MetadataBLOB.maximumBytes)")
        }
        // Surrounding white space (a trailing newline from a download) is not part of the JWS.
        var start = jws.startIndex, end = jws.endIndex
        while start < end, [0x20, 0x09, 0x0A, 0x0D].contains(jws[start]) { start += 1 }
        while end > start, [0x20, 0x09, 0x0A, 0x0D].contains(jws[end - 1]) { end -= 1 }
        // Compact serialization (RFC 7515 §7.1): three base64url parts. The signing input is verified as
        // a slice of the input and the payload decoded only after the signature verified, so a
        // multi-megabyte BLOB is neither copied nor decoded before it is known to be genuine.
        let body = jws[start..<end]
        let dots = body.indices.filter { body[$0] == UInt8(ascii: ".") }
        guard dots.count == 2, let firstDot = dots.first, let secondDot = dots.last else {
            throw failure("not a compact JWS: \(dots.count + 1) part(s), the compact serialization has 3")
        }
        let headerPart = body[body.startIndex..<firstDot], payloadPart = body[(firstDot + 1)..<secondDot]
        let signaturePart = body[(secondDot + 1)...]
        guard !headerPart.isEmpty, !payloadPart.isEmpty, !signaturePart.isEmpty else {
            throw failure("not a compact JWS: a part is empty")
        }
        let headerJSON: JSONValue
        do {
            headerJSON = try JSONReader.parse(try Base64URL.decode(utf8: headerPart)[...])
        } catch {
            throw failure("not a compact JWS: the header is not base64url JSON: \(error)")
        }
        guard let header = headerJSON.objectValue else { throw failure("not a compact JWS: the header is not a JSON object") }
        let rawSignature: [UInt8]
        do {
            rawSignature = try Base64URL.decode(utf8: signaturePart)
        } catch {
            throw failure("not a compact JWS: the signature is not base64url: \(error)")
        }
        if header["crit"] != nil {
            // RFC 7515 §4.1.11: a critical extension this verifier does not understand refuses the JWS.
            throw failure("JWS header has crit extensions this verifier does not understand")
        }
        guard let algName = header["alg"]?.stringValue else { throw failure("JWS header alg is missing or not a string") }
        guard let algorithm = CompactJWS.Algorithm.named(algName) else {
            throw failure("JWS alg \(algName) is not supported (RS256/384/512, PS256/384/512, ES256/384/512)")
        }
        let chain = try certificates(header)
        let signer: Certificate
        let verifiedChain: [Certificate]
        if let leaf = chain.first {
            do {
                verifiedChain = try CertificateChain.verify(
                    leaf: leaf, intermediates: Array(chain.dropFirst()),
                    trustAnchors: [trustAnchor], crls: crls, at: time
                ).certificates
            } catch {
                throw failure("the x5c signing chain does not verify to the trust anchor: \(error)")
            }
            signer = leaf
        } else {
            // MDS3 §3.2 step 3: without x5u and x5c, the trust anchor itself is the signing certificate.
            guard header["x5u"] == nil else {
                throw failure("JWS header has x5u but no x5c; this verifier does not fetch certificates")
            }
            do {
                verifiedChain = try CertificateChain.verify(
                    leaf: trustAnchor, intermediates: [], trustAnchors: [trustAnchor],
                    crls: crls, at: time
                ).certificates
            } catch {
                throw failure("no x5c, and the trust anchor is not valid as the signer: \(error)")
            }
            signer = trustAnchor
        }
        var signature = rawSignature
        if let coordinateLength = algorithm.ecdsaCoordinateLength {
            // RFC 7518 §3.4: ECDSA as the fixed-width r || s, re-encoded as DER for libcrypto.
            do {
                signature = try ECDSASignature.derEncoded(raw: rawSignature[...], coordinateLength: coordinateLength)
            } catch {
                throw failure("JWS \(algName) signature: \(error.reason)")
            }
        }
        let valid: Bool
        do {
            valid = try signer.publicKey.verify(
                signature: signature[...], over: body[body.startIndex..<secondDot],
                algorithm: algorithm.cose)
        } catch {
            throw failure("JWS \(algName) signature could not be checked with the signing certificate's key: \(error)")
        }
        guard valid else { throw failure("JWS \(algName) signature does not verify") }
        let payload: [UInt8]
        do {
            payload = try Base64URL.decode(utf8: payloadPart)
        } catch {
            throw failure("the JWS payload is not base64url: \(error)")
        }
        return Verified(payload: payload, chain: verifiedChain)
    }

    private static func certificates(_ header: [String: JSONValue]) throws(WebAuthnError) -> [Certificate] {
        guard let value = header["x5c"] else { return [] }
        guard let entries = value.arrayValue else { throw failure("JWS header x5c is not an array") }
        guard !entries.isEmpty else { throw failure("JWS header x5c is an empty array") }
        guard entries.count <= MetadataBLOB.maximumChainLength else {
            throw failure("JWS header x5c holds \(entries.count) certificates, more than \(MetadataBLOB.maximumChainLength)")
        }
        var chain: [Certificate] = []
        for (index, entry) in entries.enumerated() {
            guard let text = entry.stringValue else { throw failure("JWS header x5c[\(index)] is not a string") }
            // RFC 7515 §4.1.6: standard base64 (not base64url) DER.
            let der: [UInt8]
            do {
                der = try StandardBase64.decode(text)
            } catch {
                throw failure("JWS header x5c[\(index)] is not base64: \(error)")
            }
            do {
                chain.append(try Certificate(derEncoded: der))
            } catch {
                throw failure("JWS header x5c[\(index)] does not parse: \(error)")
            }
        }
        return chain
    }
}

extension MetadataBLOB {
    /// Reads and indexes a payload as if its signature had verified (no signing chain).
    ///
    /// Package access only: the `metadata-payload` fuzz target feeds hostile payload JSON
    /// through this. Servers use ``init(jws:trustAnchor:crls:at:)``, which verifies first.
    /// - Throws: ``WebAuthnError`` with category `metadata`.
    package static func indexUnverifiedPayload(_ bytes: [UInt8]) throws(WebAuthnError) -> MetadataBLOB {
        MetadataBLOB(payload: try MetadataPayloadParser.parse(bytes), signingChain: [])
    }
}
