import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Reads a verified MDS3 BLOB payload (`MetadataBLOBPayload`) into entries, keeping the
/// members a server shows or decides on and ignoring the rest (MDS3 allows new members).
///
/// The payload is untrusted until the signature verified, and large: it is read by the strict
/// JSON reader with a size and depth limit. The top level (`no`, `nextUpdate`, `legalHeader`,
/// the `entries` array) is read strictly: a fault there refuses the BLOB. Each entry is then
/// read on its own, so one entry the library cannot read does not take down every
/// registration: what decides trust (AAGUID, key identifiers, status reports, attestation root
/// certificates, attestation types) is type-checked and a fault leaves the entry out (a
/// ``MetadataBLOB/SkippedEntry`` naming the member, for example
/// `payload.entries[12].metadataStatement.attestationTypes[0] is not a string`); descriptive
/// members (description, icon, versions, key protection, user verification details) are read
/// leniently and a malformed one is ignored.
enum MetadataPayloadParser {
    struct Payload {
        var number: Int
        var nextUpdate: Date
        var legalHeader: String?
        var entries: [MetadataEntry]
        var skipped: [MetadataBLOB.SkippedEntry] = []
    }

    /// Limits for the payload.
    static let maximumDepth = 24
    static let maximumEntries = 100_000
    static let maximumListLength = 10_000

    static func failure(_ path: String, _ problem: String) -> WebAuthnError {
        WebAuthnError(.metadata, step: "MDS3 §3.1", "metadata BLOB payload: \(path) \(problem)")
    }

    static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> Payload {
        let json: JSONValue
        do {
            json = try JSONReader.parse(
                bytes[...],
                limits: .init(
                    maximumDepth: maximumDepth,
                    maximumBytes: MetadataBLOB.maximumBytes))
        } catch {
            throw WebAuthnError(.metadata, step: "MDS3 §3.1", "metadata BLOB payload is not JSON: \(error)")
        }
        let root = Node(value: json, path: "payload")
        let members = try root.object()
        let number = try root.member(members, "no").integer()
        let nextUpdateNode = try root.member(members, "nextUpdate")
        guard let nextUpdate = MetadataDate.parse(try nextUpdateNode.string()) else {
            throw failure(nextUpdateNode.path, "is not a date (YYYY-MM-DD)")
        }
        let legalHeader = try root.optionalMember(members, "legalHeader")?.string()
        let entryNodes = try root.member(members, "entries").array(limit: maximumEntries)
        var entries: [MetadataEntry] = []
        var skipped: [MetadataBLOB.SkippedEntry] = []
        entries.reserveCapacity(entryNodes.count)
        for (index, node) in entryNodes.enumerated() {
            do {
                entries.append(try entry(node))
            } catch {
                skipped.append(skippedEntry(node, index: index, reason: error.message))
            }
        }
        return Payload(number: number, nextUpdate: nextUpdate, legalHeader: legalHeader, entries: entries, skipped: skipped)
    }

    /// What can still be told of an entry that could not be read: the identifiers that parse,
    /// so that ``MetadataBLOB`` treats those authenticators as having no entry.
    private static func skippedEntry(_ node: Node, index: Int, reason: String) -> MetadataBLOB.SkippedEntry {
        guard case .object(let members) = node.value else {
            return MetadataBLOB.SkippedEntry(index: index, aaguid: nil, attestationCertificateKeyIdentifiers: [], reason: reason)
        }
        let aaguid = members["aaguid"]?.stringValue.flatMap { AAGUID(uuidString: $0) }
        let identifiers = (members["attestationCertificateKeyIdentifiers"]?.arrayValue ?? []).prefix(maximumListLength)
            .compactMap { $0.stringValue }
            .filter { $0.utf8.count == 40 && $0.utf8.allSatisfy(isHexDigit) }
            .map { $0.lowercased() }
        return MetadataBLOB.SkippedEntry(
            index: index, aaguid: aaguid, attestationCertificateKeyIdentifiers: identifiers,
            reason: reason)
    }

