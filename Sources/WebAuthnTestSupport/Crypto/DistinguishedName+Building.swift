package import WebAuthnCrypto

// Building names is for test certificates only; the shipping layer only reads them. A built
// name is its DER read back by the library's own Name reader, so it holds exactly what a
// certificate carrying it would.
extension DistinguishedName {
    /// One attribute to write into a name: its type OID (dotted) and its value as text.
    package struct Attribute: Hashable, Sendable {
        /// The attribute type, dotted (`2.5.4.3` for commonName).
        package let oid: String
        /// The text value.
        package let value: String
    }

    /// Builds a name (and its DER) from RDNs. countryName is written as a
    /// PrintableString, every other value as a UTF8String.
    /// - Parameter rdns: the RDNs; an inner array of several attributes is one multi-valued RDN.
    /// - Throws: ``DERError/Code/invalidValue`` for an OID that is not dotted decimal, or what
    ///   the Name reader refuses (an empty RDN).
    package init(rdns: [[Attribute]]) throws(DERError) {
        var encodedRDNs: [[UInt8]] = []
        for rdn in rdns {
            var members: [[UInt8]] = []
            for attribute in rdn {
                let value =
                    attribute.oid == Attribute.countryOID
                    ? DEREncoder.printableString(attribute.value)
                    : DEREncoder.utf8String(attribute.value)
                members.append(DEREncoder.sequence([try DEREncoder.objectIdentifier(attribute.oid), value]))
            }
            encodedRDNs.append(DEREncoder.set(members))
        }
        try self.init(derEncoded: DEREncoder.sequence(encodedRDNs)[...])
    }

    /// Builds a name with one RDN per attribute.
    /// - Parameter attributes: the attributes in order.
    /// - Throws: ``DERError/Code/invalidValue`` for an OID that is not dotted decimal.
    package init(_ attributes: [Attribute]) throws(DERError) {
        try self.init(rdns: attributes.map { [$0] })
    }
}

extension DistinguishedName.Attribute {
    // The attribute types of X.520 that test names use.
    private static let commonNameOID = "2.5.4.3"
    fileprivate static let countryOID = "2.5.4.6"
    private static let organizationOID = "2.5.4.10"
    private static let organizationalUnitOID = "2.5.4.11"

    /// commonName (CN).
    package static func commonName(_ value: String) -> Self { Self(oid: commonNameOID, value: value) }
    /// countryName (C).
    package static func country(_ value: String) -> Self { Self(oid: countryOID, value: value) }
    /// organizationName (O).
    package static func organization(_ value: String) -> Self { Self(oid: organizationOID, value: value) }
    /// organizationalUnitName (OU).
    package static func organizationalUnit(_ value: String) -> Self { Self(oid: organizationalUnitOID, value: value) }
}
