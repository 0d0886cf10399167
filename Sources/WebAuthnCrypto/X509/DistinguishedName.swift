/// An X.501 Name (a certificate's subject or issuer, or a SAN directoryName).
///
/// Kept as its relative distinguished names (RDNs), each a set of one or more
/// attributes, so both TPM encodings (one RDN per attribute, or one multi-valued
/// RDN) read the same through ``attributes`` and ``value(for:)``.
package struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    /// One attribute: its type OID (dotted) and its value as text.
    package struct Attribute: Hashable, Sendable {
        /// The attribute type, dotted (`2.5.4.3` for commonName).
        package let oid: String
        /// The value. Character strings are decoded; any other ASN.1 type is
        /// given as `#` and the hex of its DER encoding (RFC 4514 style).
        package let value: String

        /// Creates an attribute.
        /// - Parameters:
        ///   - oid: the dotted type OID.
        ///   - value: the text value.
        package init(oid: String, value: String) {
            self.oid = oid
            self.value = value
        }
    }

    /// commonName (`2.5.4.3`).
    package static let commonNameOID = "2.5.4.3"
    /// countryName (`2.5.4.6`).
    package static let countryOID = "2.5.4.6"
    /// organizationName (`2.5.4.10`).
    package static let organizationOID = "2.5.4.10"
    /// organizationalUnitName (`2.5.4.11`).
    package static let organizationalUnitOID = "2.5.4.11"
    /// TCG tpmManufacturer (`2.23.133.2.1`).
    package static let tpmManufacturerOID = "2.23.133.2.1"
    /// TCG tpmModel (`2.23.133.2.2`).
    package static let tpmModelOID = "2.23.133.2.2"
    /// TCG tpmVersion (`2.23.133.2.3`).
    package static let tpmVersionOID = "2.23.133.2.3"

    /// The RDNs in order; each holds one or more attributes.
    let relativeDistinguishedNames: [[Attribute]]
    /// The Name's DER encoding as it appeared in the certificate (not part of equality).
    package let derBytes: [UInt8]

    /// A name from its parts, for code that encodes names itself (test certificate building).
    /// - Parameters:
    ///   - relativeDistinguishedNames: the RDNs in order.
    ///   - derBytes: their DER encoding, which the caller vouches for.
    package init(relativeDistinguishedNames: [[Attribute]], derBytes: [UInt8]) {
        self.relativeDistinguishedNames = relativeDistinguishedNames
        self.derBytes = derBytes
    }

    /// Every attribute, RDN by RDN, flattened.
    var attributes: [Attribute] { relativeDistinguishedNames.flatMap { $0 } }
    /// Whether the name has no attributes (a TPM AIK certificate's subject).
    package var isEmpty: Bool { relativeDistinguishedNames.allSatisfy { $0.isEmpty } }

    /// Every value of the attribute type `oid`, in order.
    /// - Parameter oid: the dotted type OID.
    func values(for oid: String) -> [String] {
        attributes.filter { $0.oid == oid }.map(\.value)
    }

    /// The first value of the attribute type `oid`, or nil.
    /// - Parameter oid: the dotted type OID.
    package func value(for oid: String) -> String? {
        attributes.first { $0.oid == oid }?.value
    }

    /// The first commonName (CN).
    package var commonName: String? { value(for: Self.commonNameOID) }
    /// The first organizationName (O).
    package var organization: String? { value(for: Self.organizationOID) }
    /// The first organizationalUnitName (OU).
    package var organizationalUnit: String? { value(for: Self.organizationalUnitOID) }
    /// The first countryName (C).
    package var country: String? { value(for: Self.countryOID) }

    /// `oid=value` pairs, RDNs joined by `, ` and multi-valued RDN members by `+`.
    package var description: String {
        relativeDistinguishedNames.map { rdn in
            rdn.map { "\($0.oid)=\($0.value)" }.joined(separator: "+")
        }.joined(separator: ", ")
    }

    /// Equal when the RDNs and their attributes are (the encodings may differ in string types).
    package static func == (lhs: DistinguishedName, rhs: DistinguishedName) -> Bool {
        lhs.relativeDistinguishedNames == rhs.relativeDistinguishedNames
    }

    /// Hashes the RDNs, matching `==`.
    package func hash(into hasher: inout Hasher) { hasher.combine(relativeDistinguishedNames) }

    /// Parses a DER Name (`SEQUENCE OF SET OF AttributeTypeAndValue`).
    /// - Parameter derEncoded: exactly one Name.
    /// - Throws: ``DERError`` when it is not a well-formed Name.
    package init(derEncoded: ArraySlice<UInt8>) throws(DERError) {
        try self.init(node: try DER.parse(derEncoded))
    }

    /// Reads a Name from a parsed node.
    init(node: DERNode) throws(DERError) {
        var rdns: [[Attribute]] = []
        for rdnNode in try node.sequence() {
            let members = try rdnNode.set()
            guard !members.isEmpty else {
                throw rdnNode.error(.unexpectedElementCount, "empty RelativeDistinguishedName")
            }
            var rdn: [Attribute] = []
            for member in members {
                let parts = try member.sequence()
                guard parts.count == 2 else {
                    throw member.error(.unexpectedElementCount, "AttributeTypeAndValue has \(parts.count) elements")
                }
                let oid = try parts[0].objectIdentifier()
                rdn.append(Attribute(oid: oid, value: Self.text(of: parts[1])))
            }
            rdns.append(rdn)
        }
        self.relativeDistinguishedNames = rdns
        self.derBytes = Array(node.encodedBytes)
    }

    private static func text(of value: DERNode) -> String {
        if let text = try? value.string() { return text }
        let hexDigits: [Character] = Array("0123456789abcdef")
        var out = "#"
        for byte in value.encodedBytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return out
    }
}
