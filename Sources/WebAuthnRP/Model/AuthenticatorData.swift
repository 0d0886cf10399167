package import WebAuthnCoding

/// The credential data an authenticator adds when it creates a credential
/// (WebAuthn Level 3 §6.5.1): present when the AT flag is set.
package struct AttestedCredentialData: Sendable {
    /// The authenticator model identifier.
    package let aaguid: AAGUID
    /// The credential ID, a slice of the received authenticator data (at most 1023 bytes).
    package let credentialId: ArraySlice<UInt8>
    /// The credential public key as one CBOR map (a COSE_Key). Its `encodedBytes`
    /// are exactly the key bytes inside the authenticator data.
    package let credentialPublicKey: CBORItem
}

/// Parsed authenticator data (WebAuthn Level 3 §6.1).
///
/// Layout: `rpIdHash` (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ attested
/// credential data (when AT) ‖ extensions map (when ED). Parsing is exact: data the
/// flags announce must be there, data they do not announce must not be, and no
/// byte may be left over. Reserved flag bits are ignored.
package struct AuthenticatorData: Sendable {
    /// Exactly the bytes received; signatures and hashes are computed over these.
    package let rawBytes: ArraySlice<UInt8>
    /// SHA-256 of the RP ID the authenticator scoped the credential to (32 bytes).
    package let rpIdHash: ArraySlice<UInt8>
    /// The flags byte.
    package let flags: AuthenticatorFlags
    /// The signature counter (0 when the authenticator does not keep one).
    package let signCount: UInt32
    /// The attested credential data, present exactly when the AT flag is set.
    package let attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs map, present exactly when the ED flag is set (or,
    /// parsed with ``UnannouncedExtensions/acceptedAsOneMap``, when a map follows anyway).
    package let extensions: CBORItem?

    /// The largest credential ID length a relying party accepts (§7.1 step on `credentialId`).
    static let maximumCredentialIdLength = 1023
    /// The length of authenticator data without attested credential data or extensions.
    static let minimumLength = 37

    /// Whether an extensions map may follow the attested credential data while the ED flag
    /// is clear. WebAuthn refuses it: nothing the flags do not announce may be there. Recent Apple
    /// App Attest attestations carry such a map (`apple_bundle_version_01`,
    /// `apple_validation_category_01`; Apple's published sample comes from iOS 27) with ED
    /// clear, so the App Attest parser accepts it.
    package enum UnannouncedExtensions: Sendable {
        /// Bytes after the announced data are refused (WebAuthn).
        case refused
        /// One CBOR map may follow the announced data; it is read as ``extensions``.
        case acceptedAsOneMap
    }

    /// Parses authenticator data in place.
    /// - Parameters:
    ///   - bytes: the received bytes; slices of them are kept, not copied.
    ///   - unannouncedExtensions: whether a map may follow with the ED flag clear
    ///     (only App Attest attestations; WebAuthn never).
    /// - Throws: ``WebAuthnError`` with category `malformed`, naming the field that
    ///   failed: fewer than 37 bytes, a credential ID longer than 1023 bytes, a public
    ///   key or extensions that are not one CBOR map, data missing for a set flag, or
    ///   bytes left over.
    package init(bytes: ArraySlice<UInt8>, unannouncedExtensions: UnannouncedExtensions = .refused) throws(WebAuthnError) {
        rawBytes = bytes
        var reader: ByteReader
        (reader, rpIdHash, flags, signCount) = try Self.readHead(bytes)

        if flags.contains(.attestedCredentialData) {
            guard !reader.isAtEnd else {
                throw WebAuthnError(.malformed, "authenticator data: the AT flag is set but no attested credential data follows")
            }
            let aaguidBytes = try reader.take(16, "aaguid")
            let length = Int(try reader.readBigEndian(2, "credentialIdLength"))
            guard length <= Self.maximumCredentialIdLength else {
                throw WebAuthnError(
                    .malformed, "authenticator data: credentialIdLength \(length) exceeds \(Self.maximumCredentialIdLength)")
            }
            let credentialId = try reader.take(length, "credentialId")
            // CTAP2 canonical form is checked in the same pass that decodes the key (L3 §2.5; every
            // real authenticator measured writes it so: SpecMap, "Canonical CBOR", in the DocC
            // catalog), so a new credential's stored bytes are always canonical.
            let key = try Self.decodeMap(&reader, "credentialPublicKey", options: .ctap2Canonical)
            attestedCredentialData = AttestedCredentialData(
                aaguid: AAGUID(bytes: aaguidBytes) ?? .zero,  // take(16) returned 16 bytes
                credentialId: credentialId,
                credentialPublicKey: key)
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) {
            guard !reader.isAtEnd else {
                throw WebAuthnError(.malformed, "authenticator data: the ED flag is set but no extensions follow")
            }
            // Extension outputs are held to CTAP2 canonical form in this same pass, as the key is.
            extensions = try Self.decodeMap(&reader, "extensions", options: .ctap2Canonical)
        } else if unannouncedExtensions == .acceptedAsOneMap, !reader.isAtEnd {
            // Only App Attest sends this map, in Apple's format rather than CTAP2's: read as it comes.
            extensions = try Self.decodeMap(&reader, "extensions (ED flag clear)")
        } else {
            extensions = nil
        }

        guard reader.isAtEnd else {
            let announced = flags.contains(.attestedCredentialData) || flags.contains(.extensionData)
            throw WebAuthnError(
                .malformed,
                "authenticator data: \(reader.remaining.count) byte(s) left over at offset \(reader.offset)"
                    + (announced ? "" : " (neither AT nor ED is set)"))
        }
    }

    /// Reads the 37-byte head alone (`rpIdHash`, flags, signCount) and keeps every byte in
    /// ``rawBytes`` without interpreting what follows: ``attestedCredentialData`` and
    /// ``extensions`` are nil whatever the flags say. Only for App Attest assertions, whose devices
    /// set AT without attested credential data and append a map; Apple's steps read the head
    /// alone, and the signature covers every byte.
    /// - Parameter bytes: the received bytes.
    /// - Throws: `malformed` when fewer than 37 bytes arrive.
    init(headOf bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        rawBytes = bytes
        (_, rpIdHash, flags, signCount) = try Self.readHead(bytes)
        attestedCredentialData = nil
        extensions = nil
    }

    /// Reads `rpIdHash` ‖ flags ‖ signCount, leaving the reader after them.
    private static func readHead(
        _ bytes: ArraySlice<UInt8>
    ) throws(WebAuthnError)
        -> (ByteReader, ArraySlice<UInt8>, AuthenticatorFlags, UInt32)
    {
        guard bytes.count >= Self.minimumLength else {
            throw WebAuthnError(.malformed, "authenticator data: \(bytes.count) byte(s); at least \(Self.minimumLength) are required")
        }
        var reader = ByteReader(bytes, context: "authenticator data")
        let rpIdHash = try reader.take(32, "rpIdHash")
        let flags = AuthenticatorFlags(rawValue: try reader.readUInt8("flags"))
        let signCount = UInt32(truncatingIfNeeded: try reader.readBigEndian(4, "signCount"))
        return (reader, rpIdHash, flags, signCount)
    }

    /// Parses authenticator data held in an array.
    /// - Parameter bytes: the received bytes.
    /// - Throws: as ``init(bytes:)-(ArraySlice<UInt8>)``.
    package init(bytes: [UInt8]) throws(WebAuthnError) {
        try self.init(bytes: bytes[...])
    }

    /// Decodes one CBOR item at the reader's position and requires it to be a map.
    private static func decodeMap(
        _ reader: inout ByteReader, _ what: String,
        options: CBORDecodingOptions = .default
    ) throws(WebAuthnError) -> CBORItem {
        let offset = reader.offset
        let decoded: (item: CBORItem, rest: ArraySlice<UInt8>)
        do {
            decoded = try CBOR.decodePrefix(reader.remaining, options: options)
        } catch {
            throw WebAuthnError(.malformed, "authenticator data: \(what) at offset \(offset): \(error)")
        }
        guard decoded.item.mapEntries != nil else {
            throw WebAuthnError(.malformed, "authenticator data: \(what) at offset \(offset) is not a CBOR map")
        }
        reader.skip(to: decoded.rest)
        return decoded.item
    }
}

extension AuthenticatorData {
    /// Whether the UP flag is set.
    var userPresent: Bool { flags.contains(.userPresent) }
    /// Whether the UV flag is set.
    var userVerified: Bool { flags.contains(.userVerified) }
    /// Whether the BE flag is set.
    var backupEligible: Bool { flags.contains(.backupEligible) }
    /// Whether the BS flag is set.
    var backupState: Bool { flags.contains(.backupState) }
}

/// The flags byte of authenticator data (WebAuthn Level 3 §6.1).
///
/// The reserved bits (0x02 and 0x20) are kept in ``rawValue`` and otherwise ignored,
/// as the specification asks of relying parties.
package struct AuthenticatorFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The flags byte as received.
    package let rawValue: UInt8

    /// Creates flags from the byte.
    /// - Parameter rawValue: the flags byte.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP (bit 0): the user was present.
    package static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV (bit 2): the user was verified.
    package static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE (bit 3): the credential may be backed up (multi-device).
    package static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS (bit 4): the credential is currently backed up.
    package static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// AT (bit 6): attested credential data follows the counter.
    package static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED (bit 7): an extensions map ends the authenticator data.
    package static let extensionData = AuthenticatorFlags(rawValue: 0x80)

    /// The set flags by their short names, for example `UP|UV|AT`, then the byte in hex.
    package var description: String {
        let names: [(AuthenticatorFlags, String)] = [
            (.userPresent, "UP"), (.userVerified, "UV"), (.backupEligible, "BE"),
            (.backupState, "BS"), (.attestedCredentialData, "AT"), (.extensionData, "ED"),
        ]
        let set = names.filter { contains($0.0) }.map(\.1)
        let hex = String(rawValue, radix: 16)
        return (set.isEmpty ? "none" : set.joined(separator: "|")) + " (0x" + (hex.count < 2 ? "0" : "") + hex + ")"
    }
}
