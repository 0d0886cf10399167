public import Foundation

/// An X.509 certificate, read into Swift values once from its DER encoding.
///
/// One walk of the strict DER reader over `Certificate ::= SEQUENCE { tbsCertificate,
/// signatureAlgorithm, signatureValue }` (RFC 5280 §4.1) gives every field: definite,
/// minimal lengths; a version that is absent (v1) or an explicit v2 or v3; the inner
/// signature AlgorithmIdentifier equal to the outer one; strict validity times (§4.1.2.5);
/// unique identifiers only from v2 and extensions only in v3; no extension present twice;
/// the extensions WebAuthn reads (basicConstraints, keyUsage, extKeyUsage,
/// subjectAltName) well formed; nothing after the certificate. libcrypto (`d2i_X509`)
/// must accept the same bytes: its parsed copy is kept for signature and chain
/// verification and gives the public key.
public struct Certificate: Sendable {
    let handle: X509Handle

    /// The certificate's DER encoding, exactly as given.
    public let derBytes: [UInt8]
    /// The DER of the signed part (tbsCertificate), a slice of ``derBytes``' content.
    package let tbsCertificateBytes: [UInt8]
    /// The version: 1, 2 or 3.
    package let version: Int
    /// The serial number's INTEGER content octets (big-endian two's complement, as encoded).
    public let serialNumber: [UInt8]
    /// The subject.
    package let subject: DistinguishedName
    /// The issuer.
    package let issuer: DistinguishedName
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period.
    public let notAfter: Date
    /// Every extension, in order.
    package let extensions: [CertificateExtension]
    /// basicConstraints, or nil when the extension is absent.
    package let basicConstraints: BasicConstraints?
    /// keyUsage, or nil when the extension is absent.
    package let keyUsage: KeyUsage?
    /// extKeyUsage purposes as dotted OIDs, or nil when the extension is absent.
    package let extendedKeyUsage: [String]?
    /// subjectAltName entries; empty when the extension is absent.
    package let subjectAlternativeNames: [GeneralName]
    /// The subject public key.
    package let publicKey: PublicKey
    /// The SubjectPublicKeyInfo's DER, as it appears in the certificate.
    package let subjectPublicKeyInfoDER: [UInt8]
    /// The certificate's signatureAlgorithm OID, dotted (`1.2.840.10045.4.3.2` for ecdsa-with-SHA256).
    package let signatureAlgorithmOID: String
    /// Whether subject and issuer are the same name, compared as RFC 5280 §7.1 and libcrypto
    /// do (case and inner white space of text values aside); it says nothing about the signature.
    /// Computed when asked: verification never needs it (libcrypto's chain building compares
    /// names itself).
    package var isSelfIssued: Bool {
        if issuer.derBytes == subject.derBytes { return true }
        guard let issuerNode = try? DER.parse(issuer.derBytes), let subjectNode = try? DER.parse(subject.derBytes),
            let issuerForm = DistinguishedName.canonicalForm(of: issuerNode)
        else { return false }
        return issuerForm == DistinguishedName.canonicalForm(of: subjectNode)
    }

