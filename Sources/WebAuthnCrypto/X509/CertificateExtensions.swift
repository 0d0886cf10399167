// The X.509 extension values WebAuthn attestation looks at, decoded in safe Swift
// with the DER reader from the extnValue octets libcrypto hands over.

/// One certificate extension, as it appears in the certificate.
package struct CertificateExtension: Hashable, Sendable {
    /// The extension's OID, dotted (`2.5.29.19`).
    package let oid: String
    /// Whether the extension is marked critical.
    package let isCritical: Bool
    /// The contents of the extnValue OCTET STRING: the extension's own DER encoding.
    package let value: [UInt8]

    /// Creates an extension.
    /// - Parameters:
    ///   - oid: the dotted OID.
    ///   - isCritical: the critical flag.
    ///   - value: the DER of the extension value (without the OCTET STRING wrapper).
    package init(oid: String, isCritical: Bool, value: [UInt8]) {
        self.oid = oid
        self.isCritical = isCritical
        self.value = value
    }

    /// basicConstraints (`2.5.29.19`).
    static let basicConstraintsOID = "2.5.29.19"
    /// keyUsage (`2.5.29.15`).
    static let keyUsageOID = "2.5.29.15"
    /// extKeyUsage (`2.5.29.37`).
    static let extendedKeyUsageOID = "2.5.29.37"
    /// subjectAltName (`2.5.29.17`).
    package static let subjectAlternativeNameOID = "2.5.29.17"
}

/// The basicConstraints extension (RFC 5280 §4.2.1.9).
package struct BasicConstraints: Hashable, Sendable {
    /// Whether the subject is a CA.
    package let isCA: Bool
    /// The maximum number of intermediate CAs that may follow, if constrained.
    package let pathLength: Int?

    /// Creates the value.
    /// - Parameters:
    ///   - isCA: the cA flag.
    ///   - pathLength: pathLenConstraint, if any.
    init(isCA: Bool, pathLength: Int? = nil) {
        self.isCA = isCA
        self.pathLength = pathLength
    }

    /// Decodes `SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }`.
    /// An explicit `cA FALSE` (common in the wild, though not DER) is accepted.
    init(derEncoded: [UInt8]) throws(DERError) {
        var elements = try DER.parseSequence(derEncoded)[...]
        var isCA = false
        if let first = elements.first, first.tag == .boolean {
            isCA = try first.boolean()
            elements = elements.dropFirst()
        }
        var pathLength: Int?
        if let next = elements.first {
            pathLength = try next.integer(in: 0...Int(Int32.max))
            elements = elements.dropFirst()
        }
        if let extra = elements.first {
            throw extra.error(.unexpectedElementCount, "basicConstraints has extra elements")
        }
        self.init(isCA: isCA, pathLength: pathLength)
    }
}

/// The keyUsage extension's bits (RFC 5280 §4.2.1.3); bit n of the BIT STRING is `1 << n`
/// (digitalSignature 0 … decipherOnly 8). The named bits are the certificate builder's
/// vocabulary and live with it in WebAuthnTestSupport: the library only reads the set.
package struct KeyUsage: OptionSet, Hashable, Sendable {
    /// The bits.
    package let rawValue: UInt16
    /// Creates a set from bits.
    /// - Parameter rawValue: bit n is named bit n.
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Decodes the BIT STRING; bits past decipherOnly are ignored.
    init(derEncoded: [UInt8]) throws(DERError) {
        let (bytes, _) = try DER.parse(derEncoded).bitString()
        var raw: UInt16 = 0
        for (index, byte) in bytes.prefix(2).enumerated() {
            for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                let position = index * 8 + bit
                if position <= 8 { raw |= 1 << position }
            }
        }
        self.init(rawValue: raw)
    }
}

/// One GeneralName (RFC 5280 §4.2.1.6).
package enum GeneralName: Hashable, Sendable {
    /// rfc822Name `[1]`.
    case rfc822Name(String)
    /// dNSName `[2]`.
    case dnsName(String)
    /// directoryName `[4]` (the TPM AIK certificate's manufacturer, model and version).
    case directoryName(DistinguishedName)
    /// uniformResourceIdentifier `[6]`.
    case uri(String)
    /// iPAddress `[7]`: 4 or 16 octets (or 8/32 in name constraints).
    case ipAddress([UInt8])
    /// registeredID `[8]`, dotted.
    case registeredID(String)
    /// Any other form (otherName `[0]`, x400Address `[3]`, ediPartyName `[5]`…):
    /// its context tag number and its complete DER encoding.
    case other(tagNumber: UInt32, encoded: [UInt8])

    /// Decodes `SEQUENCE OF GeneralName`.
    static func decodeList(_ derEncoded: [UInt8]) throws(DERError) -> [GeneralName] {
        var names: [GeneralName] = []
        for node in try DER.parseSequence(derEncoded) {
            names.append(try GeneralName(node: node))
        }
        return names
    }

    init(node: DERNode) throws(DERError) {
        guard node.tag.tagClass == .contextSpecific else {
            throw node.error(.unexpectedTag, "GeneralName must be context-tagged, found \(node.tag)")
        }
        switch node.tag.number {
        case 1, 2, 6:
            let text = try Self.ia5(node)
            self = node.tag.number == 1 ? .rfc822Name(text) : node.tag.number == 2 ? .dnsName(text) : .uri(text)
        case 4:
            self = .directoryName(try DistinguishedName(node: try node.explicitlyTagged(4)))
        case 7:
            self = .ipAddress(Array(try node.octetString(tag: .context(7, constructed: false))))
        case 8:
            self = .registeredID(try node.objectIdentifier(tag: .context(8, constructed: false)))
        default:
            self = .other(tagNumber: node.tag.number, encoded: Array(node.encodedBytes))
        }
    }

    private static func ia5(_ node: DERNode) throws(DERError) -> String {
        let bytes = try node.octetString(tag: .context(node.tag.number, constructed: false))
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            throw node.error(.invalidValue, "IA5String holds a non-ASCII byte")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