    /// What identifies an entry or a statement: its `aaguid` and its
    /// `attestationCertificateKeyIdentifiers` (lowercased), each strictly read when present.
    static func identity(
        _ node: Node, _ members: [String: JSONValue]
    ) throws(WebAuthnError) -> (aaguid: AAGUID?, keyIdentifiers: [String]) {
        var aaguid: AAGUID?
        if let aaguidNode = try node.optionalMember(members, "aaguid") {
            guard let parsed = AAGUID(uuidString: try aaguidNode.string()) else {
                throw failure(aaguidNode.path, "is not an AAGUID (8-4-4-4-12 hexadecimal)")
            }
            aaguid = parsed
        }
        var identifiers: [String] = []
        if let list = try node.optionalMember(members, "attestationCertificateKeyIdentifiers") {
            for item in try list.array(limit: maximumListLength) {
                let text = try item.string()
                guard text.utf8.count == 40, text.utf8.allSatisfy(isHexDigit) else {
                    throw failure(item.path, "is not a 20-byte hex key identifier")
                }
                identifiers.append(text.lowercased())
            }
        }
        return (aaguid, identifiers)
    }

    private static func entry(_ node: Node) throws(WebAuthnError) -> MetadataEntry {
        let members = try node.object()
        let (aaguid, identifiers) = try identity(node, members)
        var statement: MetadataStatement?
        if let statementNode = try node.optionalMember(members, "metadataStatement") {
            statement = try metadataStatement(statementNode)
        }
        var reports: [MetadataStatusReport] = []
        // statusReports is required by MDS3; an entry without it has nothing to report.
        if let list = try node.optionalMember(members, "statusReports") {
            for item in try list.array(limit: maximumListLength) { reports.append(try statusReport(item)) }
        }
        return MetadataEntry(
            aaguid: aaguid, attestationCertificateKeyIdentifiers: identifiers, statement: statement,
            statusReports: reports, json: node.value)
    }

    static func statusReport(_ node: Node) throws(WebAuthnError) -> MetadataStatusReport {
        let members = try node.object()
        let status = AuthenticatorStatus(rawValue: try node.member(members, "status").string())
        var effectiveDate: Date?
        if let dateNode = try node.optionalMember(members, "effectiveDate") {
            guard let date = MetadataDate.parse(try dateNode.string()) else {
                throw failure(dateNode.path, "is not a date (YYYY-MM-DD)")
            }
            effectiveDate = date
        }
        let version = try node.optionalMember(members, "authenticatorVersion")?.unsigned32()
        // The certificate a report concerns (for ATTESTATION_KEY_COMPROMISE: the leaked key's)
        // scopes a refusal, so it must parse; a report naming an unreadable one is not guessed at.
        var certificate: [UInt8]?
        if let certificateNode = try node.optionalMember(members, "certificate") {
            guard let der = MetadataBase64.decode(try certificateNode.string()), !der.isEmpty,
                (try? Certificate(derEncoded: der)) != nil
            else {
                throw failure(certificateNode.path, "is not a base64 DER certificate")
            }
            certificate = der
        }
        return MetadataStatusReport(
            status: status, effectiveDate: effectiveDate, authenticatorVersion: version, certificate: certificate)
    }