    /// Parses one DER certificate.
    /// - Parameter derEncoded: exactly one certificate; trailing bytes are refused.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``,
    ///   naming the field that is wrong.
    public init(derEncoded: [UInt8]) throws(CryptoError) {
        // Structural DER first: libcrypto alone would also take BER (indefinite lengths).
        let root: DERNode
        do {
            root = try DER.parse(derEncoded)
        } catch {
            throw CryptoError(.malformedCertificate, "not a DER certificate: \(error)")
        }
        guard root.tag == .sequence, root.elements.count == 3 else {
            throw CryptoError(.malformedCertificate, "a certificate is SEQUENCE { tbsCertificate, signatureAlgorithm, signature }")
        }
        let tbs = root.elements[0], outerAlgorithm = root.elements[1], signatureValue = root.elements[2]
        guard tbs.tag == .sequence else {
            throw CryptoError(.malformedCertificate, "tbsCertificate: expected a SEQUENCE, found \(tbs.tag)")
        }
        let signatureAlgorithmOID = try Self.algorithmIdentifier(outerAlgorithm, field: "signatureAlgorithm")
        try Self.read("signatureValue") { () throws(DERError) in _ = try signatureValue.bitString() }

        var fields = tbs.elements[...]
        func next(_ field: String) throws(CryptoError) -> DERNode {
            guard let node = fields.popFirst() else {
                throw CryptoError(.malformedCertificate, "tbsCertificate ends before \(field)")
            }
            return node
        }
        func optional(_ tag: DERTag) -> DERNode? {
            guard let node = fields.first, node.tag == tag else { return nil }
            return fields.popFirst()
        }

        // version [0] EXPLICIT Version DEFAULT v1. The version is read as encoded, and the
        // fields RFC 5280 ties to it (unique IDs from v2, extensions in v3) are read whatever it
        // says, as libcrypto reads them: what a version must be is the attestation format's rule
        // (packed, tpm: "MUST be 3"), refused there as `attestation`, not as an unreadable
        // certificate. An explicit v1 is not DER but says the same as an absent one.
        var version = 1
        if let explicit = optional(.context(0, constructed: true)) {
            version = try Self.read("version") { () throws(DERError) in try explicit.explicitlyTagged(0).integer(in: 0...2) } + 1
        }
        let serialNode = try next("serialNumber")
        let serial = try Self.read("serialNumber") { () throws(DERError) in try serialNode.integerBytes() }
        // Equal bytes to the outer AlgorithmIdentifier, which was read above.
        let innerAlgorithm = try next("signature")
        guard innerAlgorithm.encodedBytes.elementsEqual(outerAlgorithm.encodedBytes) else {
            throw CryptoError(
                .malformedCertificate,
                "signature: the tbsCertificate algorithm differs from signatureAlgorithm (RFC 5280 §4.1.1.2)")
        }
        let issuer = try Self.name(try next("issuer"), field: "issuer")
        let validityNode = try next("validity")
        let validity = try Self.read("validity") { () throws(DERError) in try validityNode.sequence() }
        guard validity.count == 2 else {
            throw CryptoError(.malformedCertificate, "validity: expected notBefore and notAfter, found \(validity.count) values")
        }
        let notBefore = try CertificateTime.date(validity[0], field: "validity.notBefore")
        let notAfter = try CertificateTime.date(validity[1], field: "validity.notAfter")
        let subject = try Self.name(try next("subject"), field: "subject")
        let spkiNode = try next("subjectPublicKeyInfo")
        let spki = try Self.read("subjectPublicKeyInfo") { () throws(DERError) in try spkiNode.sequence() }
        guard spki.count == 2 else {
            throw CryptoError(
                .malformedCertificate, "subjectPublicKeyInfo: expected algorithm and subjectPublicKey, found \(spki.count) values")
        }
        _ = try Self.algorithmIdentifier(spki[0], field: "subjectPublicKeyInfo.algorithm")
        try Self.read("subjectPublicKeyInfo.subjectPublicKey") { () throws(DERError) in _ = try spki[1].bitString() }

        // issuerUniqueID [1] IMPLICIT and subjectUniqueID [2] IMPLICIT BIT STRING: v2 or v3 only.
        for (number, field) in [(UInt32(1), "issuerUniqueID"), (2, "subjectUniqueID")] {
            guard let unique = optional(.context(number, constructed: false)) else { continue }
            try Self.read(field) { () throws(DERError) in _ = try unique.bitString(tag: .context(number, constructed: false)) }
        }
        var extensions: [CertificateExtension] = []
        if let explicit = optional(.context(3, constructed: true)) {
            extensions = try Self.extensions(explicit)
        }
        if let extra = fields.first {
            throw CryptoError(.malformedCertificate, "tbsCertificate: unexpected \(extra.tag) after the last field")
        }
        var seen: Set<String> = []
        for item in extensions {
            guard seen.insert(item.oid).inserted else {
                throw CryptoError(.malformedCertificate, "extensions: \(item.oid) appears more than once")
            }
        }
        func decode<T>(_ oid: String, _ what: String, _ body: ([UInt8]) throws(DERError) -> T) throws(CryptoError) -> T? {
            guard let item = extensions.first(where: { $0.oid == oid }) else { return nil }
            do {
                return try body(item.value)
            } catch {
                throw CryptoError(.malformedCertificate, "\(what) extension: \(error)")
            }
        }

        self.basicConstraints = try decode(CertificateExtension.basicConstraintsOID, "basicConstraints") { bytes throws(DERError) in
            try BasicConstraints(derEncoded: bytes)
        }
        self.keyUsage = try decode(CertificateExtension.keyUsageOID, "keyUsage") { bytes throws(DERError) in
            try KeyUsage(derEncoded: bytes)
        }
        self.extendedKeyUsage = try decode(CertificateExtension.extendedKeyUsageOID, "extKeyUsage") { bytes throws(DERError) in
            var purposes: [String] = []
            for node in try DER.parseSequence(bytes) { purposes.append(try node.objectIdentifier()) }
            return purposes
        }
        self.subjectAlternativeNames =
            try decode(CertificateExtension.subjectAlternativeNameOID, "subjectAltName") { bytes throws(DERError) in
                try GeneralName.decodeList(bytes)
            } ?? []

        // libcrypto reads the same bytes for what only it does: the public key, signature
        // checks and chain building.
        let handle = try X509Handle.parse(derEncoded)
        self.publicKey = PublicKey(evpKey: try handle.publicKey())
        self.handle = handle
        self.derBytes = derEncoded
        self.tbsCertificateBytes = Array(tbs.encodedBytes)
        self.version = version
        self.serialNumber = Array(serial)
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.extensions = extensions
        self.subjectPublicKeyInfoDER = Array(spkiNode.encodedBytes)
        self.signatureAlgorithmOID = signatureAlgorithmOID
    }

