package import WebAuthnCrypto

// Building names is for test certificates only; the shipping layer only reads them.
extension DistinguishedName {
    /// Builds a name (and its DER) from RDNs. countryName is written as a
    /// PrintableString, every other value as a UTF8String.
    /// - Parameter rdns: the RDNs; an inner array of several attributes is one multi-valued RDN.
    /// - Throws: ``DERError/Code/invalidValue`` for an OID that is not dotted decimal.
    package init(rdns: [[Attribute]]) throws(DERError) {
        var encodedRDNs: [[UInt8]] = []
        for rdn in rdns {
            var members: [[UInt8]] = []
            for attribute in rdn {
                let value =
                    attribute.oid == Self.countryOID
                    ? DEREncoder.printableString(attribute.value)
                    : DEREncoder.utf8String(attribute.value)
                members.append(DEREncoder.sequence([try DEREncoder.objectIdentifier(attribute.oid), value]))
            }
            encodedRDNs.append(DEREncoder.set(members))
        }
        self.init(relativeDistinguishedNames: rdns, derBytes: DEREncoder.sequence(encodedRDNs))
    }

    /// Builds a name with one RDN per attribute.
    /// - Parameter attributes: the attributes in order.
    /// - Throws: ``DERError/Code/invalidValue`` for an OID that is not dotted decimal.
    package init(_ attributes: [Attribute]) throws(DERError) {
        try self.init(rdns: attributes.map { [$0] })
    }
}

extension DistinguishedName.Attribute {
    /// commonName (CN).
    package static func commonName(_ value: String) -> Self { Self(oid: DistinguishedName.commonNameOID, value: value) }
    /// countryName (C).
    package static func country(_ value: String) -> Self { Self(oid: DistinguishedName.countryOID, value: value) }
    /// organizationName (O).
    package static func organization(_ value: String) -> Self { Self(oid: DistinguishedName.organizationOID, value: value) }
    /// organizationalUnitName (OU).
    package static func organizationalUnit(_ value: String) -> Self {
        Self(oid: DistinguishedName.organizationalUnitOID, value: value)
    }
}