    static func metadataStatement(_ node: Node) throws(WebAuthnError) -> MetadataStatement {
        let members = try node.object()
        // Descriptive: shown, never decided on; a malformed one is left empty.
        let description = node.lenientString(members, "description") ?? ""
        let icon = node.lenientString(members, "icon")
        let version = (try? node.optionalMember(members, "authenticatorVersion")?.unsigned32()) ?? 0
        let family = node.lenientString(members, "protocolFamily") ?? ""
        let types = try node.member(members, "attestationTypes").strings(limit: maximumListLength)
        var roots: [[UInt8]] = []
        for item in try node.member(members, "attestationRootCertificates").array(limit: maximumListLength) {
            guard let der = MetadataBase64.decode(try item.string()), !der.isEmpty else {
                throw failure(item.path, "is not base64 DER")
            }
            roots.append(der)
        }
        let keyProtection = node.lenientStrings(members, "keyProtection")
        // Descriptive: alternatives of combinations of methods. The method is named
        // `userVerificationMethod` (MDS3), or `userVerification` as the FIDO conformance tools'
        // BLOB writes it; a descriptor naming neither as text, or a combination that is not a
        // list, is left out rather than losing the entry.
        var userVerification: [[UserVerificationMethod]] = []
        for combination in node.lenientArray(members, "userVerificationDetails") {
            guard let descriptors = combination.arrayValue else { continue }
            let methods = descriptors.prefix(maximumListLength).compactMap { descriptor -> UserVerificationMethod? in
                guard let fields = descriptor.objectValue,
                    let method = fields["userVerificationMethod"]?.stringValue ?? fields["userVerification"]?.stringValue
                else { return nil }
                return UserVerificationMethod(method: method)
            }
            if !methods.isEmpty { userVerification.append(methods) }
        }
        return MetadataStatement(
            description: description, icon: icon, authenticatorVersion: version,
            protocolFamily: family, attestationTypes: types, attestationRootCertificates: roots,
            keyProtection: keyProtection, userVerificationDetails: userVerification)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// A JSON value with the path it was reached by, for messages.
    struct Node {
        let value: JSONValue
        let path: String

        func object() throws(WebAuthnError) -> [String: JSONValue] {
            guard case .object(let members) = value else { throw failure(path, "is not an object") }
            return members
        }

        func member(_ members: [String: JSONValue], _ name: String) throws(WebAuthnError) -> Node {
            guard let value = members[name] else { throw failure("\(path).\(name)", "is missing") }
            return Node(value: value, path: "\(path).\(name)")
        }

        /// The member, or nil when absent or `null`.
        func optionalMember(_ members: [String: JSONValue], _ name: String) throws(WebAuthnError) -> Node? {
            guard let value = members[name], value != .null else { return nil }
            return Node(value: value, path: "\(path).\(name)")
        }

        func string() throws(WebAuthnError) -> String {
            guard case .string(let text) = value else { throw failure(path, "is not a string") }
            return text
        }

        func integer() throws(WebAuthnError) -> Int {
            guard case .number(let number) = value, number.rounded(.towardZero) == number,
                abs(number) < 9_007_199_254_740_992
            else {
                throw failure(path, "is not an integer")
            }
            return Int(number)
        }

        func unsigned32() throws(WebAuthnError) -> UInt32 {
            guard case .number(let number) = value, number.rounded(.towardZero) == number,
                number >= 0, number <= Double(UInt32.max)
            else {
                throw failure(path, "is not an unsigned 32-bit integer")
            }
            return UInt32(number)
        }

        func array(limit: Int) throws(WebAuthnError) -> [Node] {
            guard case .array(let items) = value else { throw failure(path, "is not an array") }
            guard items.count <= limit else { throw failure(path, "has \(items.count) elements, more than \(limit)") }
            return items.enumerated().map { Node(value: $0.element, path: "\(path)[\($0.offset)]") }
        }

        func strings(limit: Int) throws(WebAuthnError) -> [String] {
            var out: [String] = []
            for item in try array(limit: limit) { out.append(try item.string()) }
            return out
        }

        /// A descriptive member's text: nil when absent or not a string.
        func lenientString(_ members: [String: JSONValue], _ name: String) -> String? {
            members[name]?.stringValue
        }

        /// A descriptive member's list: empty when absent or not an array, at most the list limit.
        func lenientArray(_ members: [String: JSONValue], _ name: String) -> ArraySlice<JSONValue> {
            (members[name]?.arrayValue ?? []).prefix(maximumListLength)
        }

        /// A descriptive list of texts: the items that are strings.
        func lenientStrings(_ members: [String: JSONValue], _ name: String) -> [String] {
            lenientArray(members, name).compactMap(\.stringValue)
        }
    }
}

/// MDS3 dates: `full-date` (RFC 3339 §5.6, `YYYY-MM-DD`), read as 00:00 UTC of that day.
enum MetadataDate {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), day >= 1
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days) * 86_400)
    }
}

/// Base64 as the metadata statements carry certificates: the standard alphabet, padding
/// optional, line breaks and spaces (from PEM bodies pasted into a statement) skipped.
enum MetadataBase64 {
    static func decode(_ text: String) -> [UInt8]? {
        var normalized = String(text.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        let remainder = normalized.utf8.count % 4
        if remainder == 2 { normalized += "==" } else if remainder == 3 { normalized += "=" } else if remainder == 1 { return nil }
        return Data(base64Encoded: normalized).map(Array.init)
    }
}