    /// Parses one DER certificate from a slice (for example a CBOR byte string of `x5c`).
    /// - Parameter derEncoded: exactly one certificate; trailing bytes are refused.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    package init(derEncoded: ArraySlice<UInt8>) throws(CryptoError) {
        try self.init(derEncoded: Array(derEncoded))
    }

    /// Runs a DER accessor, naming `field` in the error it throws.
    private static func read<T>(_ field: String, _ body: () throws(DERError) -> T) throws(CryptoError) -> T {
        do {
            return try body()
        } catch {
            throw CryptoError(.malformedCertificate, "\(field): \(error)")
        }
    }

    /// `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`; the OID, dotted.
    private static func algorithmIdentifier(_ node: DERNode, field: String) throws(CryptoError) -> String {
        try read(field) { () throws(DERError) in
            let parts = try node.sequence()
            guard (1...2).contains(parts.count) else {
                throw node.error(.unexpectedElementCount, "AlgorithmIdentifier has \(parts.count) values")
            }
            return try parts[0].objectIdentifier()
        }
    }

    private static func name(_ node: DERNode, field: String) throws(CryptoError) -> DistinguishedName {
        try read(field) { () throws(DERError) in try DistinguishedName(node: node) }
    }

    /// `[3] EXPLICIT Extensions`, `Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension`,
    /// `Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }`.
    /// An explicitly encoded `critical FALSE` (not DER, but found in the wild) is read as FALSE.
    private static func extensions(_ explicit: DERNode) throws(CryptoError) -> [CertificateExtension] {
        try read("extensions") { () throws(DERError) in
            let list = try explicit.explicitlyTagged(3)
            let items = try list.sequence()
            guard !items.isEmpty else {
                throw list.error(.unexpectedElementCount, "Extensions is empty (SIZE (1..MAX))")
            }
            var result: [CertificateExtension] = []
            result.reserveCapacity(items.count)
            for item in items {
                let parts = try item.sequence()
                guard parts.count == 2 || parts.count == 3 else {
                    throw item.error(.unexpectedElementCount, "Extension has \(parts.count) values")
                }
                let oid = try parts[0].objectIdentifier()
                let isCritical = parts.count == 3 ? try parts[1].boolean() : false
                let value = try parts[parts.count - 1].octetString()
                result.append(CertificateExtension(oid: oid, isCritical: isCritical, value: Array(value)))
            }
            return result
        }
    }

    /// The extension with this OID, if present (an OID appears at most once).
    /// - Parameter oid: the dotted OID.
    package func `extension`(oid: String) -> CertificateExtension? {
        extensions.first { $0.oid == oid }
    }

    /// Whether `issuer`'s public key verifies this certificate's signature. Names,
    /// validity and CA flags are not looked at; use ``CertificateChain`` for that.
    /// - Parameter issuer: the certificate whose key should have signed this one.
    func isSignatureValid(issuer: Certificate) -> Bool {
        handle.isSigned(by: issuer.publicKey.evpKey)
    }

    /// Whether `key` verifies this certificate's signature.
    /// - Parameter key: the candidate signer's public key.
    func isSignatureValid(publicKey key: PublicKey) -> Bool {
        handle.isSigned(by: key.evpKey)
    }
}

