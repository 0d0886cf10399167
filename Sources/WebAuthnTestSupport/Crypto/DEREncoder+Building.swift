import WebAuthnCoding
// The DER writer: the test authenticator and `CertificateBuilder` build extension values
// (Android key description, Apple nonce, FIDO AAGUID, TPM SAN) and whole certificates with
// it. The library writes no DER of its own beyond the length octets it keeps for the fuzz
// targets.
package import WebAuthnCrypto

extension DEREncoder {
    /// A TLV with the given tag and content, with a minimal definite length.
    package static func tlv(_ tag: DERTag, _ content: [UInt8]) -> [UInt8] {
        tag.encoded + length(content.count) + content
    }

    /// A SEQUENCE of already encoded elements.
    package static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        tlv(.sequence, elements.flatMap { $0 })
    }

    /// A non-negative INTEGER whose magnitude is `magnitude` (big-endian).
    package static func unsignedInteger(_ magnitude: [UInt8], tag: DERTag = .integer) -> [UInt8] {
        var octets = Array(magnitude.drop(while: { $0 == 0 }))
        if octets.isEmpty { octets = [0] }
        if let first = octets.first, first & 0x80 != 0 { octets.insert(0, at: 0) }
        return tlv(tag, octets)
    }

    /// A SET of already encoded elements, sorted as DER requires for SET OF.
    package static func set(_ elements: [[UInt8]]) -> [UInt8] {
        tlv(.set, elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }

    /// An explicit context tag `[number]` around one encoded value.
    package static func explicit(_ number: UInt32, _ inner: [UInt8]) -> [UInt8] {
        tlv(.context(number, constructed: true), inner)
    }

    /// An INTEGER holding `value`.
    package static func integer(_ value: Int, tag: DERTag = .integer) -> [UInt8] {
        var octets: [UInt8] = []
        var rest = value
        repeat {
            octets.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        } while !(rest == 0 && (octets.first ?? 0) & 0x80 == 0) && !(rest == -1 && (octets.first ?? 0) & 0x80 != 0)
        return tlv(tag, octets)
    }

    /// An ENUMERATED holding `value`.
    package static func enumerated(_ value: Int) -> [UInt8] { integer(value, tag: .enumerated) }

    /// A BOOLEAN.
    package static func boolean(_ value: Bool) -> [UInt8] { tlv(.boolean, [value ? 0xFF : 0x00]) }

    /// NULL.
    package static func null() -> [UInt8] { tlv(.null, []) }

    /// An OCTET STRING.
    package static func octetString(_ bytes: [UInt8], tag: DERTag = .octetString) -> [UInt8] { tlv(tag, bytes) }

    /// A BIT STRING of whole octets, or with `unusedBits` unused bits in the last.
    package static func bitString(_ bytes: [UInt8], unusedBits: Int = 0) -> [UInt8] {
        tlv(.bitString, [UInt8(truncatingIfNeeded: unusedBits)] + bytes)
    }

    /// A UTF8String.
    package static func utf8String(_ text: String) -> [UInt8] { tlv(.utf8String, Array(text.utf8)) }

    /// A PrintableString (the caller keeps to its character set).
    package static func printableString(_ text: String) -> [UInt8] { tlv(.printableString, Array(text.utf8)) }

    /// An IA5String.
    package static func ia5String(_ text: String, tag: DERTag = .ia5String) -> [UInt8] { tlv(tag, Array(text.utf8)) }

    /// A UTCTime from its text (`YYMMDDHHMMSSZ`).
    package static func utcTime(_ text: String) -> [UInt8] { tlv(.utcTime, Array(text.utf8)) }

    /// An OBJECT IDENTIFIER from dotted decimal.
    /// - Throws: ``DERError/Code/invalidValue`` when `dotted` is not a valid OID.
    package static func objectIdentifier(_ dotted: String) throws(DERError) -> [UInt8] {
        tlv(.objectIdentifier, try objectIdentifierContent(dotted))
    }

    /// The content octets of an OBJECT IDENTIFIER.
    /// - Throws: ``DERError/Code/invalidValue``.
    package static func objectIdentifierContent(_ dotted: String) throws(DERError) -> [UInt8] {
        let parts = dotted.split(separator: ".", omittingEmptySubsequences: false)
        var arcs: [UInt64] = []
        for part in parts {
            guard let arc = UInt64(part) else {
                throw DERError(.invalidValue, offset: 0, "\"\(dotted)\" is not a dotted OID")
            }
            arcs.append(arc)
        }
        guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40 else {
            throw DERError(.invalidValue, offset: 0, "\"\(dotted)\" is not a dotted OID")
        }
        let (firstArc, overflow) = (arcs[0] * 40).addingReportingOverflow(arcs[1])
        guard !overflow else {
            throw DERError(.invalidValue, offset: 0, "\"\(dotted)\" first arcs overflow")
        }
        var out: [UInt8] = []
        for arc in [firstArc] + arcs.dropFirst(2) {
            var digits: [UInt8] = []
            var rest = arc
            repeat {
                digits.insert(UInt8(rest & 0x7F), at: 0)
                rest >>= 7
            } while rest > 0
            for i in digits.indices where i < digits.count - 1 { digits[i] |= 0x80 }
            out += digits
        }
        return out
    }
}

