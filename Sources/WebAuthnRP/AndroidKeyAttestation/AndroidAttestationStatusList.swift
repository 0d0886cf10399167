public import Foundation
import WebAuthnCoding

/// Google's attestation status list: the serial numbers of Android attestation certificates
/// (batch keys, intermediates, roots) that Google revoked or suspended, for example because a
/// device maker's attestation key leaked. A chain with one of them proves nothing.
///
/// ``snapshot`` is the copy shipped with the library (serial, status and reason; its source and
/// date in `Docs/AndroidAttestationStatus.md`, the date also as ``snapshotDate``). A server that
/// fetches a newer list (`https://android.googleapis.com/attestation/status`, which Google
/// updates as keys leak) reads it with ``init(jsonData:)`` and passes it to
/// ``AndroidKeyAttestationService``.
public struct AndroidAttestationStatusList: Sendable {
    /// Status and reason by serial number (lowercase hex, no leading zeros).
    let entries: [String: (status: String, reason: String?)]

    /// The list shipped with the library.
    public static let snapshot = AndroidAttestationStatusList(
        entries: Dictionary(
            snapshotEntries.map { ($0.serial, ($0.status, $0.reason)) }, uniquingKeysWith: { first, _ in first }))

    /// The day the shipped list was taken from Google's service (2024-11-21, 00:00 UTC).
    public static let snapshotDate = Date(timeIntervalSince1970: 1_732_147_200)

    init(entries: [String: (status: String, reason: String?)]) { self.entries = entries }

    /// The largest file read (Google's list is about 50 KB).
    static let maximumBytes = 4 << 20
    /// The most entries read.
    static let maximumEntries = 100_000
    /// The statuses Google's list uses; both make a certificate unusable.
    static let statuses: Set<String> = ["REVOKED", "SUSPENDED"]

    /// Reads a newer list, `{"entries": {"<serial in hex>": {"status": "REVOKED", "reason": …}, …}}`,
    /// with the library's strict reader. Other members (`expires`, `comment`) are ignored.
    /// - Parameter jsonData: the file as Google serves it.
    /// - Throws: ``WebAuthnError`` `malformed` for a file over 4 MiB, JSON the reader refuses, no
    ///   `entries` object, a key that is not 1 to 64 hex digits or is given twice (in another case
    ///   or with leading zeros), a `status` other than `REVOKED` or `SUSPENDED`, a `reason` that
    ///   is not a string of at most 64 bytes, more than 100,000 entries, or none at all.
    public init(jsonData: Data) throws(WebAuthnError) {
        let value: JSONValue
        do throws(JSONReader.ParseError) {
            value = try JSONReader.parse(
                Array(jsonData)[...], limits: JSONReader.Limits(maximumDepth: 3, maximumBytes: Self.maximumBytes))
        } catch {
            throw WebAuthnError(.malformed, "attestation status list: \(error)")
        }
        guard case .object(let list)? = value["entries"] else {
            throw WebAuthnError(.malformed, "attestation status list: no \"entries\" object")
        }
        guard !list.isEmpty, list.count <= Self.maximumEntries else {
            throw WebAuthnError(.malformed, "attestation status list: \(list.count) entries; expected 1 to \(Self.maximumEntries)")
        }
        var entries: [String: (status: String, reason: String?)] = [:]
        for (key, entry) in list.sorted(by: { $0.key < $1.key }) {
            let at = "attestation status list[\"\(key.prefix(64))\"]"
            guard (1...64).contains(key.utf8.count), key.utf8.allSatisfy({ $0.isHexDigit }) else {
                throw WebAuthnError(.malformed, "\(at): not a serial number in hex")
            }
            guard case .string(let status)? = entry["status"], Self.statuses.contains(status) else {
                throw WebAuthnError(.malformed, "\(at).status is not \"REVOKED\" or \"SUSPENDED\"")
            }
            var reason: String?
            if let given = entry["reason"] {
                guard case .string(let text) = given, text.utf8.count <= 64 else {
                    throw WebAuthnError(.malformed, "\(at).reason is not a string of at most 64 bytes")
                }
                reason = text
            }
            guard entries.updateValue((status, reason), forKey: Self.normalized(key)) == nil else {
                throw WebAuthnError(.malformed, "\(at): the serial number is listed twice")
            }
        }
        self.entries = entries
    }

    /// A serial in the list's spelling: lowercase hex without leading zeros (`0` for zero).
    static func normalized(_ hex: String) -> String {
        let trimmed = hex.lowercased().drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// The status of a certificate serial number (the INTEGER's content octets), or nil when the
    /// list does not name it.
    func status(ofSerial serial: [UInt8]) -> (status: String, reason: String?)? {
        entries[Self.normalized(serial.map { String(format: "%02x", $0) }.joined())]
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