extension Certificate: Equatable {
    /// Two certificates are equal when their DER encodings are.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derBytes == rhs.derBytes }
}

/// An X.501 Name (a certificate's subject or issuer, or a SAN directoryName).
///
/// Kept as its relative distinguished names (RDNs), each a set of one or more
/// attributes, so both TPM encodings (one RDN per attribute, or one multi-valued
/// RDN) read the same through ``attributes`` and ``value(for:)``.
package struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    /// One attribute as read from a Name: its type OID (dotted) and its value as text.
    struct AttributeTypeAndValue: Hashable, Sendable {
        /// The attribute type, dotted (`2.5.4.3` for commonName).
        let oid: String
        /// The value. Character strings are decoded; any other ASN.1 type is
        /// given as `#` and the hex of its DER encoding (RFC 4514 style).
        let value: String
    }

    /// commonName (`2.5.4.3`).
    static let commonNameOID = "2.5.4.3"
    /// countryName (`2.5.4.6`).
    static let countryOID = "2.5.4.6"
    /// organizationName (`2.5.4.10`).
    static let organizationOID = "2.5.4.10"
    /// organizationalUnitName (`2.5.4.11`).
    static let organizationalUnitOID = "2.5.4.11"
    /// TCG tpmManufacturer (`2.23.133.2.1`).
    package static let tpmManufacturerOID = "2.23.133.2.1"
    /// TCG tpmModel (`2.23.133.2.2`).
    package static let tpmModelOID = "2.23.133.2.2"
    /// TCG tpmVersion (`2.23.133.2.3`).
    package static let tpmVersionOID = "2.23.133.2.3"

    /// The RDNs in order; each holds one or more attributes.
    let relativeDistinguishedNames: [[AttributeTypeAndValue]]
    /// The Name's DER encoding as it appeared in the certificate (not part of equality).
    package let derBytes: [UInt8]

    /// Every attribute, RDN by RDN, flattened.
    var attributes: [AttributeTypeAndValue] { relativeDistinguishedNames.flatMap { $0 } }
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
        var rdns: [[AttributeTypeAndValue]] = []
        for rdnNode in try node.sequence() {
            let members = try rdnNode.set()
            guard !members.isEmpty else {
                throw rdnNode.error(.unexpectedElementCount, "empty RelativeDistinguishedName")
            }
            var rdn: [AttributeTypeAndValue] = []
            for member in members {
                let parts = try member.sequence()
                guard parts.count == 2 else {
                    throw member.error(.unexpectedElementCount, "AttributeTypeAndValue has \(parts.count) elements")
                }
                let oid = try parts[0].objectIdentifier()
                rdn.append(AttributeTypeAndValue(oid: oid, value: Self.text(of: parts[1])))
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