extension KeyUsage {
    /// digitalSignature (0).
    package static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    /// nonRepudiation / contentCommitment (1).
    package static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    /// keyEncipherment (2).
    package static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    /// dataEncipherment (3).
    package static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    /// keyAgreement (4).
    package static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    /// keyCertSign (5).
    package static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    /// cRLSign (6).
    package static let cRLSign = KeyUsage(rawValue: 1 << 6)
    /// encipherOnly (7).
    package static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    /// decipherOnly (8).
    package static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    /// The DER BIT STRING for these bits (named-bit-list form: trailing zero bits dropped).
    package var derEncoded: [UInt8] {
        var highest = -1
        for position in 0..<16 where rawValue & (1 << position) != 0 { highest = position }
        guard highest >= 0 else { return DEREncoder.bitString([]) }
        let bitCount = highest + 1
        var bytes = [UInt8](repeating: 0, count: (bitCount + 7) / 8)
        for position in 0...highest where rawValue & (1 << position) != 0 {
            bytes[position / 8] |= 0x80 >> (position % 8)
        }
        return DEREncoder.bitString(bytes, unusedBits: bytes.count * 8 - bitCount)
    }
}

extension GeneralName {
    /// This name's DER encoding.
    package var derEncoded: [UInt8] {
        switch self {
        case .rfc822Name(let text): return DEREncoder.ia5String(text, tag: .context(1, constructed: false))
        case .dnsName(let text): return DEREncoder.ia5String(text, tag: .context(2, constructed: false))
        case .directoryName(let name): return DEREncoder.explicit(4, name.derBytes)
        case .uri(let text): return DEREncoder.ia5String(text, tag: .context(6, constructed: false))
        case .ipAddress(let bytes): return DEREncoder.octetString(bytes, tag: .context(7, constructed: false))
        case .registeredID(let oid):
            return DEREncoder.tlv(.context(8, constructed: false), (try? DEREncoder.objectIdentifierContent(oid)) ?? [])
        case .other(_, let encoded): return encoded
        }
    }
}

extension DERTag {
    // The universal tags (X.680 §8.4) of the string and OID types the writer emits; the
    // library's reader has its own.
    fileprivate static let objectIdentifier = DERTag(.universal, number: 6, constructed: false)
    fileprivate static let utf8String = DERTag(.universal, number: 12, constructed: false)
    fileprivate static let printableString = DERTag(.universal, number: 19, constructed: false)
    fileprivate static let ia5String = DERTag(.universal, number: 22, constructed: false)
    fileprivate static let utcTime = DERTag(.universal, number: 23, constructed: false)
}
